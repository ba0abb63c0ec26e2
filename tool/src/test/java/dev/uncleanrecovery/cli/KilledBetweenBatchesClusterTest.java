// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static dev.uncleanrecovery.localcluster.LastReplicaStandingOutage.LONGEST_SURVIVOR;
import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.execute.PlanExecution;
import dev.uncleanrecovery.formats.PlanFile;
import dev.uncleanrecovery.formats.PlannedElection;
import dev.uncleanrecovery.formats.ReorderJournal;
import dev.uncleanrecovery.formats.ResultFile;
import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.LastReplicaStandingOutage;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.PartitionView;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tool's JVM killed with SIGKILL between two batches of a run: the first batch's election answered, its order
 * maybe not yet put back, the batches after it not begun. The next run of the plan puts every recorded order back and
 * elects the rest, each partition once.
 */
@KafkaClusterTest
class KilledBetweenBatchesClusterTest {

    private static final List<TopicPartition> PARTITIONS = List.of(new TopicPartition("cut", 0),
            new TopicPartition("cut", 1), new TopicPartition("cut", 2));

    @TempDir
    static Path dir;

    @Test
    void a_run_killed_after_its_first_batch_is_finished_by_the_next_run(LocalKafkaCluster cluster) throws Exception {
        // given: three offline partitions [1,3,2] whose plans designate 2, elected one batch at a time
        LastReplicaStandingOutage.reproduce(cluster, "cut", 3, 20, 5, s -> { });
        Path plan = dir.resolve("cut.json");
        CliRun planned = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "plan", "--strategy", "proactive",
                "--probe-timeout-ms", "3000", "--topic", "cut", "--output-file", plan.toString());
        assertThat(planned.exitCode()).as(planned.out() + planned.err()).isEqualTo(ExitCode.OK);
        Map<TopicPartition, Integer> plannedEpochs = new HashMap<>();
        for (PlannedElection p : PlanFile.read(plan).partitions()) {
            assertThat(p.designatedLeader()).isEqualTo(LONGEST_SURVIVOR);
            plannedEpochs.put(p.topicPartition(), p.expected().leaderEpoch());
        }

        // when: execute runs in its own JVM and is killed as soon as the first batch's election is answered
        ToolJvm.Run killed = ToolJvm.run(dir, List.of("-D" + PlanExecution.PARTITIONS_PER_BATCH_PROPERTY + "=1"),
                "Received ELECT_LEADERS response", () -> { }, ToolJvm.AtTrigger.KILL_THE_TOOL, "--bootstrap-server",
                cluster.bootstrapServers(), "execute", "--reason", "test", "--accept-unknown-loss", "--plan",
                plan.toString());
        assertThat(killed.triggered()).as("the first batch was elected before the kill; tool output: "
                + killed.output()).isTrue();
        assertThat(killed.output()).contains("batch 1 of 3");

        // then: the first batch is led by 2; the last batch was never touched
        assertThat(cluster.metadata().awaitPartition(PARTITIONS.get(0), v -> v.leader() != PartitionView.NO_LEADER,
                Duration.ofSeconds(30)).leader()).isEqualTo(LONGEST_SURVIVOR);
        PartitionView untouched = cluster.metadata().describePartition(PARTITIONS.get(2));
        assertThat(untouched.leader()).isEqualTo(PartitionView.NO_LEADER);
        assertThat(untouched.replicas()).isEqualTo(LastReplicaStandingOutage.ASSIGNMENT);

        // when: the plan is executed again
        CliRun again = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test",
                "--accept-unknown-loss", "--plan", plan.toString());

        // then: every order is back, every partition is led by 2 after exactly one election, the record is gone
        assertThat(again.exitCode()).as(again.out() + again.err()).isEqualTo(ExitCode.OK);
        ResultFile result = ResultFile.read(dir.resolve("cut-result.json"));
        assertThat(result.partitions()).hasSize(3).allSatisfy(p -> {
            assertThat(p.outcome()).isIn("ELECTED", "ALREADY_RECOVERED");
            ResultFile.State led = p.outcome().equals("ELECTED") ? p.after() : p.before();
            assertThat(led.leaderEpoch()).as("elected once").isEqualTo(plannedEpochs.get(new TopicPartition(p.topic(),
                    p.partition())) + 1);
        });
        assertThat(result.partitions()).filteredOn(p -> p.partition() == 0).singleElement()
                .satisfies(p -> assertThat(p.outcome()).isEqualTo("ALREADY_RECOVERED"));
        assertThat(result.partitions()).filteredOn(p -> p.partition() == 2).singleElement()
                .satisfies(p -> assertThat(p.outcome()).isEqualTo("ELECTED"));
        for (TopicPartition tp : PARTITIONS) {
            PartitionView now = cluster.metadata().awaitPartition(tp, v -> v.leader() != PartitionView.NO_LEADER
                    && v.replicas().equals(LastReplicaStandingOutage.ASSIGNMENT), Duration.ofSeconds(30));
            assertThat(now.leader()).isEqualTo(LONGEST_SURVIVOR);
        }
        assertThat(ReorderJournal.pathFor(plan)).doesNotExist();
    }
}
