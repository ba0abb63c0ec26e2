// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static dev.uncleanrecovery.localcluster.LastReplicaStandingOutage.LONGEST_SURVIVOR;
import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.execute.ControllerCalls;
import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.LastReplicaStandingOutage;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.PartitionView;
import dev.uncleanrecovery.formats.ReorderJournal;
import dev.uncleanrecovery.formats.ResultFile;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stock elector's reorder goes out one partition per request; the controller freezes (SIGSTOP) the moment the first
 * is answered, so the second goes unanswered: the tool must not read "the request failed" as "nothing changed". It
 * reads the orders back, says what it found for each partition, keeps the journal, and the next run, once the
 * controller is back, puts back every order still as the failed run set it (the second one too, should the controller
 * apply the request waiting in its socket when it resumes).
 */
@KafkaClusterTest
class ReorderFailureClusterTest {

    private static final List<TopicPartition> PARTITIONS = List.of(new TopicPartition("stuck", 0),
            new TopicPartition("stuck", 1));

    @TempDir
    static Path dir;

    @BeforeAll
    static void killEveryIsrMember(LocalKafkaCluster cluster) {
        LastReplicaStandingOutage.reproduce(cluster, "stuck", 2, 20, 5, s -> { });
    }

    @Test
    void a_reorder_that_fails_after_the_controller_applied_one_keeps_the_journal_and_says_what_it_found(
            LocalKafkaCluster cluster) throws Exception {
        Path plan = dir.resolve("stuck.json");
        CliRun planned = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "plan", "--strategy", "proactive",
                "--probe-timeout-ms", "3000", "--topic", "stuck", "--output-file", plan.toString());
        assertThat(planned.exitCode()).as(planned.out() + planned.err()).isEqualTo(ExitCode.OK);
        int controller = cluster.controllers().firstId();

        // when: the controller is frozen once the first of the two reorder requests is answered
        ToolJvm.Run failed;
        Map<TopicPartition, List<Integer>> leftBehind;
        try {
            failed = ToolJvm.run(dir, List.of("-D" + ControllerCalls.PARTITIONS_PER_REQUEST_PROPERTY + "=1"),
                    "Received ALTER_PARTITION_REASSIGNMENTS response", () -> cluster.controllers().pause(controller),
                    ToolJvm.AtTrigger.LET_IT_RUN, "--bootstrap-server", cluster.bootstrapServers(),
                    "--admin-timeout-ms", "3000", "execute", "--reason", "test", "--plan", plan.toString(), "--accept-unknown-loss");
            leftBehind = PARTITIONS.stream().collect(Collectors.toMap(tp -> tp,
                    tp -> cluster.metadata().describePartition(tp).replicas()));
        } finally {
            cluster.controllers().resume(controller);
        }

        // then: a failure, the journal kept, and per partition what the brokers showed, not what was assumed
        assertThat(failed.triggered()).as(failed.output()).isTrue();
        assertThat(failed.exitCode()).as(failed.output()).isEqualTo(ExitCode.FAILURE);
        assertThat(ReorderJournal.pathFor(plan)).exists();
        ResultFile result = ResultFile.read(dir.resolve("stuck-result.json"));
        assertThat(result.partitions()).allSatisfy(p -> {
            assertThat(p.outcome()).isEqualTo("FAILED");
            assertThat(p.detail()).startsWith("stopped midway: ").contains(ReorderJournal.pathFor(plan) + " keeps the record");
        });
        TopicPartition reordered = PARTITIONS.get(0);
        assertThat(leftBehind.get(reordered)).as("the request the controller answered").containsExactly(2, 3, 1);
        assertThat(detail(result, reordered)).contains("the original replica order [1, 3, 2] could NOT be restored (found"
                + " as [2, 3, 1], the order this run set;");
        TopicPartition unanswered = PARTITIONS.get(1);
        assertThat(detail(result, unanswered)).contains(leftBehind.get(unanswered).equals(List.of(1, 3, 2))
                ? "replica order [1, 3, 2] unchanged" : "found as [2, 3, 1], the order this run set");

        // when: the plan is executed again with the controller back (and the brokers it may have fenced for their
        // missed heartbeats unfenced again)
        cluster.metadata().awaitBrokerUnfenced(LastReplicaStandingOutage.LONGEST_SURVIVOR);
        cluster.metadata().awaitBrokerUnfenced(LastReplicaStandingOutage.SHORTEST_SURVIVOR);
        CliRun again = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test", "--plan", plan.toString(),
                "--accept-unknown-loss");

        // then: every order is put back, both partitions led by 2, the journal gone
        assertThat(again.exitCode()).as(again.out() + again.err()).isEqualTo(ExitCode.OK);
        assertThat(again.err().replaceAll("\\s+", " ")).contains("did not finish");
        for (TopicPartition tp : PARTITIONS) {
            PartitionView now = cluster.metadata().awaitPartition(tp, v -> v.leader() != PartitionView.NO_LEADER
                    && v.replicas().equals(LastReplicaStandingOutage.ASSIGNMENT), Duration.ofSeconds(30));
            assertThat(now.leader()).isEqualTo(LONGEST_SURVIVOR);
        }
        assertThat(ReorderJournal.pathFor(plan)).doesNotExist();
    }

    private static String detail(ResultFile result, TopicPartition tp) {
        return result.partitions().stream().filter(p -> p.topic().equals(tp.topic()) && p.partition() == tp.partition())
                .findFirst().orElseThrow().detail();
    }
}
