// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static dev.uncleanrecovery.localcluster.LastReplicaStandingOutage.ASSIGNMENT;
import static dev.uncleanrecovery.localcluster.LastReplicaStandingOutage.LONGEST_SURVIVOR;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.uncleanrecovery.execute.RunLock;
import dev.uncleanrecovery.execute.RunOwner;
import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.LastReplicaStandingOutage;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.PartitionView;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Whose run lock may be taken over: a run in another pid namespace on this host (a container with a pid namespace of
 * its own, on the host's network) holds it even though its pid names no process here, and is named; a run of this
 * namespace that was killed has provably ended, and the next run takes its lock over. The owner topics are the ones
 * the tool's own JVMs create.
 */
@KafkaClusterTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RunLockOwnerClusterTest {

    private static final TopicPartition OWNED_0 = new TopicPartition("owned", 0);
    private static final TopicPartition OWNED_1 = new TopicPartition("owned", 1);
    private static final String REORDER_ANSWERED = "Received ALTER_PARTITION_REASSIGNMENTS response";

    @TempDir
    static Path dir;

    @BeforeAll
    static void killEveryIsrMember(LocalKafkaCluster cluster) {
        LastReplicaStandingOutage.reproduce(cluster, "owned", 2, 20, 5, s -> { });
    }

    @Test
    @Order(1)
    void a_lock_held_from_another_pid_namespace_is_not_taken_over_though_its_pid_is_no_process_here(
            LocalKafkaCluster cluster) throws Exception {
        assumeTrue(unshareWorks(), "unshare --pid --fork --mount-proc is not permitted here");
        Path inside = CliRun.planProactive(cluster, dir.resolve("inside.json"), OWNED_0);
        Path outside = CliRun.planProactive(cluster, dir.resolve("outside.json"), OWNED_1);
        // the run in the other namespace gets a pid that no process of this namespace has
        long pid = freePid();
        List<String> otherNamespace = List.of("unshare", "--pid", "--fork", "--mount-proc", "--kill-child", "sh", "-c",
                "echo " + (pid - 1) + " > /proc/sys/kernel/ns_last_pid && \"$@\"", "sh");

        // when: that run holds the lock (frozen right after its reorder), and a run of this namespace starts
        AtomicReference<CliRun> second = new AtomicReference<>();
        AtomicReference<Set<String>> ownerTopics = new AtomicReference<>();
        AtomicBoolean pidFreeHere = new AtomicBoolean();
        ToolJvm.Run held = ToolJvm.run(dir, otherNamespace, List.of(), REORDER_ANSWERED, () -> {
            pidFreeHere.set(ProcessHandle.of(pid).isEmpty());
            ownerTopics.set(lockTopics(cluster));
            second.set(CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test",
                    "--plan", outside.toString(), "--accept-unknown-loss"));
        }, ToolJvm.AtTrigger.PAUSE_THE_TOOL, "--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason",
                "test", "--plan", inside.toString(), "--accept-unknown-loss");

        // then: the second run changed nothing and named the holder, though its pid is no process here
        assertThat(held.triggered()).as(held.output()).isTrue();
        assertThat(pidFreeHere).as("pid " + pid + " is no process of this namespace").isTrue();
        CliRun refused = second.get();
        assertThat(refused.exitCode()).as(refused.out() + refused.err()).isEqualTo(ExitCode.FAILURE);
        assertThat(refused.err().replaceAll("\\s+", " ")).contains("another run is changing this cluster: pid " + pid
                + " on " + RunOwner.thisHost(), "Nothing was changed.", "it ran in another pid namespace",
                "--break-lock");
        PartitionView untouched = cluster.metadata().describePartition(OWNED_1);
        assertThat(untouched.leader()).isEqualTo(PartitionView.NO_LEADER);
        assertThat(untouched.replicas()).isEqualTo(ASSIGNMENT);
        // and: the lock's owner topic names that pid and its namespace, which is not this one
        String ownNamespace = Files.readSymbolicLink(Path.of("/proc/self/ns/pid")).toString().replaceAll("\\D", "");
        assertThat(ownerTopics.get()).anySatisfy(name -> assertThat(name).contains(".pid-" + pid + ".")
                .contains(".pidns-").doesNotContain(".pidns-" + ownNamespace + "."));
        // and: the first went on and finished
        assertThat(held.exitCode()).as(held.output()).isEqualTo(ExitCode.OK);
        assertThat(cluster.metadata().awaitPartition(OWNED_0, v -> v.leader() != PartitionView.NO_LEADER,
                Duration.ofSeconds(30)).leader()).isEqualTo(LONGEST_SURVIVOR);
        assertThat(lockTopics(cluster)).as("released").isEmpty();
    }

    @Test
    @Order(2)
    void a_lock_whose_owner_in_this_namespace_was_killed_is_taken_over(LocalKafkaCluster cluster) throws Exception {
        Path plan = CliRun.planProactive(cluster, dir.resolve("killed.json"), OWNED_1);

        // given: a run of this namespace killed while it held the lock
        ToolJvm.Run killed = ToolJvm.run(dir, REORDER_ANSWERED, () -> { }, ToolJvm.AtTrigger.KILL_THE_TOOL,
                "--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test", "--plan",
                plan.toString(), "--accept-unknown-loss");
        assertThat(killed.triggered()).as(killed.output()).isTrue();
        assertThat(lockTopics(cluster)).as("the killed run's lock and owner topic").hasSize(2);

        // when: the next run
        CliRun next = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test",
                "--plan", plan.toString(), "--accept-unknown-loss");

        // then: it took the lock over, put back the killed run's order and elected
        assertThat(next.exitCode()).as(next.out() + next.err()).isEqualTo(ExitCode.OK);
        assertThat(next.err().replaceAll("\\s+", " ")).contains("which has ended: taking it over");
        PartitionView now = cluster.metadata().awaitPartition(OWNED_1, v -> v.leader() != PartitionView.NO_LEADER
                && v.replicas().equals(ASSIGNMENT), Duration.ofSeconds(30));
        assertThat(now.leader()).isEqualTo(LONGEST_SURVIVOR);
        assertThat(lockTopics(cluster)).isEmpty();
    }

    /** A pid no process of this namespace has, well above those taken now. */
    private static long freePid() throws Exception {
        long max;
        try (InputStream in = Files.newInputStream(Path.of("/proc/sys/kernel/pid_max"))) {
            // whole, at once: a sysctl file answers end of file to a read past its first one (Files.readString)
            max = Long.parseLong(new String(in.readAllBytes(), StandardCharsets.US_ASCII).strip());
        }
        for (long pid = Math.min(max - 1, 30_000); pid > 300; pid--) {
            if (ProcessHandle.of(pid).isEmpty() && !Files.exists(Path.of("/proc", String.valueOf(pid)))) {
                return pid;
            }
        }
        throw new IllegalStateException("no free pid below " + max);
    }

    private static boolean unshareWorks() throws Exception {
        try {
            Process probe = new ProcessBuilder("unshare", "--pid", "--fork", "--mount-proc", "true").start();
            return probe.waitFor(30, TimeUnit.SECONDS) && probe.exitValue() == 0;
        } catch (java.io.IOException e) {
            return false;
        }
    }

    private static Set<String> lockTopics(LocalKafkaCluster cluster) {
        try (Admin admin = cluster.createAdmin()) {
            return admin.listTopics().names().get(30, TimeUnit.SECONDS).stream()
                    .filter(n -> n.startsWith(RunLock.LOCK_TOPIC)).collect(Collectors.toSet());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
