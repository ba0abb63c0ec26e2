// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** Reads partitions from the beginning: the records a consumer really gets, counted, or the keys of one partition. */
public final class RecordCount {

    private RecordCount() {
    }

    public static long readable(LocalKafkaCluster cluster, Collection<TopicPartition> partitions, Duration timeout) {
        Properties props = new Properties();
        props.putAll(cluster.clientProperties());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            List<TopicPartition> tps = List.copyOf(partitions);
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            Map<TopicPartition, Long> end = consumer.endOffsets(tps, timeout);
            long count = 0;
            long deadline = System.nanoTime() + timeout.toNanos();
            while (tps.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp)) && System.nanoTime() < deadline) {
                count += consumer.poll(Duration.ofMillis(500)).count();
            }
            return count;
        }
    }

    /** The keys (UTF-8) of every record a consumer reads from the partition, in offset order. */
    public static List<String> keys(LocalKafkaCluster cluster, TopicPartition tp, Duration timeout) {
        Properties props = new Properties();
        props.putAll(cluster.clientProperties());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        List<String> keys = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            consumer.assign(List.of(tp));
            long end = consumer.endOffsets(List.of(tp), timeout).get(tp);
            long deadline = System.nanoTime() + timeout.toNanos();
            while (consumer.position(tp) < end && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    keys.add(new String(r.key(), StandardCharsets.UTF_8));
                }
            }
        }
        return keys;
    }
}
