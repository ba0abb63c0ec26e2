// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.patch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.PartitionView;
import dev.uncleanrecovery.localcluster.StopMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * The KIP-966 rules Kafka 4.4 already enforces, checked on real brokers: the companion agent does
 * not re-implement them and must not break them. Run on a stock cluster and on a patched one by
 * the two subclasses. Each test restarts the brokers it killed.
 */
abstract class Kip966Conformance {

    private static final Duration STATE_TIMEOUT = Duration.ofSeconds(60);

    @Test
    void high_watermark_does_not_advance_while_the_isr_is_below_min_isr(LocalKafkaCluster cluster) throws Exception {
        // given: RF 2 on brokers [1,2], min.insync.replicas=2, 5 records acknowledged by both
        String topic = "hwm";
        TopicPartition partition = new TopicPartition(topic, 0);
        createTopic(cluster, topic, List.of(1, 2));
        cluster.metadata().awaitPartition(partition, view -> view.leader() == 1 && view.isr().size() == 2,
                STATE_TIMEOUT);
        produce(cluster, topic, "all", 5);

        // when: follower 2 dies and the ISR shrinks to [1], below min ISR; 3 records acks=1
        cluster.stopBroker(2, StopMode.ABRUPT);
        PartitionView shrunk = cluster.metadata().awaitPartition(partition, view -> view.isr().equals(List.of(1)),
                STATE_TIMEOUT);
        produce(cluster, topic, "1", 3);

        // then: the leader's log grew, the high watermark (what consumers may read) did not
        try (PatchedBrokers brokers = PatchedBrokers.open(cluster, List.of(1))) {
            assertThat(brokers.logEndOffset(1, partition)).isEqualTo(8);
        }
        assertThat(highWatermark(cluster, partition)).isEqualTo(5);
        // and the follower that left the ISR below min ISR is kept eligible (ELR)
        assertThat(shrunk.elr()).containsExactly(2);

        cluster.startBroker(2);
        cluster.metadata().awaitPartition(partition, view -> view.isr().size() == 2, STATE_TIMEOUT);
        assertThat(highWatermark(cluster, partition)).isEqualTo(8);
    }

    @Test
    void elr_fills_below_min_isr_and_an_unclean_restart_removes_the_broker_from_isr_and_elr(LocalKafkaCluster cluster)
            throws Exception {
        // given: RF 3 on [1,2,3], min.insync.replicas=2
        String topic = "elr";
        TopicPartition partition = new TopicPartition(topic, 0);
        createTopic(cluster, topic, List.of(1, 2, 3));
        cluster.metadata().awaitPartition(partition, view -> view.leader() == 1 && view.isr().size() == 3,
                STATE_TIMEOUT);
        produce(cluster, topic, "all", 5);
        try {
            // when: 3 dies (ISR [1,2] still meets min ISR: no ELR), then 2 dies (ISR [1] < min ISR)
            cluster.stopBroker(3, StopMode.ABRUPT);
            PartitionView oneDown = cluster.metadata().awaitPartition(partition, view -> !view.isr().contains(3),
                    STATE_TIMEOUT);
            assertThat(oneDown.elr()).isEmpty();
            cluster.stopBroker(2, StopMode.ABRUPT);
            PartitionView twoDown = cluster.metadata().awaitPartition(partition, view -> !view.isr().contains(2),
                    STATE_TIMEOUT);
            // then: the ELR holds the replica that left the ISR below min ISR
            assertThat(twoDown.isr()).containsExactly(1);
            assertThat(twoDown.elr()).containsExactly(2);

            // when: the leader dies too, and 2 restarts after its kill -9 (an unclean shutdown)
            cluster.stopBroker(1, StopMode.ABRUPT);
            // no broker is left to describe the partition: the controller's fence is the witness
            cluster.metadata().awaitBrokerFenced(1);
            cluster.startBroker(2);
            cluster.metadata().awaitBrokerUnfenced(2);

            // then: 2 is in neither ISR nor ELR: its log may have lost acknowledged records
            PartitionView afterRestart = cluster.metadata().awaitPartition(partition, view -> !view.elr().contains(2),
                    STATE_TIMEOUT);
            assertThat(afterRestart.isr()).doesNotContain(2);
            assertThat(afterRestart.elr()).doesNotContain(2);
            assertThat(afterRestart.isLeaderless()).isTrue();
        } finally {
            for (int broker : List.of(1, 3, 2)) {
                if (!cluster.isRunning(broker)) {
                    cluster.startBroker(broker);
                }
            }
            for (int broker : List.of(1, 2, 3)) {
                cluster.metadata().awaitBrokerUnfenced(broker);
            }
        }
    }

    @Test
    void stock_producer_consumer_group_and_admin_work(LocalKafkaCluster cluster) throws Exception {
        String topic = "stock-clients";
        try (Admin admin = cluster.createAdmin()) {
            admin.createTopics(List.of(new NewTopic(topic, 2, (short) 3))).all().get();
            assertThat(admin.describeCluster().nodes().get()).hasSize(3);
            // CreateTopics returns when the controller committed the topic; the broker Admin asks may learn it later.
            org.awaitility.Awaitility.await().atMost(STATE_TIMEOUT)
                    .untilAsserted(() -> assertThat(admin.listTopics().names().get()).contains(topic));
        }
        cluster.metadata().awaitPartition(new TopicPartition(topic, 1), view -> view.isr().size() == 3, STATE_TIMEOUT);
        produce(cluster, topic, "all", 10);

        Map<String, Object> config = new HashMap<>(cluster.clientProperties());
        config.put(ConsumerConfig.GROUP_ID_CONFIG, "conformance-group");
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        int consumed = 0;
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + STATE_TIMEOUT.toNanos();
            while (consumed < 10 && System.nanoTime() < deadline) {
                ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(500));
                consumed += records.count();
            }
            consumer.commitSync();
        }
        assertThat(consumed).isEqualTo(10);
        try (Admin admin = cluster.createAdmin()) {
            Map<TopicPartition, OffsetAndMetadata> committed =
                    admin.listConsumerGroupOffsets("conformance-group").partitionsToOffsetAndMetadata().get();
            assertThat(committed.values().stream().mapToLong(OffsetAndMetadata::offset).sum()).isEqualTo(10);
        }
    }

    private static void createTopic(LocalKafkaCluster cluster, String topic, List<Integer> replicas) throws Exception {
        try (Admin admin = cluster.createAdmin()) {
            NewTopic newTopic = new NewTopic(topic, Map.of(0, replicas))
                    .configs(Map.of(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, "2",
                            TopicConfig.UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG, "false"));
            admin.createTopics(List.of(newTopic)).all().get();
        }
    }

    private static void produce(LocalKafkaCluster cluster, String topic, String acks, int records) throws Exception {
        Properties config = new Properties();
        config.putAll(cluster.clientProperties());
        config.put(ProducerConfig.ACKS_CONFIG, acks);
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000);
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 20_000);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
            List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
            for (int i = 0; i < records; i++) {
                sent.add(producer.send(new ProducerRecord<>(topic, i % 2 == 0 ? 0 : null, "k" + i, "v" + i)));
            }
            for (var future : sent) {
                future.get();
            }
        }
    }

    /** What a consumer may read up to: endOffsets with read_uncommitted is the high watermark. */
    private static long highWatermark(LocalKafkaCluster cluster, TopicPartition partition) {
        Map<String, Object> config = new HashMap<>(cluster.clientProperties());
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
            return consumer.endOffsets(List.of(partition), Duration.ofSeconds(30)).get(partition);
        }
    }
}
