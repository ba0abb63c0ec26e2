// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.LogTailCut;
import dev.uncleanrecovery.localcluster.PartitionView;
import dev.uncleanrecovery.localcluster.SegmentTruncation;
import dev.uncleanrecovery.localcluster.StopMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the harness promises the real-cluster tests: stop, restart, cut a log, keep the logs. */
@KafkaClusterTest(brokers = 1)
class LocalKafkaClusterClusterTest {

    private static final int BROKER = 1;
    private static final TopicPartition PAYMENTS_0 = new TopicPartition("payments", 0);
    private static final Duration STATE_TIMEOUT = Duration.ofSeconds(60);

    @BeforeAll
    static void createTopicWithRecords(LocalKafkaCluster cluster) throws Exception {
        try (Admin admin = cluster.createAdmin()) {
            admin.createTopics(List.of(new NewTopic(PAYMENTS_0.topic(), 1, (short) 1))).all().get();
        }
        Map<String, Object> config = new HashMap<>(cluster.clientProperties());
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        try (KafkaProducer<String, String> producer =
                     new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
            for (int payment = 0; payment < 30; payment++) {
                producer.send(new ProducerRecord<>(PAYMENTS_0.topic(), 0, "payment-" + payment, "amount " + payment));
                if (payment % 10 == 9) {
                    producer.flush();
                }
            }
        }
    }

    @AfterEach
    void restartTheBrokerIfATestLeftItDown(LocalKafkaCluster cluster) {
        if (cluster.isPaused(BROKER)) {
            cluster.resumeBroker(BROKER);
        }
        if (!cluster.isRunning(BROKER)) {
            cluster.startBroker(BROKER);
        }
    }

    @Test
    void a_cleanly_stopped_broker_leaves_its_marker_and_restarts_on_the_same_port(LocalKafkaCluster cluster) {
        long pidBefore = cluster.nodes().pid(BROKER).orElseThrow();
        String addressBefore = cluster.brokerAddress(BROKER);

        cluster.stopBroker(BROKER, StopMode.CLEAN);

        assertThat(cluster.isRunning(BROKER)).isFalse();
        assertThat(cluster.nodes().pid(BROKER)).isEmpty();
        assertThat(ProcessHandle.of(pidBefore).filter(ProcessHandle::isAlive)).as("the stopped JVM").isEmpty();
        assertThat(cluster.disk().hasCleanShutdownMarker(BROKER)).isTrue();
        cluster.metadata().awaitBrokerFenced(BROKER, STATE_TIMEOUT);

        long began = System.nanoTime();
        cluster.startBroker(BROKER);
        System.out.println("clean restart of broker " + BROKER + " took " + (System.nanoTime() - began) / 1_000_000 + " ms");

        assertThat(cluster.isRunning(BROKER)).isTrue();
        assertThat(cluster.nodes().pid(BROKER).orElseThrow()).isNotEqualTo(pidBefore);
        assertThat(cluster.brokerAddress(BROKER)).isEqualTo(addressBefore);
        assertThat(cluster.nodes().logSinceLastStart(BROKER)).contains("Kafka Server started");
        assertThat(cluster.metadata().awaitPartition(PAYMENTS_0, view -> view.leader() == BROKER,
                STATE_TIMEOUT).replicas())
                .containsExactly(BROKER);
    }

    @Test
    void a_killed_broker_recovers_its_cut_log_to_the_last_whole_batch(LocalKafkaCluster cluster) {
        cluster.stopBroker(BROKER, StopMode.ABRUPT);
        long began = System.nanoTime();
        cluster.metadata().awaitBrokerFenced(BROKER, STATE_TIMEOUT);
        System.out.println("broker " + BROKER + " fenced " + (System.nanoTime() - began) / 1_000_000 + " ms after kill -9");
        assertThat(cluster.disk().hasCleanShutdownMarker(BROKER)).isFalse();

        SegmentTruncation cut = cluster.disk().truncateReplicaLog(PAYMENTS_0, BROKER, LogTailCut.dropBytes(50));

        assertThat(cut.bytesRemoved()).isEqualTo(50);
        assertThat(cut.segment()).hasFileName("00000000000000000000.log").hasSize(cut.lengthAfter());
        cluster.startBroker(BROKER);
        assertThat(cluster.nodes().logSinceLastStart(BROKER))
                .contains("since no clean shutdown file was found")
                .containsPattern("Corruption found in segment 0, truncating to offset \\d+");
        PartitionView recovered = cluster.metadata().awaitPartition(PAYMENTS_0, view -> view.leader() == BROKER,
                STATE_TIMEOUT);
        assertThat(recovered.isr()).containsExactly(BROKER);
    }

    @Test
    void the_log_of_a_running_broker_cannot_be_cut(LocalKafkaCluster cluster) {
        assertThatThrownBy(() -> cluster.disk().truncateReplicaLog(PAYMENTS_0, BROKER, LogTailCut.dropBytes(1)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("broker 1 is running")
                .hasMessageContaining("stopBroker(1, ...)");
        assertThatThrownBy(() -> cluster.disk().deleteCleanShutdownMarker(BROKER))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("broker 1 is running");
    }

    @Test
    void a_stopped_broker_cannot_be_stopped_again_nor_a_running_one_started(LocalKafkaCluster cluster) {
        assertThatThrownBy(() -> cluster.startBroker(BROKER))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("broker 1 is already running");
        cluster.stopBroker(BROKER, StopMode.ABRUPT);
        assertThatThrownBy(() -> cluster.stopBroker(BROKER, StopMode.ABRUPT))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("broker 1 is not running");
    }

    @Test
    void a_paused_broker_is_frozen_until_it_is_resumed(LocalKafkaCluster cluster) throws Exception {
        long pid = cluster.nodes().pid(BROKER).orElseThrow();

        cluster.pauseBroker(BROKER);
        try {
            assertThat(cluster.isPaused(BROKER)).isTrue();
            assertThat(cluster.isRunning(BROKER)).isTrue();
            // pauseBroker returns only once the signal has taken effect: no waiting here
            assertThat(processState(pid)).as("state in /proc/%d/stat", pid).isEqualTo("T");
        } finally {
            cluster.resumeBroker(BROKER);
        }

        assertThat(cluster.isPaused(BROKER)).isFalse();
        assertThat(processState(pid)).isNotEqualTo("T");
        cluster.metadata().awaitBrokerUnfenced(BROKER, STATE_TIMEOUT);
    }

    @Test
    void node_logs_are_kept_with_their_last_lines_for_a_failed_test(LocalKafkaCluster cluster, @TempDir Path keptLogs)
            throws Exception {
        Path kept = NodeLogArchive.keep(cluster, keptLogs);

        for (String node : List.of("controller-" + cluster.controllers().firstId(), "broker-" + BROKER)) {
            assertThat(kept.resolve(node).resolve("server.properties")).exists();
            assertThat(Files.readString(kept.resolve(node).resolve("node.log"))).contains("Kafka Server started");
        }
        assertThat(NodeLogArchive.tails(cluster, 40))
                .contains("==== last 40 lines of node " + cluster.controllers().firstId() + " (running)")
                .contains("==== last 40 lines of node " + BROKER + " (running)");
        assertThat(NodeLogArchive.directoryFor("SomeTest", "some_test()"))
                .endsWithRaw(Path.of("target", "cluster-logs", "SomeTest", "some_test__"));
    }

    // /proc/<pid>/stat: "pid (comm) state ..."; T is stopped by a signal.
    private static String processState(long pid) throws Exception {
        String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
        return stat.substring(stat.lastIndexOf(')') + 2).split(" ")[0];
    }
}
