// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.uncleanrecovery.formats.Json;
import dev.uncleanrecovery.localcluster.LastReplicaStandingOutage;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.PartitionView;
import dev.uncleanrecovery.localcluster.RecordCount;
import dev.uncleanrecovery.localcluster.RoundProducer;
import dev.uncleanrecovery.localcluster.StopMode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeReplicaLogDirsResult.ReplicaLogDirInfo;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionReplica;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A disk dies under a running broker (JBOD): the broker stays up, its replica there goes offline, and as the last
 * ISR or ELR member it leaves the partition offline with every broker alive. The probe gets KAFKA_STORAGE_ERROR for
 * it; the plan never designates it, elects the best of the others, and says where its log can still be read.
 * {@code inspect} on the failed (read-only) directory reads it, the plan then states its exact loss, {@code inspect
 * --salvage-beyond} copies that off the directory, execute elects, and the broker, its disk repaired and restarted,
 * cuts exactly there.
 */
abstract class FailedLogDir {

    static final int ON_THE_FAILED_DISK = 1;
    private static final int BEHIND = 2;
    private static final int FURTHER_BEHIND = 3;
    private static final String TOPIC = "orders";
    private static final TopicPartition ORDERS_0 = new TopicPartition(TOPIC, 0);
    private static final int BY_ALL = 20;
    private static final int BY_TWO = 10;
    private static final int ON_THE_FAILED_DISK_ONLY = 15;
    private static final Duration STEP = Duration.ofSeconds(60);

    @TempDir
    static Path dir;

    @BeforeAll
    static void theLastIsrMembersDiskFails(LocalKafkaCluster cluster) throws Exception {
        LastReplicaStandingOutage.createTopic(cluster, TOPIC, 1, List.of(ON_THE_FAILED_DISK, BEHIND, FURTHER_BEHIND));
        cluster.metadata().awaitPartition(ORDERS_0, v -> v.leader() == ON_THE_FAILED_DISK && v.isr().size() == 3, STEP);
        Path failable = cluster.disk().failableLogDir(ON_THE_FAILED_DISK);
        moveReplica(cluster, failable);
        produce(cluster, BY_ALL, "all", "round-1");
        killAndAwaitFence(cluster, FURTHER_BEHIND);
        produce(cluster, BY_TWO, "all", "round-2");
        killAndAwaitFence(cluster, BEHIND);
        produce(cluster, ON_THE_FAILED_DISK_ONLY, "1", "round-3");
        cluster.disk().failLogDir(ON_THE_FAILED_DISK, STEP);
        cluster.metadata().awaitPartition(ORDERS_0, v -> v.leader() == PartitionView.NO_LEADER, STEP);
        cluster.startBroker(BEHIND);
        cluster.startBroker(FURTHER_BEHIND);
    }

    @Test
    void a_replica_on_a_failed_log_directory_is_never_elected_and_what_it_loses_is_copied_off_the_directory_first(
            LocalKafkaCluster cluster) throws Exception {
        Path failedDir = cluster.disk().failableLogDir(ON_THE_FAILED_DISK);
        assertThat(cluster.isRunning(ON_THE_FAILED_DISK)).isTrue();

        // status: the offline replica is on a live broker, so its directory failed
        CliRun status = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "status", "--topic", TOPIC);
        assertThat(status.exitCode()).as(status.out() + status.err()).isEqualTo(ExitCode.ATTENTION);
        assertThat(status.out()).contains("1 up").contains("replica(s) on [1] offline while the broker is up: a failed"
                + " log");

        // balanced waits for the last ELR member's log, which only the failed directory holds
        CliRun balanced = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "plan", "--probe-timeout-ms",
                "5000", "--topic", TOPIC, "--output-file", dir.resolve("balanced.json").toString());
        assertThat(balanced.exitCode()).as(balanced.out() + balanced.err()).isEqualTo(ExitCode.ATTENTION);
        assertThat(balanced.out()).contains("member 1 has its log on a failed log directory of its live broker");

        // proactive elects the best of the others; what 1 loses is unknown, and the plan says where to read it
        Path blind = dir.resolve("blind.json");
        CliRun proactive = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "plan", "--strategy",
                "proactive", "--probe-timeout-ms", "5000", "--topic", TOPIC, "--output-file", blind.toString());
        assertThat(proactive.exitCode()).as(proactive.out() + proactive.err()).isEqualTo(ExitCode.OK);
        assertThat(proactive.out()).contains("FAILED LOG DIRECTORY on live broker 1");
        JsonNode blindElection = Json.mapper().readTree(blind.toFile()).get("partitions").get(0);
        assertThat(blindElection.get("designatedLeader").asInt()).isEqualTo(BEHIND);
        assertThat(PlannedElections.evidenceOf(blindElection, ON_THE_FAILED_DISK).get("status").asText())
                .isEqualTo("LOG_DIR_OFFLINE");
        assertThat(PlannedElections.evidenceOf(blindElection, ON_THE_FAILED_DISK).get("error").asText())
                .contains("KAFKA_STORAGE_ERROR");
        assertThat(PlannedElections.truncationOf(blindElection, ON_THE_FAILED_DISK).get("estimate").asText())
                .isEqualTo("UNKNOWN");

        // the failed directory is still readable: inspect reads the replica's log off it
        Path evidence = dir.resolve("evidence.json");
        CliRun inspected = CliRun.of("inspect", "--log-dir", failedDir.toString(), "--output-file",
                evidence.toString());
        assertThat(inspected.exitCode()).as(inspected.out() + inspected.err()).isEqualTo(ExitCode.OK);
        long failedEnd = BY_ALL + BY_TWO + ON_THE_FAILED_DISK_ONLY;
        assertThat(Json.mapper().readTree(evidence.toFile()).get("partitions").get(0).get("logEndOffset").asLong())
                .isEqualTo(failedEnd);

        // with it, balanced goes ahead and states the exact loss on the failed directory
        Path plan = dir.resolve("plan.json");
        CliRun planned = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "plan", "--probe-timeout-ms",
                "5000", "--topic", TOPIC, "--evidence", evidence.toString(), "--output-file", plan.toString());
        assertThat(planned.exitCode()).as(planned.out() + planned.err()).isEqualTo(ExitCode.OK);
        JsonNode election = Json.mapper().readTree(plan.toFile()).get("partitions").get(0);
        assertThat(election.get("designatedLeader").asInt()).isEqualTo(BEHIND);
        JsonNode cut = PlannedElections.truncationOf(election, ON_THE_FAILED_DISK);
        assertThat(cut.get("estimate").asText()).isEqualTo("EXACT");
        assertThat(cut.get("fromOffset").asLong()).isEqualTo(BY_ALL + BY_TWO);
        assertThat(cut.get("toOffset").asLong()).isEqualTo(failedEnd);
        assertThat(election.get("reason").asText()).contains("has a better log but cannot lead");

        // copied off the directory before the election, then elected
        CliRun copied = CliRun.of("inspect", "--log-dir", failedDir.toString(), "--salvage-beyond", plan.toString());
        assertThat(copied.exitCode()).as(copied.out() + copied.err()).isEqualTo(ExitCode.OK);
        Path result = dir.resolve("plan-result.json");
        CliRun executed = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test",
                "--plan", plan.toString(), "--result-file", result.toString());
        assertThat(executed.exitCode()).as(executed.out() + executed.err()).isEqualTo(ExitCode.OK);
        cluster.metadata().awaitPartition(ORDERS_0, v -> v.leader() == BEHIND, STEP);
        // what the run says it cut on the failed directory: the plan's range, taken from the copy off that directory
        JsonNode elected = Json.mapper().readTree(result.toFile()).get("partitions").get(0);
        assertThat(elected.get("outcome").asText()).isEqualTo("ELECTED");
        JsonNode salvaged = elected.get("salvaged");
        assertThat(salvaged).hasSize(1);
        assertThat(salvaged.get(0).get("broker").asInt()).isEqualTo(ON_THE_FAILED_DISK);
        assertThat(salvaged.get(0).get("fromOffset").asLong()).isEqualTo(BY_ALL + BY_TWO);
        assertThat(salvaged.get(0).get("toOffset").asLong()).isEqualTo(failedEnd);
        assertThat(salvaged.get(0).get("sources").toString()).isEqualTo("[\"DISK\"]");
        assertThat(elected.get("detail").asText()).contains("broker 1's log directory holding orders-0 failed");

        // the disk repaired, the broker back: it cuts its replica where the plan said
        cluster.stopBroker(ON_THE_FAILED_DISK, StopMode.ABRUPT);
        cluster.disk().repairLogDir(ON_THE_FAILED_DISK);
        cluster.startBroker(ON_THE_FAILED_DISK);
        cluster.metadata().awaitPartition(ORDERS_0, v -> v.leader() == BEHIND && v.isr().contains(ON_THE_FAILED_DISK),
                STEP);
        long plannedCut = BY_ALL + BY_TWO;
        String truncating = "Truncating to offset " + plannedCut + "\\b";
        assertThat(cluster.nodes().logSinceLastStart(ON_THE_FAILED_DISK))
                .containsPattern(truncating + ".*" + ORDERS_0 + "\\b|" + ORDERS_0 + "\\b.*" + truncating);

        // and the copy holds every record it cut: the whole of round 3
        try (Admin admin = cluster.createAdmin()) {
            admin.createTopics(List.of(new NewTopic("orders-salvaged", 1, (short) 3))).all().get();
        }
        CliRun replayed = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "replay", "--salvage-dir",
                dir.resolve("plan-salvage").toString(), "--to-topic", "orders-salvaged", "--result-file",
                result.toString(),
                "--execute", "--reason", "test");
        assertThat(replayed.exitCode()).as(replayed.out() + replayed.err()).isEqualTo(ExitCode.OK);
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < ON_THE_FAILED_DISK_ONLY; i++) {
            expected.add("round-3-" + i);
        }
        assertThat(RecordCount.keys(cluster, new TopicPartition("orders-salvaged", 0), STEP))
                .containsExactlyElementsOf(expected);
    }

    private static void moveReplica(LocalKafkaCluster cluster, Path logDir) throws Exception {
        TopicPartitionReplica replica = new TopicPartitionReplica(TOPIC, 0, ON_THE_FAILED_DISK);
        try (Admin admin = cluster.createAdmin()) {
            admin.alterReplicaLogDirs(Map.of(replica, logDir.toString())).all().get();
            long deadline = System.nanoTime() + STEP.toNanos();
            while (true) {
                ReplicaLogDirInfo info = admin.describeReplicaLogDirs(List.of(replica)).all().get().get(replica);
                if (logDir.toString().equals(info.getCurrentReplicaLogDir()) && info.getFutureReplicaLogDir() == null) {
                    return;
                }
                assertThat(System.nanoTime()).as("replica moved to " + logDir + ": " + info).isLessThan(deadline);
                Thread.sleep(200);
            }
        }
    }

    private static void produce(LocalKafkaCluster cluster, int count, String acks, String round) {
        RoundProducer.produce(cluster, List.of(ORDERS_0), count, acks, round, Duration.ofSeconds(30));
    }

    private static void killAndAwaitFence(LocalKafkaCluster cluster, int broker) {
        cluster.stopBroker(broker, StopMode.ABRUPT);
        cluster.metadata().awaitBrokerFenced(broker);
    }
}
