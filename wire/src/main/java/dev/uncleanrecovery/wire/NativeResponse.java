// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.wire;

import java.nio.ByteBuffer;

/** A response body this package can encode and decode. */
public sealed interface NativeResponse permits GetReplicaLogInfoResponse, ElectLeadersResponse {

    /**
     * The body's bytes in {@code version}, without any header, positioned at 0.
     *
     * @throws ProtocolException if {@code version} is not one this codec speaks
     */
    ByteBuffer serialize(short version);
}
