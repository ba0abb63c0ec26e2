// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static dev.uncleanrecovery.versions.EveryIsrMemberKilled.DIVERGE;
import static dev.uncleanrecovery.versions.EveryIsrMemberKilled.DIVERGE_ALTERNATIVE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.harness.KafkaToolProcess;
import dev.uncleanrecovery.localcluster.LastReplicaStandingOutage;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.PartitionView;
import dev.uncleanrecovery.formats.ReorderJournal;
import dev.uncleanrecovery.formats.ResultFile;
import dev.uncleanrecovery.salvage.SalvageStore;
import dev.uncleanrecovery.versions.EveryIsrMemberKilled;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.PartitionReassignment;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * An operator (or Cruise Control's self-healing) moves a replica off the dead broker with Kafka's own
 * kafka-reassign-partitions.sh while the tool is at work: while it copies the doomed records, or right after its own
 * reorder. AlterPartitionReassignments has no compare-and-set, so the tool reads the reassignments in progress right
 * before it reorders, elects and restores: a partition with one it did not start is refused and left to it, never
 * overwritten and then "restored" to the plan's replicas. And the plan itself is an editable file: what a partition's
 * election truncates is measured from the replicas at execute time, never taken from the plan.
 */
@KafkaClusterTest(brokers = 4)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReassignmentDuringExecuteClusterTest {

    /** The fourth broker, which no replica of the outage is on: the operator moves the dead broker's replica there. */
    private static final int SPARE = 4;

    @TempDir
    static Path dir;

    @BeforeAll
    static void divergentEpochs(LocalKafkaCluster cluster) {
        // diverge-0 to -2: replicas [3,2,1], 1 dead for good; 2 (newer epoch) is designated, 3 loses [10, 30)
        EveryIsrMemberKilled.build(cluster, 3);
    }

    @Test
    @Order(1)
    void a_reassignment_started_while_the_tool_salvages_is_left_to_run_and_the_partition_refused(
            LocalKafkaCluster cluster) throws Exception {
        Path plan = plan(cluster, "during-salvage.json", DIVERGE);

        ToolJvm.Run run = ToolJvm.run(dir, List.of(), "salvaging 1 doomed range", () -> reassign(cluster, DIVERGE,
                List.of(3, 2, SPARE)), ToolJvm.AtTrigger.PAUSE_THE_TOOL, "--bootstrap-server",
                cluster.bootstrapServers(), "execute", "--reason", "test", "--plan", plan.toString(), "--accept-unknown-loss");

        assertThat(run.triggered()).as(run.output()).isTrue();
        assertThat(run.exitCode()).as(run.output()).isEqualTo(ExitCode.ATTENTION);
        ResultFile.Partition refused = ResultFile.read(dir.resolve("during-salvage-result.json")).partitions().get(0);
        assertThat(refused.outcome()).isEqualTo("REFUSED");
        assertThat(refused.detail()).startsWith("a reassignment this tool did not start is in progress").contains("left alone");
        // the operator's reassignment is as Kafka's tool started it: never overwritten, never cancelled
        assertThat(inProgress(cluster).get(DIVERGE)).satisfies(r -> {
            assertThat(r.addingReplicas()).containsExactly(SPARE);
            assertThat(r.removingReplicas()).containsExactly(LastReplicaStandingOutage.LAST_LEADER);
        });
        assertThat(cluster.metadata().describePartition(DIVERGE).leader()).isEqualTo(PartitionView.NO_LEADER);
        assertThat(ReorderJournal.pathFor(plan)).doesNotExist();
    }

    @Test
    @Order(2)
    void a_reassignment_started_after_the_tools_reorder_is_neither_elected_over_nor_restored_away(
            LocalKafkaCluster cluster) throws Exception {
        Path plan = plan(cluster, "after-reorder.json", DIVERGE_ALTERNATIVE);

        // the tool reorders [3,2,1] to [2,3,1]; the operator then moves 1's replica to 4
        ToolJvm.Run run = ToolJvm.run(dir, List.of(), "Received ALTER_PARTITION_REASSIGNMENTS response",
                () -> reassign(cluster, DIVERGE_ALTERNATIVE, List.of(2, 3, SPARE)), ToolJvm.AtTrigger.PAUSE_THE_TOOL,
                "--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test", "--plan", plan.toString(),
                "--accept-unknown-loss");

        // The tool is frozen a moment after its reorder is answered: it may have elected by then. Either way the
        // operator's reassignment stands: never elected over once seen, never "restored" away.
        assertThat(run.triggered()).as(run.output()).isTrue();
        ResultFile.Partition outcome = ResultFile.read(dir.resolve("after-reorder-result.json")).partitions().get(0);
        assertThat(outcome.detail()).contains("replica order NOT restored: a reassignment this tool did not start is in"
                + " progress", "before this tool's reorder it was [3, 2, 1]");
        if (outcome.outcome().equals("REFUSED")) {
            assertThat(run.exitCode()).as(run.output()).isEqualTo(ExitCode.ATTENTION);
            assertThat(outcome.detail()).startsWith("a reassignment this tool did not start is in progress");
            assertThat(cluster.metadata().describePartition(DIVERGE_ALTERNATIVE).leader()).isEqualTo(PartitionView.NO_LEADER);
            assertThat(inProgress(cluster).get(DIVERGE_ALTERNATIVE)).satisfies(r -> {
                assertThat(r.addingReplicas()).containsExactly(SPARE);
                assertThat(r.replicas()).startsWith(2, 3, SPARE);
            });
        } else {
            // elected before the operator's move: with a leader, Kafka's reassignment may already have completed
            assertThat(outcome.outcome()).as(outcome.detail()).isEqualTo("ELECTED");
            PartitionReassignment moving = inProgress(cluster).get(DIVERGE_ALTERNATIVE);
            List<Integer> replicas = moving != null ? moving.replicas() : cluster.metadata().describePartition(DIVERGE_ALTERNATIVE).replicas();
            assertThat(replicas).startsWith(2, 3, SPARE);
        }
        assertThat(ReorderJournal.pathFor(plan)).as("nothing left that is the tool's to put back").doesNotExist();
    }

    @Test
    @Order(3)
    void a_plan_edited_to_state_less_loss_is_refused_and_the_measured_range_is_what_is_salvaged(
            LocalKafkaCluster cluster) throws Exception {
        TopicPartition tp = new TopicPartition("diverge", 2);
        Path plan = plan(cluster, "edited.json", tp);
        String asPlanned = Files.readString(plan);
        assertThat(asPlanned).contains("\"records\" : 20");

        // when: a reviewer's edit says broker 3 loses nothing, or less than it holds
        List<String> editedPlans = List.of(
                asPlanned.replaceFirst("\"records\" : 20", "\"records\" : 0")
                        .replaceFirst("\"neverCommittedRecords\" : 20", "\"neverCommittedRecords\" : 0"),
                asPlanned.replaceFirst("\"toOffset\" : 30", "\"toOffset\" : 20"));
        for (String content : editedPlans) {
            assertThat(content).isNotEqualTo(asPlanned);
            Path edited = Files.writeString(dir.resolve("edited-" + editedPlans.indexOf(content) + ".json"), content);
            CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test", "--plan", edited.toString(),
                    "--accept-unknown-loss");

            // then: refused on what the replicas hold now, nothing copied, nothing changed
            assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.ATTENTION);
            assertThat(run.out().replaceAll("\\s+", " ")).contains("broker 3 loses 20 [10..30) as measured now, the plan"
                    + " says");
            assertThat(SalvageStore.besidePlan(edited)).doesNotExist();
            PartitionView untouched = cluster.metadata().describePartition(tp);
            assertThat(untouched.leader()).isEqualTo(PartitionView.NO_LEADER);
            assertThat(untouched.replicas()).containsExactly(3, 2, 1);
        }

        // and: the plan as written is elected, with the measured range copied first
        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test", "--plan", plan.toString(),
                "--accept-unknown-loss");
        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.OK);
        ResultFile.Partition elected = ResultFile.read(dir.resolve("edited-result.json")).partitions().get(0);
        assertThat(elected.outcome()).isEqualTo("ELECTED");
        assertThat(elected.salvaged()).singleElement().satisfies(k -> {
            assertThat(k.broker()).isEqualTo(EveryIsrMemberKilled.OLDER_EPOCH_LONGER_LOG);
            assertThat(k.fromOffset()).isEqualTo(10);
            assertThat(k.toOffset()).isEqualTo(30);
        });
        assertThat(elected.unknownLoss()).containsExactly(LastReplicaStandingOutage.LAST_LEADER);
    }

    private static Path plan(LocalKafkaCluster cluster, String name, TopicPartition tp) {
        return CliRun.planProactive(cluster, dir.resolve(name), tp);
    }

    /** kafka-reassign-partitions.sh --execute, as an operator runs it (--additional: another one may be in progress). */
    private static void reassign(LocalKafkaCluster cluster, TopicPartition tp, List<Integer> replicas) {
        try {
            Path json = Files.writeString(dir.resolve("move-" + tp + ".json"), "{\"version\":1,\"partitions\":[{\"topic\":\""
                    + tp.topic() + "\",\"partition\":" + tp.partition() + ",\"replicas\":" + replicas + "}]}");
            KafkaToolProcess.Run kafka = KafkaToolProcess.runAsPrinted("kafka-reassign-partitions.sh --bootstrap-server "
                    + cluster.bootstrapServers() + " --execute --additional --reassignment-json-file " + json);
            assertThat(kafka.exitCode()).as(kafka.output()).isZero();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static Map<TopicPartition, PartitionReassignment> inProgress(LocalKafkaCluster cluster) throws Exception {
        try (Admin admin = cluster.createAdmin()) {
            return admin.listPartitionReassignments().reassignments().get(30, TimeUnit.SECONDS);
        }
    }
}
