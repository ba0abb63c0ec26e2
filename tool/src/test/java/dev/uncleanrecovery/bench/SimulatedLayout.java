// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.bench;

import org.apache.kafka.common.Uuid;

/**
 * The simulated cluster's partitions, as a pure function both sides compute: the simulated brokers answer from
 * it, the probe driver builds its request list from it. Topics of {@value #PARTITIONS_PER_TOPIC} partitions,
 * RF 3 spread round-robin over the brokers, every partition at metadata leader epoch {@value #METADATA_EPOCH}.
 */
record SimulatedLayout(int brokers, int partitions) {

    static final int PARTITIONS_PER_TOPIC = 1000;
    static final int REPLICATION = 3;
    static final int METADATA_EPOCH = 5;

    int topics() {
        return (partitions + PARTITIONS_PER_TOPIC - 1) / PARTITIONS_PER_TOPIC;
    }

    int partitionsOf(int topic) {
        return Math.min(PARTITIONS_PER_TOPIC, partitions - topic * PARTITIONS_PER_TOPIC);
    }

    static String topicName(int topic) {
        return String.format("sim-%04d", topic);
    }

    static int topicIndex(String name) {
        return Integer.parseInt(name.substring(4));
    }

    static Uuid topicId(int topic) {
        return new Uuid(0x5EED, topic + 1L);
    }

    static int topicIndex(Uuid id) {
        return (int) (id.getLeastSignificantBits() - 1);
    }

    /** Broker ids 1..brokers. */
    int replica(int topic, int partition, int k) {
        return (topic * 7 + partition * REPLICATION + k) % brokers + 1;
    }

    /** Latest epoch in a replica's cache: 0..METADATA_EPOCH, varies per replica. */
    static int latestEpoch(int topic, int partition, int broker) {
        return Math.floorMod(topic * 31 + partition * 17 + broker * 13, METADATA_EPOCH + 1);
    }

    static long logEndOffset(int topic, int partition, int broker) {
        return 100L * latestEpoch(topic, partition, broker) + Math.floorMod(partition * 11 + broker * 5, 97);
    }

    /** Start offset of the epoch after {@code epoch} (what DivergingEpoch says for an older LastFetchedEpoch). */
    static long endOffsetOfEpoch(int epoch) {
        return 100L * (epoch + 1);
    }
}
