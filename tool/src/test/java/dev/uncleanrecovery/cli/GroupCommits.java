// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import dev.uncleanrecovery.localcluster.LocalClusterException;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** What a consumer group commits after reading, as real consumers commit it. */
final class GroupCommits {

    private static final Duration STEP = Duration.ofSeconds(60);

    private GroupCommits() {
    }

    /**
     * A real consumer of {@code group} reads {@code tp} from the group's committed offset (the start without one) up
     * to {@code offset}, and commits it: with the leader epoch of the last record it read, as Kafka's consumer commits
     * its position (KIP-320), or without one, as a client without KIP-320 does.
     */
    static void readAndCommit(LocalKafkaCluster cluster, String group, TopicPartition tp, long offset,
                              boolean withLeaderEpoch) {
        Properties props = new Properties();
        props.putAll(cluster.clientProperties());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            consumer.assign(List.of(tp));
            long deadline = System.nanoTime() + STEP.toNanos();
            // a consumer sees only offsets below the high watermark: reading to an offset proves it was committed
            while (consumer.position(tp) < offset) {
                if (System.nanoTime() > deadline) {
                    throw new LocalClusterException(group + " read only up to " + consumer.position(tp) + " of "
                            + offset + " on " + tp);
                }
                consumer.poll(Duration.ofMillis(200));
            }
            if (withLeaderEpoch) {
                consumer.commitSync();
            } else {
                consumer.commitSync(Map.of(tp, new OffsetAndMetadata(offset)));
            }
        }
    }
}
