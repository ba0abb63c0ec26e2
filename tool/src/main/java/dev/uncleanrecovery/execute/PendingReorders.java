// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import dev.uncleanrecovery.UserInputException;
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
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;

/**
 * The stock elector's reorders, recorded durably (the file and its name) before the first one, and removed only once
 * a read-back shows that no order it names is left as the run set it. The reorder and the restore are two controller
 * writes with an election between them; a tool killed in between, or a request that failed after the controller
 * applied it, would leave assignments best-first with nobody to say so. The next run of the same plan finds the record
 * and puts those orders back, through the same {@link ReplicaOrderRestore}, before it does anything else.
 *
 * <p>A record is acted on by a run by itself only where it is bound to that run ({@link Standing#BOUND}): written by a
 * run of the very same plan (its SHA-256) against the same cluster, by a process that has provably ended, and lying in
 * a directory that only its owner may write. Any other record of the cluster beside the plan is listed with the command
 * that acts on it ({@code --restore-journal}): a file anyone may drop beside a plan must never send a reassignment.
 */
public final class PendingReorders {

    /** What a run may do with a record it did not write. */
    public enum Standing {
        /** Written by an ended run of this plan against this cluster, in a directory only its owner may write. */
        BOUND,
        /** Named by the operator (--restore-journal): acted on, under the same checks of what it records. */
        NAMED,
        /** Of this cluster, but not bound to this run: listed with the command that acts on it, never acted on. */
        STRAY,
        /** Another cluster's: left alone. */
        OTHER_CLUSTER
    }

    private final Path file;
    private final String clusterId;
    private final String planFile;
    private final Supplier<String> planSha256;
    /** What the file holds, when it was read or written by this run; null before. */
    private ReorderJournal journal;
    /** The reorders recorded: written by this run, or read from the file. */
    private List<ReorderJournal.Reorder> recorded = List.of();
    private Standing standing;
    private String notBound;

    /**
     * @param file       null: nothing is recorded on disk (tests, and electors that change no assignment)
     * @param planSha256 the SHA-256 of the plan file the run applies, once it is known (recover writes its plan
     *                   while the run begins): the record is bound to it
     */
    public PendingReorders(Path file, String clusterId, String planFile, Supplier<String> planSha256) {
        this.file = file;
        this.clusterId = clusterId;
        this.planFile = planFile;
        this.planSha256 = planSha256;
    }

    public static PendingReorders none() {
        return new PendingReorders(null, null, null, () -> null);
    }

    /**
     * The records runs left beside {@code planFile}, this plan's own file first, each with its {@link Standing}: only
     * a bound one is this run's to act on by itself.
     *
     * @param planSha256 the SHA-256 of the plan this run applies; null when it has none yet (recover, before it plans)
     * @throws UncheckedIOException when the folder cannot be listed or a record cannot be read: a record nobody can
     *                              read may still name reorders of this plan, so the run must stop
     */
    public static List<PendingReorders> beside(Path planFile, String clusterId, String planSha256) {
        Path own = ReorderJournal.pathFor(planFile);
        List<PendingReorders> found = new ArrayList<>();
        Path directory = own.getParent();
        if (!Files.exists(directory)) {
            return found; // no folder, no record: the plan cannot be written there either, and says so
        }
        Optional<String> shared = whyShared(directory);
        try (Stream<Path> files = Files.list(directory)) {
            for (Path file : files.filter(f -> f.getFileName().toString().endsWith("-journal.json")).sorted().toList()) {
                ReorderJournal journal = read(file).orElse(null);
                if (journal == null) {
                    continue; // gone meanwhile: another run finished it
                }
                PendingReorders record = new PendingReorders(file, journal.clusterId(), journal.planFile(), () -> null);
                record.holding(journal);
                Optional<String> why = whyNotBound(journal, clusterId, planSha256, shared,
                        () -> writerOf(journal).seen());
                record.standing = !journal.clusterId().equals(clusterId) ? Standing.OTHER_CLUSTER
                        : why.isPresent() ? Standing.STRAY : Standing.BOUND;
                record.notBound = why.orElse(null);
                found.add(file.equals(own) ? 0 : found.size(), record);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot look for interrupted runs' records in " + directory + ": "
                    + e.getMessage() + "; nothing was changed (a record there may name replica orders to put back)", e);
        }
        return found;
    }

    /**
     * The record the operator named (--restore-journal) to be acted on whoever wrote it, as long as it is this
     * cluster's; what it records is checked as any other's (only orders of the same replicas, each only where the
     * cluster still shows it as recorded), and a writer still running stops the run.
     *
     * @throws UserInputException when it is not there, not a journal, or another cluster's
     */
    public static PendingReorders named(Path file, String clusterId) {
        if (!Files.isRegularFile(file)) {
            throw new UserInputException("--restore-journal " + file + ": no such file; give a reorder journal"
                    + " (<plan>-journal.json) a run left");
        }
        ReorderJournal journal;
        try {
            journal = ReorderJournal.readIfPresent(file).orElseThrow(() -> new UserInputException("--restore-journal "
                    + file + ": no such file"));
        } catch (IOException e) {
            throw new UserInputException("--restore-journal " + file + ": cannot be read: " + e.getMessage(), e);
        }
        if (!journal.clusterId().equals(clusterId)) {
            throw new UserInputException("--restore-journal " + file + " records reorders of cluster "
                    + journal.clusterId() + ", but --bootstrap-server is cluster " + clusterId
                    + "; nothing was changed");
        }
        PendingReorders record = new PendingReorders(file.toAbsolutePath(), clusterId, journal.planFile(), () -> null);
        record.holding(journal);
        record.standing = Standing.NAMED;
        return record;
    }

    /**
     * Why a record found beside the plan is not this run's to act on by itself; empty when it is.
     *
     * @param planSha256 this run's plan; null when it has none yet
     * @param shared     why the record's directory is one others may write into; empty when only its owner may
     * @param writer     whether the run that wrote it is over, asked only when all else binds it
     */
    static Optional<String> whyNotBound(ReorderJournal journal, String clusterId, String planSha256,
                                        Optional<String> shared, Supplier<RunOwner.Seen> writer) {
        if (!journal.clusterId().equals(clusterId)) {
            return Optional.of("it records reorders of cluster " + journal.clusterId() + ", not of this one ("
                    + clusterId + ")");
        }
        if (journal.version() < 2 || journal.planSha256() == null) {
            return Optional.of("an older version of the tool wrote it, which did not bind it to its plan");
        }
        if (!journal.planSha256().equals(planSha256)) {
            return Optional.of("a run of another plan wrote it (" + journal.planFile() + ", SHA-256 "
                    + journal.planSha256().substring(0, 12) + "…)");
        }
        if (shared.isPresent()) {
            return Optional.of("its directory " + shared.get() + ": another user could have put it there");
        }
        RunOwner.Seen seen = writer.get();
        if (seen.liveness() == RunOwner.Liveness.UNKNOWN) {
            return Optional.of("this host cannot tell whether the run that wrote it has ended: " + seen.why());
        }
        return Optional.empty();
    }

    /** Why {@code directory} is one others may write into ("/tmp is writable by every user ..."); empty if not. */
    private static Optional<String> whyShared(Path directory) {
        try {
            return DurableFiles.whyNotPrivate(directory).map(why -> directory + " " + why);
        } catch (IOException e) {
            return Optional.of(directory + " cannot be checked (" + e.getMessage() + ")");
        }
    }

    /** The process that wrote {@code journal}, as {@link RunOwner} judges it. */
    static RunOwner writerOf(ReorderJournal journal) {
        RunOwner.ProcessTable table = null;
        if (journal.bootId() != null && journal.pidNamespace() != null) {
            table = new RunOwner.ProcessTable(journal.bootId(), journal.pidNamespace());
        }
        return new RunOwner(journal.host() == null ? "an unnamed host" : journal.host(), journal.pid(), null, table,
                journal.processStartTicks() == null ? -1 : journal.processStartTicks());
    }

    private static Optional<ReorderJournal> read(Path file) {
        try {
            return ReorderJournal.readIfPresent(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage() + "; nothing was changed", e);
        }
    }

    private void holding(ReorderJournal read) {
        journal = read;
        recorded = read.partitions();
    }

    public Optional<Path> file() {
        return Optional.ofNullable(file);
    }

    /** For a record this run found or was given: what it may do with it; null for the one this run writes. */
    public Standing standing() {
        return standing;
    }

    /** What was recorded: written by this run, or read from an interrupted one's file. */
    List<ReorderJournal.Reorder> recorded() {
        return recorded;
    }

    /**
     * Before the first reorder, durably; if it cannot be written, it throws and nothing is changed. A record already
     * there is another run's, which this run did not put back: it is named, never overwritten.
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
        if (file == null) {
            recorded = List.copyOf(entries); // kept in memory: the restore still reads back what this run set
            return;
        }
        String sha256 = planSha256.get();
        if (sha256 == null) {
            throw new IllegalStateException("the plan " + planFile + " is not on the disk yet: its reorders cannot be"
                    + " bound to it; nothing was changed");
        }
        RunOwner self = RunOwner.current();
        RunOwner.ProcessTable table = self.table();
        ReorderJournal written = new ReorderJournal(ReorderJournal.VERSION, clusterId, planFile, sha256, Instant.now(),
                self.host(), self.pid(), table == null ? null : table.bootId(),
                table == null ? null : table.pidNamespace(), self.startTicks() < 0 ? null : self.startTicks(), entries);
        try {
            if (Files.exists(file)) {
                throw new IllegalStateException(otherRun(read(file).orElse(null)) + " holds " + file + ": it is still"
                        + " running, or this run did not put its orders back (see above); nothing was changed. Once"
                        + " that run has ended: " + commandFor(planFile, file));
            }
            ReorderJournal.write(file, written);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot record the reorders in " + file + " before making them: "
                    + e.getMessage() + "; nothing changed", e);
        }
        holding(written);
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
        journal = null;
        recorded = List.of();
    }

    /** Where this run's unsettled orders are kept, and how they are put back: for its outcomes. */
    Optional<String> keptNote() {
        return file().map(f -> "; " + f + " keeps the record: run execute again, it reads the orders back and puts"
                + " back what is still as this run set it");
    }

    /**
     * For a record this run does not act on, and for a dry run, which changes nothing: what a real run does with it,
     * and for a record not bound to this run the command that acts on it.
     *
     * @param planFile the plan of the run that found it, for the command
     */
    public Optional<String> notice(String planFile) {
        if (file == null || journal == null) {
            return Optional.empty();
        }
        String what = otherRun(journal) + " recorded reorders of " + recorded.size() + " partition(s) in " + file;
        return Optional.of(switch (standing) {
            case BOUND -> what + " and did not finish: a real run first puts back the replica orders still as it left"
                    + " them";
            case NAMED -> what + ": a real run first puts back, as --restore-journal asks, the replica orders still"
                    + " as that run left them";
            case STRAY -> what + "; they are NOT put back by this run: " + notBound + ". If that run has ended and"
                    + " they are to be put back: " + commandFor(planFile, file);
            case OTHER_CLUSTER -> what + "; left alone: " + notBound;
        });
    }

    /** The command that puts back what {@code journal} records, as the operator would run it beside {@code plan}. */
    static String commandFor(String plan, Path journal) {
        return "'execute --plan " + plan + " --restore-journal " + journal + " --reason TEXT'";
    }

    /**
     * A record left by a run that did not finish: puts back every order it changed that is still as that run left
     * it, and says per partition what that run did. The record is removed once nothing is left to restore.
     *
     * @return per partition of the record, what the interrupted run left and what was done about it
     * @throws IllegalStateException when an order could not be restored (the record stays for the next run), or when
     *                               the run that wrote it still runs
     */
    public Map<TopicPartition, String> restoreLeftover(PartitionStateReader reader, ReplicaOrderRestore restore,
                                                       Consumer<String> progress) {
        if (journal == null) {
            return Map.of();
        }
        if (standing != Standing.BOUND && standing != Standing.NAMED) {
            throw new IllegalStateException(file + " is not this run's to act on: " + notBound);
        }
        ReorderJournal left = journal;
        if (writerOf(left).seen().liveness() == RunOwner.Liveness.RUNNING) {
            throw new IllegalStateException(otherRun(left) + " is changing replica orders right now (" + file + "):"
                    + " nothing was changed; run again once it has finished");
        }
        progress.accept(otherRun(left) + " did not finish: it recorded reorders of " + left.partitions().size()
                + " partition(s) in " + file + (standing == Standing.NAMED ? " (--restore-journal)" : "")
                + "; checking them");
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
                case REFUSED -> "a journal (" + file + ") records " + r.originalReplicas() + " for it; " + v.describe();
                default -> "an interrupted run had reordered it to " + r.reorderedReplicas() + led + "; " + v.describe();
            });
        }
        if (!report.settled()) {
            boolean moves = report.count(ReplicaOrderRestore.Found.REFUSED) > 0;
            throw new IllegalStateException("the replica orders " + file + " records could not all be restored: "
                    + report.verdicts().values().stream().filter(v -> !v.found().settled())
                            .map(v -> v.reorder().topicPartition() + " to " + v.reorder().originalReplicas() + " ("
                                    + v.why() + ")").collect(Collectors.joining(", "))
                    + "; nothing else was done. " + file + " keeps the record: " + (moves
                    ? "it names a move, which no run of this tool records; find out who wrote it, and remove it"
                    : "run again, or restore them with kafka-reassign-partitions.sh and remove it"));
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
