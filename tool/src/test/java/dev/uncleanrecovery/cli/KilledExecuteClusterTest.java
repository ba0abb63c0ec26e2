// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static dev.uncleanrecovery.localcluster.LastReplicaStandingOutage.LONGEST_SURVIVOR;
import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.LastReplicaStandingOutage;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.PartitionView;
import dev.uncleanrecovery.formats.PlanFile;
import dev.uncleanrecovery.formats.PlannedElection;
import dev.uncleanrecovery.formats.ReorderJournal;
import dev.uncleanrecovery.formats.ResultFile;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tool's own JVM killed with SIGKILL right after the controller answered the stock elector's reorder: the
 * assignment is left best-first, maybe with a leader elected, and nobody restored it. The next run of the plan
 * must find the record, put the orders back, and elect only what was not elected yet. A killed recover's record is
 * bound to the plan that recover wrote: the next recover, with a plan of its own, names it and the command that puts
 * it back.
 */
@KafkaClusterTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KilledExecuteClusterTest {

    private static final List<TopicPartition> PARTITIONS = List.of(new TopicPartition("cut", 0), new TopicPartition("cut", 1));
    private static final TopicPartition CUT_2 = new TopicPartition("cut", 2);

    @TempDir
    static Path dir;

    @BeforeAll
    static void killEveryIsrMember(LocalKafkaCluster cluster) {
        // Offline partitions [1,3,2] whose plans designate 2, so the stock elector reorders them to [2,3,1].
        LastReplicaStandingOutage.reproduce(cluster, "cut", 3, 20, 5, s -> { });
    }

    @Test
    @Order(1)
    void a_run_killed_between_the_reorder_and_the_restore_is_put_right_by_the_next_run(LocalKafkaCluster cluster)
            throws Exception {
        // given: the plan of two offline partitions
        Path plan = dir.resolve("cut.json");
        CliRun planned = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "plan", "--strategy", "proactive",
                "--probe-timeout-ms", "3000", "--topic", "cut", "--partition", "0", "--partition", "1",
                "--output-file", plan.toString());
        assertThat(planned.exitCode()).as(planned.out() + planned.err()).isEqualTo(ExitCode.OK);
        Map<TopicPartition, Integer> plannedEpochs = new HashMap<>();
        for (PlannedElection p : PlanFile.read(plan).partitions()) {
            assertThat(p.designatedLeader()).isEqualTo(LONGEST_SURVIVOR);
            plannedEpochs.put(p.topicPartition(), p.expected().leaderEpoch());
        }

        // when: execute runs in its own JVM and is killed as soon as its request log shows the reorder's answer
        ToolJvm.Run killed = ToolJvm.run(dir, "Received ALTER_PARTITION_REASSIGNMENTS response", () -> { },
                ToolJvm.AtTrigger.KILL_THE_TOOL, "--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test", "--accept-unknown-loss",
                "--plan", plan.toString());
        assertThat(killed.triggered()).as("the reorder was answered before the kill; tool output: " + killed.output())
                .isTrue();

        // then: the record of the reorder is on the disk, and the cluster shows what the killed run left
        Path journal = ReorderJournal.pathFor(plan);
        assertThat(journal).exists();
        assertThat(ReorderJournal.readIfPresent(journal).orElseThrow().partitions())
                .allSatisfy(r -> assertThat(r.reorderedReplicas()).containsExactly(2, 3, 1));
        boolean leftReordered = PARTITIONS.stream()
                .anyMatch(tp -> cluster.metadata().describePartition(tp).replicas().equals(List.of(2, 3, 1)));
        assertThat(leftReordered).as("the killed run left an assignment best-first").isTrue();

        // when: the plan is executed again
        CliRun again = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test", "--accept-unknown-loss", "--plan", plan.toString());

        // then: every order is back, every partition is led by 2 after exactly one election, the record is gone
        assertThat(again.exitCode()).as(again.out() + again.err()).isEqualTo(ExitCode.OK);
        assertThat(again.err().replaceAll("\\s+", " ")).contains("did not finish", "restoring the original replica order");
        ResultFile result = ResultFile.read(dir.resolve("cut-result.json"));
        assertThat(result.partitions()).allSatisfy(p -> {
            assertThat(p.outcome()).isIn("ELECTED", "ALREADY_RECOVERED");
            assertThat(p.detail()).contains("an interrupted run had reordered it to [2, 3, 1]");
            // One election in all: by this run (epoch + 1 after it) or by the killed one (epoch + 1 before this run)
            ResultFile.State led = p.outcome().equals("ELECTED") ? p.after() : p.before();
            assertThat(led.leaderEpoch()).as("elected once").isEqualTo(plannedEpochs.get(new TopicPartition(p.topic(),
                    p.partition())) + 1);
        });
        for (TopicPartition tp : PARTITIONS) {
            PartitionView now = cluster.metadata().awaitPartition(tp, v -> v.leader() != PartitionView.NO_LEADER
                    && v.replicas().equals(LastReplicaStandingOutage.ASSIGNMENT), Duration.ofSeconds(30));
            assertThat(now.leader()).isEqualTo(LONGEST_SURVIVOR);
        }
        assertThat(journal).doesNotExist();
    }

    @Test
    @Order(2)
    void a_killed_recovers_journal_is_named_by_the_next_recover_and_put_back_by_the_command_it_names(
            LocalKafkaCluster cluster) throws Exception {
        // given: recover killed right after its reorder was answered
        Path firstPlan = dir.resolve("recover-1.json");
        ToolJvm.Run killed = ToolJvm.run(dir, "Received ALTER_PARTITION_REASSIGNMENTS response", () -> { },
                ToolJvm.AtTrigger.KILL_THE_TOOL, "--bootstrap-server", cluster.bootstrapServers(), "recover", "--accept-unknown-loss",
                "--automated-recovery", "--reason", "test", "--strategy", "proactive", "--probe-timeout-ms", "3000", "--topic", "cut",
                "--partition", "2", "--output-file", firstPlan.toString());
        assertThat(killed.triggered()).as(killed.output()).isTrue();
        Path journal = ReorderJournal.pathFor(firstPlan);
        assertThat(journal).exists();
        assertThat(ReorderJournal.readIfPresent(journal).orElseThrow().planSha256())
                .as("bound to the plan that recover wrote").isEqualTo(PlanFile.sha256(firstPlan));

        // when: recover runs again, with a plan file of its own
        CliRun again = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "recover", "--accept-unknown-loss", "--automated-recovery", "--reason", "test",
                "--strategy", "proactive", "--probe-timeout-ms", "3000", "--topic", "cut", "--partition", "2",
                "--output-file", dir.resolve("recover-2.json").toString());

        // then: the first run's journal is not its own: it is named, with the command that puts its orders back
        assertThat(again.exitCode()).as(again.out() + again.err()).isEqualTo(ExitCode.OK);
        String said = again.err().replaceAll("\\s+", " ");
        assertThat(said).contains(journal + "; they are NOT put back by this run: a run of another plan wrote it ("
                + firstPlan);
        assertThat(journal).exists();
        Matcher command = Pattern.compile("'execute (--plan \\S+ --restore-journal \\S+) --reason TEXT'").matcher(said);
        assertThat(command.find()).as(said).isTrue();

        // when: the operator runs that command
        List<String> args = new ArrayList<>(List.of("--bootstrap-server", cluster.bootstrapServers(), "execute"));
        args.addAll(List.of(command.group(1).split(" ")));
        args.addAll(List.of("--reason", "test", "--accept-unknown-loss"));
        CliRun restored = CliRun.of(args.toArray(String[]::new));

        // then: the first run's order is back, the journal gone, the partition led by 2
        assertThat(restored.exitCode()).as(restored.out() + restored.err()).isEqualTo(ExitCode.OK);
        assertThat(restored.err().replaceAll("\\s+", " ")).contains("did not finish", journal + " (--restore-journal)");
        assertThat(journal).doesNotExist();
        PartitionView now = cluster.metadata().awaitPartition(CUT_2, v -> v.leader() != PartitionView.NO_LEADER
                && v.replicas().equals(LastReplicaStandingOutage.ASSIGNMENT), Duration.ofSeconds(30));
        assertThat(now.leader()).isEqualTo(LONGEST_SURVIVOR);
    }
}
