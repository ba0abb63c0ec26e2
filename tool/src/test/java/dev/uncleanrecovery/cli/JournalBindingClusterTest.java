// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static dev.uncleanrecovery.localcluster.LastReplicaStandingOutage.ASSIGNMENT;
import static dev.uncleanrecovery.localcluster.LastReplicaStandingOutage.LONGEST_SURVIVOR;
import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.formats.PlanFile;
import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.LastReplicaStandingOutage;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.PartitionView;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * A reorder journal is acted on by a run only when a run of that very plan wrote it, against that cluster: one dropped
 * beside the plan is named with the command that acts on it, never sent; even then only an order of the same replicas
 * is put back, never a move; and the cluster's id is compared before any journal is read. Each "nothing changed" is
 * read back from the cluster: the replicas, and no reassignment in progress.
 */
@KafkaClusterTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class JournalBindingClusterTest {

    private static final TopicPartition BOUND_0 = new TopicPartition("bound", 0);
    private static final TopicPartition BOUND_1 = new TopicPartition("bound", 1);

    @TempDir
    static Path dir;

    @BeforeAll
    static void killEveryIsrMember(LocalKafkaCluster cluster) {
        // offline partitions [1,3,2]; 2 holds the longest log and is designated
        LastReplicaStandingOutage.reproduce(cluster, "bound", 2, 20, 5, s -> { });
    }

    @Test
    @Order(1)
    void a_journal_another_run_left_beside_the_plan_is_named_and_never_sent(LocalKafkaCluster cluster)
            throws Exception {
        // given: the plan of bound-0, approved, and beside it a journal "from another host" that would move bound-0 to
        // [1, 3], dropping broker 2, the designated leader with the longest log
        Path plan = CliRun.planProactive(cluster, dir.resolve("plan.json"), BOUND_0);
        int epoch = PlanFile.read(plan).partitions().get(0).expected().leaderEpoch();
        Path other = dir.resolve("other-journal.json");
        Files.writeString(other, """
                {"version": 1, "clusterId": "%s", "planFile": "other.json", "startedAt": "2026-12-01T03:00:00Z",
                 "host": "another-host", "pid": 4242,
                 "partitions": [{"topic": "bound", "partition": 0, "designatedLeader": 3, "leaderEpoch": %d,
                                 "originalReplicas": [1, 3], "reorderedReplicas": [1, 3, 2]}]}
                """.formatted(cluster.clusterId(), epoch));
        assertThat(CliRun.of("plan", "approve", "--plan", plan.toString(), "--by", "alice", "--allow-option",
                "accept-unknown-loss").exitCode()).isZero();

        // when: a dry run under the approval, then the run
        CliRun dry = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--plan", plan.toString(),
                "--dry-run", "--require-approval", "--accept-unknown-loss");
        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--plan", plan.toString(),
                "--reason", "test", "--accept-unknown-loss");

        // then: neither would apply the journal, both name it with the command that acts on it, and bound-0 is elected
        // as planned, its replicas as they were, with no reassignment started
        String command = "'execute --plan " + plan + " --restore-journal " + other + " --reason TEXT'";
        assertThat(dry.exitCode()).as(dry.out() + dry.err()).isEqualTo(ExitCode.OK);
        assertThat(dry.err().replaceAll("\\s+", " ")).contains(other + "; they are NOT put back by this run: an"
                + " older version of the tool wrote it", command).doesNotContain("a real run first puts back");
        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.OK);
        assertThat(run.err().replaceAll("\\s+", " ")).contains(other + "; they are NOT put back", command);
        PartitionView elected = cluster.metadata().awaitPartition(BOUND_0, v -> v.leader() != PartitionView.NO_LEADER,
                Duration.ofSeconds(30));
        assertThat(elected.leader()).isEqualTo(LONGEST_SURVIVOR);
        assertThat(elected.replicas()).isEqualTo(ASSIGNMENT);
        assertNoReassignment(cluster);
        assertThat(other).exists();

        // when: the operator runs the command it names
        Matcher named = Pattern.compile("'execute (--plan \\S+ --restore-journal \\S+) --reason TEXT'")
                .matcher(run.err().replaceAll("\\s+", " "));
        assertThat(named.find()).isTrue();
        List<String> args = new ArrayList<>(List.of("--bootstrap-server", cluster.bootstrapServers(), "execute"));
        args.addAll(List.of(named.group(1).split(" ")));
        args.addAll(List.of("--reason", "test", "--accept-unknown-loss"));
        CliRun explicit = CliRun.of(args.toArray(String[]::new));

        // then: the move is refused and named, nothing is sent, and the journal stays for the operator to look at
        assertThat(explicit.exitCode()).as(explicit.out() + explicit.err()).isEqualTo(ExitCode.FAILURE);
        assertThat(explicit.err().replaceAll("\\s+", " ")).contains("the record of " + BOUND_0 + " is not a reorder:"
                + " original [1, 3] and reordered [1, 3, 2] are not the same replicas", "it names a move");
        assertThat(cluster.metadata().describePartition(BOUND_0).replicas()).isEqualTo(ASSIGNMENT);
        assertNoReassignment(cluster);
        assertThat(other).exists();
        Files.delete(other);
    }

    @Test
    @Order(2)
    void the_clusters_id_is_compared_before_any_journal_is_read(LocalKafkaCluster cluster) throws Exception {
        // given: the plan of bound-1 edited to name another cluster, with a journal of that cluster beside it
        Path plan = CliRun.planProactive(cluster, dir.resolve("bound-1.json"), BOUND_1);
        Path elsewhere = dir.resolve("elsewhere.json");
        Files.writeString(elsewhere, Files.readString(plan).replace(cluster.clusterId(), "AAAAAAAAAAAAAAAAAAAAAA"));
        Path journal = dir.resolve("elsewhere-journal.json");
        Files.writeString(journal, """
                {"version": 1, "clusterId": "AAAAAAAAAAAAAAAAAAAAAA", "planFile": "elsewhere.json",
                 "startedAt": "2026-12-01T03:00:00Z", "host": "another-host", "pid": 4242,
                 "partitions": [{"topic": "bound", "partition": 1, "designatedLeader": 2, "leaderEpoch": 0,
                                 "originalReplicas": [2, 1, 3], "reorderedReplicas": [1, 3, 2]}]}
                """);

        // when: the edited plan is executed, and the journal is named with the real one
        CliRun edited = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--plan",
                elsewhere.toString(), "--reason", "test", "--accept-unknown-loss");
        CliRun named = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--plan",
                plan.toString(), "--restore-journal", journal.toString(), "--reason", "test", "--accept-unknown-loss");

        // then: both refused in one line before anything was sent
        assertThat(edited.exitCode()).as(edited.out() + edited.err()).isEqualTo(ExitCode.USAGE);
        assertThat(edited.err()).contains("the plan was made for cluster AAAAAAAAAAAAAAAAAAAAAA, but"
                + " --bootstrap-server is cluster " + cluster.clusterId());
        assertThat(named.exitCode()).as(named.out() + named.err()).isEqualTo(ExitCode.USAGE);
        assertThat(named.err()).contains("--restore-journal " + journal + " records reorders of cluster"
                + " AAAAAAAAAAAAAAAAAAAAAA, but --bootstrap-server is cluster " + cluster.clusterId());
        PartitionView untouched = cluster.metadata().describePartition(BOUND_1);
        assertThat(untouched.replicas()).isEqualTo(ASSIGNMENT);
        assertThat(untouched.leader()).isEqualTo(PartitionView.NO_LEADER);
        assertNoReassignment(cluster);
    }

    @Test
    @Order(3)
    void even_a_journal_of_this_plan_never_moves_a_partition(LocalKafkaCluster cluster) throws Exception {
        // given: a journal bound to this very plan and cluster, by a process of this host that has ended, naming a move
        Path plan = dir.resolve("bound-1.json");
        Process ended = new ProcessBuilder("sleep", "60").start();
        long endedTicks = startTicks(ended.pid());
        ended.destroy();
        ended.waitFor(10, TimeUnit.SECONDS);
        Path journal = dir.resolve("bound-1-journal.json");
        Files.writeString(journal, """
                {"version": 2, "clusterId": "%s", "planFile": "%s", "planSha256": "%s",
                 "startedAt": "2026-12-01T03:00:00Z", "host": "here", "pid": %d, "bootId": "%s",
                 "pidNamespace": %s, "processStartTicks": %d,
                 "partitions": [{"topic": "bound", "partition": 1, "designatedLeader": 2, "leaderEpoch": 0,
                                 "originalReplicas": [7, 8, 9], "reorderedReplicas": [1, 3, 2]}]}
                """.formatted(cluster.clusterId(), plan, PlanFile.sha256(plan), ended.pid(),
                Files.readString(Path.of("/proc/sys/kernel/random/boot_id")).strip(),
                Files.readSymbolicLink(Path.of("/proc/self/ns/pid")).toString().replaceAll("\\D", ""), endedTicks));

        // when: the plan is executed
        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--plan", plan.toString(),
                "--reason", "test", "--accept-unknown-loss");

        // then: the journal is acted on, the move refused and named, nothing sent and nothing elected
        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.FAILURE);
        assertThat(run.err().replaceAll("\\s+", " ")).contains("original [7, 8, 9] and reordered [1, 3, 2] are not"
                + " the same replicas", "nothing else was done");
        PartitionView untouched = cluster.metadata().describePartition(BOUND_1);
        assertThat(untouched.replicas()).isEqualTo(ASSIGNMENT);
        assertThat(untouched.leader()).isEqualTo(PartitionView.NO_LEADER);
        assertNoReassignment(cluster);
        assertThat(journal).exists();
    }

    /** /proc/PID/stat field 22: the process's start in clock ticks since boot. */
    private static long startTicks(long pid) throws Exception {
        String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
        return Long.parseLong(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[19]);
    }

    private static void assertNoReassignment(LocalKafkaCluster cluster) throws Exception {
        try (Admin admin = cluster.createAdmin()) {
            assertThat(admin.listPartitionReassignments().reassignments().get(30, TimeUnit.SECONDS))
                    .as("no reassignment in progress").isEmpty();
        }
    }
}
