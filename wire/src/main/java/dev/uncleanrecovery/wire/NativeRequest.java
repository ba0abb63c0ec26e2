// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.wire;

import java.nio.ByteBuffer;

/** A request body this package can encode and decode: what {@link Frames#parseRequest} hands the agent. */
public sealed interface NativeRequest permits GetReplicaLogInfoRequest, ElectLeadersRequest {

    /** The api key the request header must carry. */
    short apiKey();

    /**
     * The body's bytes in {@code version}, without any header, positioned at 0.
     *
     * @throws ProtocolException if this request cannot be expressed in {@code version}
     */
    ByteBuffer serialize(short version);
}
