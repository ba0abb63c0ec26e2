// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.uncleanrecovery.UserInputException;
import dev.uncleanrecovery.cluster.ClusterSnapshot;
import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.execute.PendingReorders.Standing;
import dev.uncleanrecovery.formats.ReorderJournal;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The records runs left beside a plan: what cannot be read stops the run, a live writer is named, and only a record of
 * an ended run of this very plan and cluster, in a directory only its owner may write, is acted on by itself.
 */
class PendingReordersTest {

    private static final String PLAN_SHA = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
    private static final String OTHER_SHA = "60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752";
    private static final RunOwner.Seen ENDED = new RunOwner.Seen(RunOwner.Liveness.ENDED, null);
    private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);

    @TempDir
    Path dir;

    /** A record of this plan's run by a process of this host that has ended (its pid is no live process's). */
    private static ReorderJournal journal(String clusterId, String sha, RunOwner writer) {
        RunOwner.ProcessTable table = writer.table();
        return new ReorderJournal(ReorderJournal.VERSION, clusterId, "p.json", sha, Instant.EPOCH, writer.host(),
                writer.pid(), table == null ? null : table.bootId(), table == null ? null : table.pidNamespace(),
                writer.startTicks() < 0 ? null : writer.startTicks(),
                List.of(new ReorderJournal.Reorder("orders", 0, 2, 7, List.of(1, 3, 2), List.of(2, 3, 1))));
    }

    /** A process of this host that ran and has ended. */
    private static RunOwner ended() throws Exception {
        Process gone = new ProcessBuilder("sleep", "60").start();
        long ticks = RunOwner.Proc.THIS_HOST.startTicks(gone.pid()).orElseThrow();
        gone.destroy();
        gone.waitFor(10, TimeUnit.SECONDS);
        RunOwner self = RunOwner.current();
        return new RunOwner(self.host(), gone.pid(), null, self.table(), ticks);
    }

    private static ReorderJournal bound() throws Exception {
        return journal("cluster-1", PLAN_SHA, ended());
    }

    @Test
    void a_folder_that_cannot_be_listed_stops_the_run_instead_of_reading_as_no_record() throws Exception {
        // the plan's folder is a file: listing it fails (for root too, who reads any folder)
        Path notAFolder = Files.writeString(dir.resolve("plans"), "");

        assertThatThrownBy(() -> PendingReorders.beside(notAFolder.resolve("p.json"), "cluster-1", PLAN_SHA))
                .isInstanceOf(UncheckedIOException.class)
                .hasMessageStartingWith("cannot look for interrupted runs' records in " + notAFolder)
                .hasMessageContaining("nothing was changed");
    }

    @Test
    void a_record_that_cannot_be_read_stops_the_run() throws Exception {
        Files.createDirectory(dir.resolve("p-journal.json"));

        assertThatThrownBy(() -> PendingReorders.beside(dir.resolve("p.json"), "cluster-1", PLAN_SHA))
                .isInstanceOf(UncheckedIOException.class).hasMessageContaining("cannot read " + dir.resolve("p-journal.json"));
    }

    @Test
    void no_folder_holds_no_record() {
        assertThat(PendingReorders.beside(dir.resolve("missing").resolve("p.json"), "cluster-1", PLAN_SHA)).isEmpty();
    }

    @Test
    void only_an_ended_run_of_this_plan_and_cluster_is_acted_on_by_itself() throws Exception {
        ReorderJournal.write(dir.resolve("p-journal.json"), bound());
        ReorderJournal.write(dir.resolve("copy-journal.json"), bound());
        ReorderJournal.write(dir.resolve("a-journal.json"), journal("cluster-1", OTHER_SHA, ended()));
        ReorderJournal.write(dir.resolve("o-journal.json"), journal("cluster-2", PLAN_SHA, ended()));

        List<PendingReorders> found = PendingReorders.beside(dir.resolve("p.json"), "cluster-1", PLAN_SHA);

        // this plan's own file first; a copy of the plan has the same bytes, so its record is bound too
        assertThat(found).extracting(f -> f.file().orElseThrow().getFileName().toString() + " " + f.standing())
                .containsExactly("p-journal.json BOUND", "a-journal.json STRAY", "copy-journal.json BOUND",
                        "o-journal.json OTHER_CLUSTER");
        assertThat(found.get(1).notice("p.json").orElseThrow())
                .contains("they are NOT put back by this run: a run of another plan wrote it (p.json, SHA-256 60303ae22b99…)")
                .endsWith("'execute --plan p.json --restore-journal " + dir.resolve("a-journal.json")
                        + " --reason TEXT'");
    }

    @Test
    void a_record_is_bound_only_when_every_rule_holds() {
        ReorderJournal ours = journal("cluster-1", PLAN_SHA, new RunOwner("h", 1, null, null, -1));
        ReorderJournal version1 = new ReorderJournal(1, "cluster-1", "p.json", null, Instant.EPOCH, "h", 1, null, null,
                null, ours.partitions());

        assertThat(PendingReorders.whyNotBound(ours, "cluster-1", PLAN_SHA, Optional.empty(), () -> ENDED)).isEmpty();
        assertThat(PendingReorders.whyNotBound(ours, "cluster-2", PLAN_SHA, Optional.empty(), () -> ENDED))
                .contains("it records reorders of cluster cluster-1, not of this one (cluster-2)");
        assertThat(PendingReorders.whyNotBound(version1, "cluster-1", PLAN_SHA, Optional.empty(), () -> ENDED))
                .contains("an older version of the tool wrote it, which did not bind it to its plan");
        assertThat(PendingReorders.whyNotBound(ours, "cluster-1", OTHER_SHA, Optional.empty(), () -> ENDED).orElseThrow())
                .startsWith("a run of another plan wrote it");
        // recover, before its plan is on the disk: no record is its own
        assertThat(PendingReorders.whyNotBound(ours, "cluster-1", null, Optional.empty(), () -> ENDED)).isPresent();
        assertThat(PendingReorders.whyNotBound(ours, "cluster-1", PLAN_SHA, Optional.of("/tmp is writable by every"
                + " user"), () -> ENDED)).contains("its directory /tmp is writable by every user: another user could"
                + " have put it there");
        assertThat(PendingReorders.whyNotBound(ours, "cluster-1", PLAN_SHA, Optional.empty(),
                () -> new RunOwner.Seen(RunOwner.Liveness.UNKNOWN, "it ran in another pid namespace")))
                .contains("this host cannot tell whether the run that wrote it has ended: it ran in another pid"
                        + " namespace");
    }

    @Test
    void a_record_in_a_directory_others_may_write_is_not_acted_on_by_itself() throws Exception {
        Path shared = Files.createDirectory(dir.resolve("shared"));
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        ReorderJournal.write(shared.resolve("p-journal.json"), bound());

        PendingReorders found = PendingReorders.beside(shared.resolve("p.json"), "cluster-1", PLAN_SHA).get(0);

        assertThat(found.standing()).isEqualTo(Standing.STRAY);
        assertThat(found.notice("p.json").orElseThrow()).contains("is writable by every user");
    }

    @Test
    void a_stray_record_is_never_acted_on() throws Exception {
        ReorderJournal.write(dir.resolve("a-journal.json"), journal("cluster-1", OTHER_SHA, ended()));
        PendingReorders stray = PendingReorders.beside(dir.resolve("p.json"), "cluster-1", PLAN_SHA).get(0);

        assertThatThrownBy(() -> stray.restoreLeftover(partitions -> {
            throw new AssertionError("a stray record is not acted on: nothing is read");
        }, null, s -> { })).isInstanceOf(IllegalStateException.class).hasMessageContaining("is not this run's to act on");
    }

    @Test
    void a_named_record_must_be_this_clusters_and_exist() throws Exception {
        ReorderJournal.write(dir.resolve("o-journal.json"), journal("cluster-2", OTHER_SHA, ended()));

        assertThatThrownBy(() -> PendingReorders.named(dir.resolve("o-journal.json"), "cluster-1"))
                .isInstanceOf(UserInputException.class)
                .hasMessage("--restore-journal " + dir.resolve("o-journal.json") + " records reorders of cluster"
                        + " cluster-2, but --bootstrap-server is cluster cluster-1; nothing was changed");
        assertThatThrownBy(() -> PendingReorders.named(dir.resolve("none-journal.json"), "cluster-1"))
                .isInstanceOf(UserInputException.class).hasMessageContaining("no such file");
        assertThat(PendingReorders.named(dir.resolve("o-journal.json"), "cluster-2").standing())
                .isEqualTo(Standing.NAMED);
    }

    @Test
    void a_record_whose_writer_still_runs_here_is_named_and_never_advised_away() throws Exception {
        Process writer = new ProcessBuilder("sleep", "60").start();
        try {
            RunOwner self = RunOwner.current();
            RunOwner running = new RunOwner(self.host(), writer.pid(), null, self.table(),
                    RunOwner.Proc.THIS_HOST.startTicks(writer.pid()).orElseThrow());
            ReorderJournal.write(ReorderJournal.pathFor(dir.resolve("p.json")), journal("cluster-1", PLAN_SHA, running));
            PendingReorders left = PendingReorders.named(ReorderJournal.pathFor(dir.resolve("p.json")), "cluster-1");

            assertThatThrownBy(() -> left.restoreLeftover(partitions -> {
                throw new AssertionError("a live run's record is not acted on: nothing is read");
            }, null, s -> { })).isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("the run of pid " + writer.pid() + " on " + self.host() + " (started ")
                    .hasMessageContaining("is changing replica orders right now")
                    .hasMessageNotContaining("remove");
            assertThat(ReorderJournal.pathFor(dir.resolve("p.json"))).exists();
        } finally {
            writer.destroy();
            writer.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void a_record_naming_a_move_is_refused_without_a_request_and_kept() throws Exception {
        CappedController controller = new CappedController();
        controller.put(new TopicPartitionState("orders", Uuid.ZERO_UUID, 0, -1, 7, List.of(1, 2, 3), List.of(),
                List.of(), List.of(1), List.of(1)));
        // what an edited or foreign file may hold: t-0 "back" to [1, 2] while its replicas are [1, 2, 3]
        Path file = dir.resolve("other-journal.json");
        ReorderJournal.write(file, new ReorderJournal(ReorderJournal.VERSION, "cluster-1", "other.json", OTHER_SHA,
                Instant.EPOCH, "h", 1, null, null, null,
                List.of(new ReorderJournal.Reorder("orders", 0, 2, 7, List.of(1, 2), List.of(1, 2, 3)))));
        PendingReorders named = PendingReorders.named(file, "cluster-1");

        assertThatThrownBy(() -> named.restoreLeftover(controller.reader(), new ReplicaOrderRestore(controller.reader(),
                controller.calls(), Duration.ofSeconds(1)), s -> { })).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(ORDERS_0 + " to [1, 2] (the record of " + ORDERS_0 + " is not a reorder")
                .hasMessageContaining("it names a move, which no run of this tool records");
        assertThat(controller.writes("AlterPartitionReassignments")).isEmpty();
        assertThat(controller.state(ORDERS_0).replicas()).containsExactly(1, 2, 3);
        assertThat(file).exists();
    }

    @Test
    void an_order_of_another_replica_set_now_is_left_as_it_is() {
        CappedController controller = new CappedController();
        controller.put(new TopicPartitionState("orders", Uuid.ZERO_UUID, 0, -1, 7, List.of(2, 1), List.of(),
                List.of(), List.of(1), List.of(1)));

        ReplicaOrderRestore.Report report = new ReplicaOrderRestore(controller.reader(), controller.calls(),
                Duration.ofSeconds(1)).restore(List.of(new ReorderJournal.Reorder("orders", 0, 2, 7, List.of(1, 3, 2),
                List.of(2, 1, 3))), s -> { });

        assertThat(report.of(ORDERS_0).orElseThrow().found()).isEqualTo(ReplicaOrderRestore.Found.LEFT_ALONE);
        assertThat(report.of(ORDERS_0).orElseThrow().why()).contains("never a move");
        assertThat(controller.writes("AlterPartitionReassignments")).isEmpty();
    }

    /**
     * After a large election a broker can show a partition as it was before it for seconds (a 19,500-partition run
     * saw 16 s): leaderless at the old epoch, in the original order, while the controller holds the reordered one.
     * Such a read is no proof the order is back: the restore waits for a read that shows the election.
     */
    @Test
    void an_elected_partition_read_from_a_broker_behind_its_election_is_read_again_before_it_is_judged() {
        CappedController controller = new CappedController();
        controller.put(new TopicPartitionState("orders", Uuid.ZERO_UUID, 0, 2, 8, List.of(2, 3, 1), List.of(2),
                List.of(), List.of(), List.of(1)));
        AtomicInteger reads = new AtomicInteger();
        PartitionStateReader behindForTwoReads = asked -> reads.incrementAndGet() <= 2 ? behind(asked)
                : controller.reader().read(asked);

        ReplicaOrderRestore.Report report = new ReplicaOrderRestore(behindForTwoReads, controller.calls(),
                Duration.ofSeconds(10)).restore(List.of(REORDERED), s -> { }, Set.of(ORDERS_0));

        assertThat(report.of(ORDERS_0).orElseThrow().found()).isEqualTo(ReplicaOrderRestore.Found.RESTORED);
        assertThat(controller.writes("AlterPartitionReassignments")).hasSize(1);
        assertThat(controller.state(ORDERS_0).replicas()).containsExactly(1, 3, 2);
        assertThat(reads).hasValueGreaterThan(2);
    }

    @Test
    void an_elected_partition_never_read_past_its_election_is_not_restored_and_keeps_its_record() {
        CappedController controller = new CappedController();
        controller.put(new TopicPartitionState("orders", Uuid.ZERO_UUID, 0, 2, 8, List.of(2, 3, 1), List.of(2),
                List.of(), List.of(), List.of(1)));

        ReplicaOrderRestore.Report report = new ReplicaOrderRestore(PendingReordersTest::behind, controller.calls(),
                Duration.ofSeconds(1)).restore(List.of(REORDERED), s -> { }, Set.of(ORDERS_0));

        assertThat(report.of(ORDERS_0).orElseThrow().found()).isEqualTo(ReplicaOrderRestore.Found.NOT_RESTORED);
        assertThat(report.of(ORDERS_0).orElseThrow().why()).contains("did not show its election");
        assertThat(report.settled()).isFalse();
        assertThat(controller.writes("AlterPartitionReassignments")).isEmpty();
        // not elected by this run: a read of the original order stands as it is
        assertThat(new ReplicaOrderRestore(PendingReordersTest::behind, controller.calls(), Duration.ofSeconds(1))
                .restore(List.of(REORDERED), s -> { }, Set.of()).of(ORDERS_0).orElseThrow().found())
                .isEqualTo(ReplicaOrderRestore.Found.ORIGINAL);
    }

    /** orders-0 reordered from [1, 3, 2] to [2, 3, 1] for 2's election at leader epoch 7 + 1. */
    private static final ReorderJournal.Reorder REORDERED = new ReorderJournal.Reorder("orders", 0, 2, 7,
            List.of(1, 3, 2), List.of(2, 3, 1));

    /** A broker that has applied neither the reorder nor the election: orders-0 leaderless at epoch 7, as planned. */
    private static ClusterSnapshot behind(Set<TopicPartition> asked) {
        return new ClusterSnapshot("cluster", 1000, List.of(), (short) 1, asked.contains(ORDERS_0)
                ? List.of(new TopicPartitionState("orders", Uuid.ZERO_UUID, 0, -1, 7, List.of(1, 3, 2), List.of(),
                List.of(), List.of(1), List.of(1))) : List.of(), Map.of(), Set.of());
    }

    @Test
    void only_an_order_of_the_same_replicas_each_once_is_a_reorder() {
        assertThat(ReplicaOrderRestore.notAReorder(new ReorderJournal.Reorder("t", 0, 2, 1, List.of(1, 3, 2),
                List.of(2, 3, 1)))).isEmpty();
        assertThat(ReplicaOrderRestore.notAReorder(new ReorderJournal.Reorder("t", 0, 2, 1, List.of(1, 2),
                List.of(1, 2, 3)))).isPresent();
        assertThat(ReplicaOrderRestore.notAReorder(new ReorderJournal.Reorder("t", 0, 2, 1, List.of(7, 8, 9),
                List.of(1, 2, 3)))).isPresent();
        assertThat(ReplicaOrderRestore.notAReorder(new ReorderJournal.Reorder("t", 0, 2, 1, List.of(1, 1, 2),
                List.of(1, 2, 2)))).isPresent();
    }
}
