// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import dev.uncleanrecovery.cluster.ClusterSnapshot;
import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.formats.ReorderJournal;
import dev.uncleanrecovery.support.DurableFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;

/**
 * The stock elector's reorders, recorded durably (the file and its name) before the first one, and removed only once
 * a read-back shows that no order it names is left as the run set it. The reorder and the restore are two controller
 * writes with an election between them; a tool killed in between, or a request that failed after the controller
 * applied it, would leave assignments best-first with nobody to say so. The next run of the same plan finds the record
 * and puts those orders back, through the same {@link ReplicaOrderRestore}, before it does anything else.
 */
public final class PendingReorders {

    private final Path file;
    private final String clusterId;
    private final String planFile;
    private ReorderJournal written;

    /** @param file null: nothing is recorded (tests, and electors that change no assignment) */
    public PendingReorders(Path file, String clusterId, String planFile) {
        this.file = file;
        this.clusterId = clusterId;
        this.planFile = planFile;
    }

    public static PendingReorders none() {
        return new PendingReorders(null, null, null);
    }

    /**
     * The records runs left beside {@code planFile}, this plan's first: 'recover' writes a new plan each time, so a run
     * killed midway left its record under another plan's name. Records of other clusters are not listed.
     *
     * @throws UncheckedIOException when the folder cannot be listed or a record cannot be read: a record nobody can
     *                              read may still name reorders, so the run must stop
     */
    public static List<PendingReorders> beside(Path planFile, String clusterId) {
        Path own = ReorderJournal.pathFor(planFile);
        List<PendingReorders> found = new ArrayList<>();
        if (!Files.exists(own.getParent())) {
            return found; // no folder, no record: the plan cannot be written there either, and says so
        }
        try (Stream<Path> files = Files.list(own.getParent())) {
            for (Path file : files.filter(f -> f.getFileName().toString().endsWith("-journal.json")).sorted().toList()) {
                ReorderJournal journal = read(file).orElse(null);
                if (journal == null || !journal.clusterId().equals(clusterId)) {
                    continue; // gone meanwhile (another run finished it), or another cluster's: not ours to touch
                }
                PendingReorders record = new PendingReorders(file, clusterId, journal.planFile());
                record.written = journal;
                if (file.equals(own)) {
                    found.add(0, record);
                } else {
                    found.add(record);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot look for interrupted runs' records in " + own.getParent() + ": "
                    + e.getMessage() + "; nothing was changed (a record there may name replica orders to put back)", e);
        }
        return found;
    }

    private static Optional<ReorderJournal> read(Path file) {
        try {
            return ReorderJournal.readIfPresent(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage() + "; nothing was changed", e);
        }
    }

    public Optional<Path> file() {
        return Optional.ofNullable(file);
    }

    /** What is recorded: written by this run, or read from an interrupted one's file. */
    List<ReorderJournal.Reorder> recorded() {
        return written == null ? List.of() : written.partitions();
    }

    /**
     * Before the first reorder, durably; if it cannot be written, it throws and nothing is changed. A record of this
     * plan already there is another run's (it would have been restored before this one began): it is named, never
     * overwritten.
     */
    void record(Map<TopicPartition, ElectionTarget> targets, Map<TopicPartition, List<Integer>> reorders) {
        if (reorders.isEmpty()) {
            return;
        }
        List<ReorderJournal.Reorder> entries = new ArrayList<>();
        reorders.forEach((tp, order) -> {
            ElectionTarget t = targets.get(tp);
            entries.add(new ReorderJournal.Reorder(tp.topic(), tp.partition(), t.designatedLeader(),
                    t.expectedLeaderEpoch(), t.expectedReplicas(), order));
        });
        ReorderJournal journal = new ReorderJournal(ReorderJournal.VERSION, clusterId, planFile, Instant.now(),
                RunOwner.thisHost(), ProcessHandle.current().pid(), entries);
        if (file == null) {
            written = journal; // kept in memory: the restore still reads back what this run set
            return;
        }
        try {
            if (Files.exists(file)) {
                throw new IllegalStateException(otherRun(read(file).orElse(null)) + " holds " + file + ": it is still"
                        + " running, or it was interrupted and the next run puts its orders back first; nothing was"
                        + " changed");
            }
            ReorderJournal.write(file, journal);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot record the reorders in " + file + " before making them: "
                    + e.getMessage() + "; nothing changed", e);
        }
        written = journal;
    }

    /**
     * Puts back, through {@code restore}, every recorded order the cluster still shows as this record's run set it;
     * the record is removed (durably) only when the read-back shows none is left.
     */
    ReplicaOrderRestore.Report restoreRecorded(ReplicaOrderRestore restore, Consumer<String> progress) {
        return restoreRecorded(restore, progress, false);
    }

    /**
     * @param keep the record stays whatever the read-back shows: after a controller write that failed without an
     *             answer, the controller may still apply it (a request waiting in a frozen controller's socket is
     *             read when it resumes), and only a later read can tell
     */
    ReplicaOrderRestore.Report restoreRecorded(ReplicaOrderRestore restore, Consumer<String> progress, boolean keep) {
        return restoreRecorded(restore, progress, keep, Set.of());
    }

    /** As {@link #restoreRecorded(ReplicaOrderRestore, Consumer, boolean)}; {@code led}: see ReplicaOrderRestore. */
    ReplicaOrderRestore.Report restoreRecorded(ReplicaOrderRestore restore, Consumer<String> progress, boolean keep,
                                               Set<TopicPartition> led) {
        ReplicaOrderRestore.Report report = restore.restore(recorded(), progress, led);
        if (report.settled() && !keep) {
            remove();
        }
        return report;
    }

    private void remove() {
        if (file == null) {
            return;
        }
        try {
            DurableFiles.delete(file);
        } catch (IOException e) {
            throw new UncheckedIOException("every recorded replica order is settled, but " + file + " could not be"
                    + " removed: " + e.getMessage() + "; remove it by hand", e);
        }
        written = null;
    }

    /** For a dry run, which changes nothing: what a real run would restore first. */
    public Optional<String> leftoverNotice() {
        if (file == null || written == null) {
            return Optional.empty();
        }
        return Optional.of(otherRun(written) + " did not finish and left " + file + ": a real run first puts back the"
                + " replica orders it recorded that are still as it left them");
    }

    /**
     * A record left by a run that did not finish: puts back every order it changed that is still as that run left
     * it, and says per partition what that run did. The record is removed once nothing is left to restore.
     *
     * @return per partition of the record, what the interrupted run left and what was done about it
     * @throws IllegalStateException when an order could not be restored (the record stays for the next run)
     */
    public Map<TopicPartition, String> restoreLeftover(PartitionStateReader reader, ReplicaOrderRestore restore,
                                                       Consumer<String> progress) {
        if (written == null) {
            return Map.of();
        }
        ReorderJournal left = written;
        if (stillRunning(left)) {
            throw new IllegalStateException(otherRun(left) + " is changing replica orders right now (" + file + "):"
                    + " nothing was changed; run again once it has finished");
        }
        progress.accept(otherRun(left) + " did not finish: it recorded reorders of " + left.partitions().size()
                + " partition(s) in " + file + "; checking them");
        ClusterSnapshot leaders = reader.read(left.partitions().stream().map(ReorderJournal.Reorder::topicPartition)
                .collect(Collectors.toSet()));
        ReplicaOrderRestore.Report report = restoreRecorded(restore, progress);
        Map<TopicPartition, String> notes = new LinkedHashMap<>();
        for (ReorderJournal.Reorder r : left.partitions()) {
            ReplicaOrderRestore.Verdict v = report.of(r.topicPartition()).orElseThrow();
            String led = leaders.partition(r.topicPartition()).map(state -> ledBy(r, state)).orElse("");
            notes.put(r.topicPartition(), switch (v.found()) {
                case RESTORED -> "an interrupted run had reordered it to " + r.reorderedReplicas() + led + "; "
                        + v.describe();
                case ORIGINAL -> "an interrupted run had recorded a reorder" + led + "; the order is the original "
                        + r.originalReplicas();
                default -> "an interrupted run had reordered it to " + r.reorderedReplicas() + led + "; " + v.describe();
            });
        }
        if (!report.settled()) {
            throw new IllegalStateException("an interrupted run left replica orders that could not be restored: "
                    + report.verdicts().values().stream().filter(v -> !v.found().settled())
                            .map(v -> v.reorder().topicPartition() + " to " + v.reorder().originalReplicas() + " ("
                                    + v.why() + ")").collect(Collectors.joining(", "))
                    + "; nothing else was done. " + file + " keeps the record: run again, or restore them with"
                    + " kafka-reassign-partitions.sh and remove it");
        }
        return notes;
    }

    /** "the run of pid 4242 on host-a (started 2026-12-04T05:00:00Z)". */
    private static String otherRun(ReorderJournal journal) {
        if (journal == null) {
            return "another run";
        }
        return "the run of pid " + journal.pid() + " on " + journal.host() + " (started " + journal.startedAt() + ")";
    }

    /**
     * Its writer runs on this host still (the JVM of another execute or recover): the same pid, alive, and started
     * before the record was written (a pid reused by a later process is not the writer).
     */
    private static boolean stillRunning(ReorderJournal journal) {
        if (!RunOwner.thisHost().equals(journal.host()) || journal.pid() == ProcessHandle.current().pid()) {
            return false;
        }
        return ProcessHandle.of(journal.pid()).filter(ProcessHandle::isAlive)
                .map(p -> p.info().startInstant().map(started -> !started.isAfter(journal.startedAt())).orElse(true))
                .orElse(false);
    }

    private static String ledBy(ReorderJournal.Reorder r, TopicPartitionState state) {
        if (state.isOffline()) {
            return " and elected nobody";
        }
        if (state.leader() == r.designatedLeader() && r.leaderEpoch() >= 0 && state.leaderEpoch() == r.leaderEpoch() + 1) {
            return " and elected designated " + r.designatedLeader() + " (leader epoch " + state.leaderEpoch() + ")";
        }
        return ", and it is led by " + state.leader() + " (leader epoch " + state.leaderEpoch() + ")";
    }
}
