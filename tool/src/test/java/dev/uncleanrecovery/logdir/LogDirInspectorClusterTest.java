// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.LogTailCut;
import dev.uncleanrecovery.localcluster.SegmentTruncation;
import dev.uncleanrecovery.localcluster.StopMode;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidTxnStateException;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData.EpochEndOffset;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * inspect against log dirs written by a real Kafka 4.4 broker: what it reads from the stopped broker's disk is
 * what the broker serves once restarted. The broker's answer is OffsetsForLeaderEpoch for the epoch inspect
 * predicted: it returns (that epoch, the log end offset) exactly when the epoch is the latest one holding data
 * — the restarted leader's own new epoch starts at the log end offset — and anything else when inspect is wrong.
 */
@KafkaClusterTest(brokers = 1)
class LogDirInspectorClusterTest {

    private static final int BROKER = 1;
    private static final String ORDERS = "orders";
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @BeforeAll
    static void ordersWrittenInTwoLeaderEpochs(LocalKafkaCluster cluster) throws Exception {
        try (Admin admin = cluster.createAdmin()) {
            admin.createTopics(List.of(new NewTopic(ORDERS, 3, (short) 1))).all().get();
        }
        produce(cluster, 0);
        // A restart makes the broker leader again in a later epoch.
        cluster.stopBroker(BROKER, StopMode.CLEAN);
        cluster.startBroker(BROKER);
        awaitLeaders(cluster);
        produce(cluster, 1);
    }

    @AfterEach
    void restartTheBrokerIfATestLeftItDown(LocalKafkaCluster cluster) {
        if (!cluster.isRunning(BROKER)) {
            cluster.startBroker(BROKER);
        }
    }

    @Test
    void after_kill_9_inspect_predicts_the_log_end_offsets_and_epochs_the_restarted_broker_serves(
            LocalKafkaCluster cluster) throws Exception {
        produce(cluster, 2);
        cluster.stopBroker(BROKER, StopMode.ABRUPT);

        LogDirReport report = inspect(cluster);

        assertThat(report.cleanShutdown()).isFalse();
        assertThat(report.brokerId()).isEqualTo(BROKER);
        assertThat(report.clusterId()).isEqualTo(cluster.clusterId());
        assertThat(orders(report)).hasSize(3).allMatch(p -> p.error() == null && p.invalidTailBytes() == 0);
        cluster.startBroker(BROKER);
        assertBrokerServes(cluster, orders(report));
    }

    @Test
    void after_a_clean_stop_inspect_sees_the_marker_and_predicts_what_the_broker_serves(LocalKafkaCluster cluster)
            throws Exception {
        produce(cluster, 3);
        cluster.stopBroker(BROKER, StopMode.CLEAN);

        LogDirReport report = inspect(cluster);

        assertThat(report.cleanShutdown()).isTrue();
        assertThat(report.brokerEpoch()).isPositive();
        assertThat(orders(report)).allMatch(p -> p.cleanShutdown() && p.brokerEpoch() == report.brokerEpoch());
        cluster.startBroker(BROKER);
        assertBrokerServes(cluster, orders(report));
    }

    @Test
    void after_the_disk_lost_a_tail_inspect_predicts_the_offset_kafkas_recovery_truncates_to(LocalKafkaCluster cluster)
            throws Exception {
        produce(cluster, 4);
        cluster.stopBroker(BROKER, StopMode.ABRUPT);
        long beforeCut = single(inspect(cluster), 0).logEndOffset();
        SegmentTruncation cut = cluster.disk().truncateReplicaLog(new TopicPartition(ORDERS, 0), BROKER,
                LogTailCut.dropBytes(50));

        LogDirReport report = inspect(cluster);

        PartitionLogSummary cutReplica = single(report, 0);
        assertThat(cutReplica.logEndOffset()).isLessThan(beforeCut);
        assertThat(cutReplica.invalidTailBytes()).isPositive().isLessThan(cut.lengthAfter());
        cluster.startBroker(BROKER);
        Matcher recovery = Pattern.compile("Corruption found in segment \\d+, truncating to offset (\\d+)")
                .matcher(cluster.nodes().logSinceLastStart(BROKER));
        assertThat(recovery.find()).as("Kafka's log recovery ran").isTrue();
        assertThat(Long.parseLong(recovery.group(1))).isEqualTo(cutReplica.logEndOffset());
        assertBrokerServes(cluster, orders(report));
    }

    @Test
    void an_epoch_the_broker_took_as_leader_without_writing_is_not_its_last_written_epoch(LocalKafkaCluster cluster)
            throws Exception {
        produce(cluster, 5);
        cluster.stopBroker(BROKER, StopMode.CLEAN);
        cluster.startBroker(BROKER);
        awaitLeaders(cluster);
        // Leader again, in a new epoch that its leader-epoch-checkpoint starts at the log end offset: no data.
        cluster.stopBroker(BROKER, StopMode.ABRUPT);

        LogDirReport report = inspect(cluster);

        assertThat(orders(report)).allMatch(p -> p.notes().stream().anyMatch(n -> n.contains("Kafka drops them")));
        assertThat(orders(report)).allMatch(p -> p.lastWrittenLeaderEpoch() == p.lastBatchLeaderEpoch());
        cluster.startBroker(BROKER);
        assertBrokerServes(cluster, orders(report));
    }

    // ---- the broker's side ----

    private static void assertBrokerServes(LocalKafkaCluster cluster, List<PartitionLogSummary> predicted) throws Exception {
        awaitLeaders(cluster);
        Map<TopicPartition, EpochEndOffset> answers = EpochEnds.askedOf(cluster, BROKER, predicted);
        for (PartitionLogSummary p : predicted) {
            EpochEndOffset answer = answers.get(p.topicPartition());
            assertThat(Errors.forCode(answer.errorCode())).as(p.topicPartition() + " error").isEqualTo(Errors.NONE);
            assertThat(answer.leaderEpoch()).as(p.topicPartition() + " last written epoch").isEqualTo(p.lastWrittenLeaderEpoch());
            assertThat(answer.endOffset()).as(p.topicPartition() + " log end offset").isEqualTo(p.logEndOffset());
        }
        try (Admin admin = cluster.createAdmin()) {
            // A single-replica leader's high watermark is its log end offset.
            Map<TopicPartition, Long> latest = admin.listOffsets(predicted.stream().collect(Collectors.toMap(
                            PartitionLogSummary::topicPartition, p -> OffsetSpec.latest()))).all()
                    .get(30, TimeUnit.SECONDS).entrySet().stream()
                    .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
            assertThat(latest).isEqualTo(predicted.stream().collect(Collectors.toMap(
                    PartitionLogSummary::topicPartition, PartitionLogSummary::logEndOffset)));
        }
    }

    // ---- helpers ----

    private static LogDirReport inspect(LocalKafkaCluster cluster) {
        return new LogDirInspector().inspect(List.of(cluster.logDir(BROKER)), PartitionFilter.all());
    }

    private static List<PartitionLogSummary> orders(LogDirReport report) {
        return report.partitions().stream().filter(p -> p.topic().equals(ORDERS)).toList();
    }

    private static PartitionLogSummary single(LogDirReport report, int partition) {
        return orders(report).stream().filter(p -> p.partition() == partition).findFirst().orElseThrow();
    }

    private static void awaitLeaders(LocalKafkaCluster cluster) {
        for (int p = 0; p < 3; p++) {
            cluster.metadata().awaitPartition(new TopicPartition(ORDERS, p), view -> view.leader() == BROKER, TIMEOUT);
        }
    }

    /**
     * One round of writes: plain batches to partition 0, a committed transaction (ending in a COMMIT control
     * batch) to partition 1, lz4-compressed batches to partition 2.
     */
    private static void produce(LocalKafkaCluster cluster, int round) throws Exception {
        try (KafkaProducer<String, String> plain = producer(cluster, config -> config)) {
            for (int i = 0; i < 40; i++) {
                plain.send(new ProducerRecord<>(ORDERS, 0, "order-" + round + "-" + i, "amount " + i));
                if (i % 10 == 9) {
                    plain.flush();
                }
            }
        }
        for (int attempt = 1; !writeOneTransaction(cluster, round); attempt++) {
            assertThat(attempt).as("transactions aborted by the broker").isLessThan(3);
        }
        awaitCommitMarkerWritten(cluster, new TopicPartition(ORDERS, 1));
        try (KafkaProducer<String, String> compressed = producer(cluster, config -> {
            config.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
            return config;
        })) {
            for (int i = 0; i < 60; i++) {
                compressed.send(new ProducerRecord<>(ORDERS, 2, "item-" + round + "-" + i, "x".repeat(100)));
                if (i % 20 == 19) {
                    compressed.flush();
                }
            }
        }
    }

    /**
     * A committed transaction of 15 records to partition 1, or false when the broker made the producer abort it:
     * Kafka 4's transaction verification (KIP-890) can answer a produce sent soon after the broker's restart with
     * INVALID_TXN_STATE, an abortable error. The aborted batches and their ABORT marker stay in the log, which is
     * what inspect reads either way; the round is then written again under a new transactional id.
     */
    private static boolean writeOneTransaction(LocalKafkaCluster cluster, int round) {
        try (KafkaProducer<String, String> transactional = producer(cluster, config -> {
            config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "inspect-test-" + UUID.randomUUID());
            return config;
        })) {
            transactional.initTransactions();
            transactional.beginTransaction();
            for (int i = 0; i < 15; i++) {
                transactional.send(new ProducerRecord<>(ORDERS, 1, "payment-" + round + "-" + i, "paid " + i));
            }
            try {
                transactional.commitTransaction();
                return true;
            } catch (KafkaException e) {
                if (!(e instanceof InvalidTxnStateException || e.getCause() instanceof InvalidTxnStateException)) {
                    throw e;
                }
                transactional.abortTransaction();
                return false;
            }
        }
    }

    /**
     * commitTransaction returns once the coordinator logged PREPARE_COMMIT; the COMMIT marker follows
     * asynchronously. A broker killed in between writes the marker after its restart, which would move the log
     * end offset under the test's feet: wait until the last stable offset reaches the high watermark.
     */
    private static void awaitCommitMarkerWritten(LocalKafkaCluster cluster, TopicPartition partition) throws Exception {
        try (Admin admin = cluster.createAdmin()) {
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (true) {
                long committed = admin.listOffsets(Map.of(partition, OffsetSpec.latest()),
                        new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).partitionResult(partition)
                        .get(30, TimeUnit.SECONDS).offset();
                long written = admin.listOffsets(Map.of(partition, OffsetSpec.latest())).partitionResult(partition)
                        .get(30, TimeUnit.SECONDS).offset();
                if (committed == written) {
                    return;
                }
                assertThat(System.nanoTime()).as("COMMIT marker of " + partition + " written in time").isLessThan(deadline);
                Thread.sleep(100);
            }
        }
    }

    private static KafkaProducer<String, String> producer(LocalKafkaCluster cluster,
                                                          Function<Map<String, Object>, Map<String, Object>> extra) {
        Map<String, Object> config = new HashMap<>(cluster.clientProperties());
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        return new KafkaProducer<>(extra.apply(config), new StringSerializer(), new StringSerializer());
    }
}
