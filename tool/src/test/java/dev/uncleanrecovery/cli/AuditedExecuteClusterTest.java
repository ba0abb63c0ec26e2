// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.uncleanrecovery.execute.RunLock;
import dev.uncleanrecovery.formats.AuditLine;
import dev.uncleanrecovery.formats.Json;
import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.LastReplicaStandingOutage;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.PartitionView;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The audit of real elections: what the operator gave (an {@code @file} included), what became of the run lock, and
 * a run that elected but could not write its FINISHED line. The cluster refuses every topic deletion
 * ({@code delete.topic.enable=false}, which the controller checks for DeleteTopics): the run lock, a topic, is taken
 * and cannot be removed.
 */
@KafkaClusterTest(brokerProperties = "delete.topic.enable=false", controllerProperties = "delete.topic.enable=false")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AuditedExecuteClusterTest {

    private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);
    private static final TopicPartition ORDERS_1 = new TopicPartition("orders", 1);

    @TempDir
    static Path dir;

    @BeforeAll
    static void killEveryIsrMember(LocalKafkaCluster cluster) {
        LastReplicaStandingOutage.reproduce(cluster, "orders", 2, 20, 5, s -> { });
    }

    @Test
    @Order(1)
    void a_run_lock_left_on_the_cluster_is_in_the_result_and_the_audit_with_the_arguments_of_an_at_file(
            LocalKafkaCluster cluster) throws Exception {
        Path plan = CliRun.planProactive(cluster, dir.resolve("plan-0.json"), ORDERS_0);
        // what a runbook keeps in a file: the options that weaken a safeguard among them
        Path options = Files.writeString(dir.resolve("opts.txt"),
                "--accept-unknown-loss --no-salvage --reason \"INC-9 orders offline\"\n");

        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--plan", plan.toString(),
                "@" + options);

        // then: elected, and the lock the cluster would not delete is still there, named everywhere
        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.OK);
        assertThat(cluster.metadata().awaitPartition(ORDERS_0, v -> v.leader() != PartitionView.NO_LEADER,
                Duration.ofSeconds(30)).leader()).isEqualTo(LastReplicaStandingOutage.LONGEST_SURVIVOR);
        Uuid lockId = lockTopicId(cluster);
        assertThat(run.err().replaceAll("\\s+", " ")).contains("WARNING: the run lock " + lockId + " could not be"
                + " removed (TOPIC_DELETION_DISABLED)");
        JsonNode result = Json.mapper().readTree(dir.resolve("plan-0-result.json").toFile());
        assertThat(result.at("/runLock/lockId").asText()).isEqualTo(lockId.toString());
        assertThat(result.at("/runLock/fate").asText()).isEqualTo("LEFT_IN_PLACE");
        assertThat(result.at("/runLock/detail").asText()).contains("TOPIC_DELETION_DISABLED",
                "--break-lock " + lockId);
        List<AuditLine> audit = AuditLine.readAll(dir.resolve(AuditLine.FILE_NAME));
        assertThat(audit).extracting(AuditLine::event).containsExactly(AuditLine.Event.STARTED,
                AuditLine.Event.FINISHED);
        AuditLine finished = audit.get(1);
        assertThat(finished.exitCode()).isEqualTo(ExitCode.OK);
        assertThat(finished.runLock().lockId()).isEqualTo(lockId.toString());
        assertThat(finished.runLock().fate().name()).isEqualTo("LEFT_IN_PLACE");
        assertThat(finished.commandLine()).containsSubsequence("execute", "--plan", plan.toString(),
                "--accept-unknown-loss", "--no-salvage", "--reason", "INC-9 orders offline")
                .noneMatch(arg -> arg.startsWith("@"));
        assertThat(finished.reason()).isEqualTo("INC-9 orders offline");
    }

    @Test
    @Order(2)
    void a_run_that_elected_but_could_not_write_its_finished_line_says_so_and_exits_1(LocalKafkaCluster cluster)
            throws Exception {
        Path plan = CliRun.planProactive(cluster, dir.resolve("plan-1.json"), ORDERS_1);
        Path log = dir.resolve("audit-1.jsonl");
        Path rotated = dir.resolve("audit-1.jsonl.1");

        // when: the audit log is moved away while the tool elects, and a directory takes its name
        ToolJvm.Run run = ToolJvm.run(dir, "Received ELECT_LEADERS response", () -> {
            try {
                Files.move(log, rotated);
                Files.createDirectory(log);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }, ToolJvm.AtTrigger.PAUSE_THE_TOOL, "--bootstrap-server", cluster.bootstrapServers(), "execute", "--plan",
                plan.toString(), "--reason", "INC-10 orders offline", "--accept-unknown-loss", "--without-lock",
                "--audit-log", log.toString());

        // then: the partition is elected and recorded, and the run says it is not fully audited, exit 1
        assertThat(run.triggered()).as(run.output()).isTrue();
        assertThat(cluster.metadata().awaitPartition(ORDERS_1, v -> v.leader() != PartitionView.NO_LEADER,
                Duration.ofSeconds(30)).leader()).isEqualTo(LastReplicaStandingOutage.LONGEST_SURVIVOR);
        assertThat(run.exitCode()).as(run.output()).isEqualTo(ExitCode.FAILURE);
        Path resultFile = dir.resolve("plan-1-result.json");
        assertThat(run.output().replaceAll("\\s+", " ")).contains("error: run ", " is not fully audited: its FINISHED"
                + " line could not be appended to the audit log " + log, "not a regular file", "What it did is in "
                + resultFile.toAbsolutePath());
        assertThat(run.output()).doesNotContain("Audit log: ");
        assertThat(AuditLine.readAll(rotated)).extracting(AuditLine::event).containsExactly(AuditLine.Event.STARTED);
        JsonNode result = Json.mapper().readTree(resultFile.toFile());
        assertThat(result.at("/partitions/0/outcome").asText()).isEqualTo("ELECTED");
        assertThat(result.at("/runLock/fate").asText()).isEqualTo("NOT_TAKEN");
        assertThat(result.at("/runLock/detail").asText()).isEqualTo("--without-lock");
    }

    private static Uuid lockTopicId(LocalKafkaCluster cluster) throws Exception {
        try (Admin admin = cluster.createAdmin()) {
            return admin.describeTopics(List.of(RunLock.LOCK_TOPIC)).allTopicNames().get(30, TimeUnit.SECONDS)
                    .get(RunLock.LOCK_TOPIC).topicId();
        }
    }
}
