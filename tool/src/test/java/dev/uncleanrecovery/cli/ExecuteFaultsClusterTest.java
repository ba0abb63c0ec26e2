// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static dev.uncleanrecovery.localcluster.LastReplicaStandingOutage.LAST_LEADER;
import static dev.uncleanrecovery.localcluster.LastReplicaStandingOutage.LONGEST_SURVIVOR;
import static dev.uncleanrecovery.localcluster.LastReplicaStandingOutage.SHORTEST_SURVIVOR;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.LastReplicaStandingOutage;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.PartitionView;
import dev.uncleanrecovery.formats.Json;
import dev.uncleanrecovery.formats.PlanFile;
import dev.uncleanrecovery.formats.PlannedElection;
import dev.uncleanrecovery.formats.ResultFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Brokers that hang during the plan and come back before the election. The last-replica-standing outage on
 * topic {@code pay}: replicas [1,3,2], 1 dead for good, 2 holds 50 records and 3 holds 25, every partition offline.
 */
@KafkaClusterTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ExecuteFaultsClusterTest {

    private static final TopicPartition PAY_0 = new TopicPartition("pay", 0);
    private static final TopicPartition PAY_1 = new TopicPartition("pay", 1);
    private static final TopicPartition PAY_2 = new TopicPartition("pay", 2);

    @TempDir
    static Path dir;

    @BeforeAll
    static void killEveryIsrMember(LocalKafkaCluster cluster) {
        LastReplicaStandingOutage.reproduce(cluster, "pay", 3, 25, 5, s -> { });
    }

    @Test
    @Order(1)
    void a_replica_unreachable_at_plan_time_that_answers_at_execute_time_with_more_is_never_truncated(
            LocalKafkaCluster cluster) throws Exception {
        // given: broker 2, the longest log, hangs while the plan is made
        Path planFile = dir.resolve("hung.json");
        CliRun limited;
        CliRun planned;
        cluster.pauseBroker(LONGEST_SURVIVOR);
        try {
            limited = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "plan", "--strategy", "proactive",
                    "--probe-timeout-ms", "2000", "--max-truncated-records", "1000", "--topic", "pay",
                    "--partition", "0", "--output-file", dir.resolve("limited.json").toString());
            planned = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "plan", "--strategy", "proactive",
                    "--probe-timeout-ms", "2000", "--topic", "pay", "--partition", "0", "--partition", "1",
                    "--output-file", planFile.toString());
        } finally {
            cluster.resumeBroker(LONGEST_SURVIVOR);
        }
        cluster.metadata().awaitBrokerUnfenced(LONGEST_SURVIVOR);

        // then: an unknown loss is over any limit; without one the plan designates 3, the only replica that answered
        assertThat(limited.exitCode()).as(limited.out() + limited.err()).isEqualTo(ExitCode.ATTENTION);
        assertThat(PlanFile.read(dir.resolve("limited.json")).skipped()).singleElement()
                .satisfies(s -> assertThat(s.reason()).contains("would truncate an unknown number of records on",
                        "counts as over --max-truncated-records 1000"));
        assertThat(planned.exitCode()).as(planned.out() + planned.err()).isEqualTo(ExitCode.OK);
        assertThat(PlanFile.read(planFile).partitions()).extracting(PlannedElection::designatedLeader)
                .containsExactly(SHORTEST_SURVIVOR, SHORTEST_SURVIVOR);

        // when: the plan is applied after broker 2 came back
        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test", "--accept-unknown-loss", "--plan", planFile.toString());

        // then: broker 2 is asked again, holds more than 3, and nothing is elected
        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.ATTENTION);
        ResultFile result = ResultFile.read(dir.resolve("hung-result.json"));
        assertThat(result.partitions()).hasSize(2).allSatisfy(p -> {
            assertThat(p.outcome()).isEqualTo("REFUSED");
            assertThat(p.detail()).isEqualTo("broker 2 answered after the plan and holds more: epoch 0, LEO 50 against"
                    + " epoch 0, LEO 25 on designated 3; plan again");
        });
        for (TopicPartition tp : List.of(PAY_0, PAY_1)) {
            PartitionView now = cluster.metadata().describePartition(tp);
            assertThat(now.leader()).isEqualTo(PartitionView.NO_LEADER);
            assertThat(now.replicas()).isEqualTo(LastReplicaStandingOutage.ASSIGNMENT);
        }
        assertThat(run.err()).doesNotContain("reordering", "electing");

        // and a second execute of the same plan keeps the first result file
        Path first = dir.resolve("hung-result.json");
        String firstResult = Files.readString(first);
        CliRun again = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test", "--accept-unknown-loss", "--plan", planFile.toString());
        assertThat(again.exitCode()).as(again.out() + again.err()).isEqualTo(ExitCode.ATTENTION);
        assertThat(Files.readString(first)).isEqualTo(firstResult);
        Path second = dir.resolve("hung-result-2.json");
        assertThat(again.out()).contains("Result written to " + second.toAbsolutePath());
        assertThat(ResultFile.read(second).partitions()).extracting(ResultFile.Partition::outcome)
                .containsExactly("REFUSED", "REFUSED");
    }

    @Test
    @Order(3)
    void a_dry_run_and_an_all_or_nothing_run_change_nothing_when_one_partition_is_refused(LocalKafkaCluster cluster)
            throws Exception {
        // given: a plan made with every survivor answering (2 designated), pay-1 edited to the dead, fenced broker 1
        Path plan = dir.resolve("both.json");
        CliRun planned = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "plan", "--strategy", "proactive",
                "--probe-timeout-ms", "3000", "--topic", "pay", "--partition", "0", "--partition", "1",
                "--output-file", plan.toString());
        assertThat(planned.exitCode()).as(planned.out() + planned.err()).isEqualTo(ExitCode.OK);
        Path edited = designate(plan, "edited.json", 1, LAST_LEADER);

        // when
        CliRun dryRun = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--accept-unknown-loss", "--plan", edited.toString(),
                "--dry-run");
        boolean dryRunWroteAResult = Files.exists(dir.resolve("edited-result.json"));
        CliRun allOrNothing = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test", "--accept-unknown-loss", "--plan",
                edited.toString(), "--all-or-nothing");

        // then: the dry run says what it would do and why not, and writes nothing
        assertThat(dryRun.exitCode()).as(dryRun.out() + dryRun.err()).isEqualTo(ExitCode.ATTENTION);
        assertThat(dryRun.out().replaceAll("\\s+", " ")).contains("WOULD_ELECT", "would elect 2 (epoch 0, LEO 50)",
                "designated broker 1 is fenced", "Dry run: 1 would be elected, 0 already recovered, 1 refused");
        assertThat(dryRun.out()).doesNotContain("Result written");
        assertThat(dryRunWroteAResult).isFalse();
        // all or nothing: pay-0 passed every check, and is not elected either
        assertThat(allOrNothing.exitCode()).as(allOrNothing.out() + allOrNothing.err()).isEqualTo(ExitCode.ATTENTION);
        assertThat(ResultFile.read(dir.resolve("edited-result.json")).partitions())
                .extracting(ResultFile.Partition::outcome).containsExactly("REFUSED", "REFUSED");
        assertThat(allOrNothing.out().replaceAll("\\s+", " ")).contains("not elected: --all-or-nothing, and 1 partition(s) of the plan were refused");
        for (TopicPartition tp : List.of(PAY_0, PAY_1)) {
            PartitionView now = cluster.metadata().describePartition(tp);
            assertThat(now.leader()).isEqualTo(PartitionView.NO_LEADER);
            assertThat(now.replicas()).isEqualTo(LastReplicaStandingOutage.ASSIGNMENT);
        }

        // and: the plan as made passes the dry run whole (exit 0) and still changes nothing
        CliRun clean = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--accept-unknown-loss", "--plan", plan.toString(),
                "--dry-run");
        assertThat(clean.exitCode()).as(clean.out() + clean.err()).isEqualTo(ExitCode.OK);
        assertThat(cluster.metadata().describePartition(PAY_0).leader()).isEqualTo(PartitionView.NO_LEADER);
    }

    @Test
    @Order(4)
    void recover_decides_again_when_a_replica_that_missed_the_plan_answers_before_the_election(LocalKafkaCluster cluster)
            throws Exception {
        // given: broker 2 hangs through recover's plan, and comes back once the plan is on disk
        Path planFile = dir.resolve("recover.json");
        cluster.pauseBroker(LONGEST_SURVIVOR);
        CompletableFuture<CliRun> recover;
        try {
            recover = CompletableFuture.supplyAsync(() -> CliRun.of("--bootstrap-server", cluster.bootstrapServers(),
                    "recover", "--accept-unknown-loss", "--automated-recovery", "--reason", "test", "--strategy", "proactive", "--probe-timeout-ms", "2000",
                    "--reprobe-timeout-ms", "15000", "--topic", "pay", "--partition", "2",
                    "--output-file", planFile.toString()));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!Files.exists(planFile) && !recover.isDone() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
        } finally {
            cluster.resumeBroker(LONGEST_SURVIVOR);
        }
        CliRun run = recover.get(90, TimeUnit.SECONDS);

        // then: the plan designated 3 (2 did not answer it), and the election went to 2, which holds more
        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.OK);
        assertThat(PlanFile.read(planFile).partitions()).singleElement()
                .satisfies(p -> assertThat(p.designatedLeader()).isEqualTo(SHORTEST_SURVIVOR));
        ResultFile.Partition outcome = ResultFile.read(dir.resolve("recover-result.json")).partitions().get(0);
        assertThat(outcome.outcome()).isEqualTo("ELECTED");
        assertThat(outcome.designatedLeader()).isEqualTo(LONGEST_SURVIVOR);
        assertThat(outcome.detail()).contains("decided again: broker 2 answered after the plan and holds more:"
                + " epoch 0, LEO 50 against epoch 0, LEO 25 on designated 3", "designated 2 instead");
        assertThat(cluster.metadata().awaitPartition(PAY_2, v -> v.leader() != PartitionView.NO_LEADER,
                Duration.ofSeconds(30))
                .leader()).isEqualTo(LONGEST_SURVIVOR);
        assertThat(run.out()).contains("Applying it now (--automated-recovery)").doesNotContain("Nothing was changed");
    }

    /** The plan with partition {@code partition} designating {@code broker}. */
    private static Path designate(Path plan, String name, int partition, int broker) throws Exception {
        JsonNode root = Json.mapper().readTree(plan.toFile());
        List<JsonNode> partitions = new ArrayList<>();
        ((ArrayNode) root.get("partitions")).forEach(partitions::add);
        partitions.stream().filter(p -> p.get("partition").asInt() == partition)
                .forEach(p -> ((ObjectNode) p).put("designatedLeader", broker));
        Path edited = dir.resolve(name);
        Json.mapper().writeValue(edited.toFile(), root);
        return edited;
    }
}
