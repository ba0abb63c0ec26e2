// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.wire;

import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The ElectLeaders RPC in the two flexible versions this project speaks: v2 as Kafka 4.4 ships it,
 * and v3, which is v2 plus DesignatedLeaders in each TopicPartitions entry (the unclean-recovery
 * proposal that follows KIP-966). Messages: {@link ElectLeadersRequest} and
 * {@link ElectLeadersResponse}; the response layout did not change in v3.
 */
public final class ElectLeaders {

    /** Kafka's own key: v3 is a new version of the stock RPC, not a new RPC. */
    public static final short API_KEY = ApiKeys.ELECT_LEADERS.id;

    /** The first flexible version (compact strings and arrays, tagged fields), and the oldest we speak. */
    public static final short LOWEST_SUPPORTED_VERSION = 2;

    /** The version that carries DesignatedLeaders; also the newest we speak. */
    public static final short DESIGNATED_LEADERS_VERSION = 3;

    private ElectLeaders() {
    }

    public static void checkSupported(short version, String what) {
        if (version < LOWEST_SUPPORTED_VERSION || version > DESIGNATED_LEADERS_VERSION) {
            throw new ProtocolException(String.format("ElectLeaders %s v%d is not supported: this codec speaks v%d and v%d",
                    what, version, LOWEST_SUPPORTED_VERSION, DESIGNATED_LEADERS_VERSION));
        }
    }
}
