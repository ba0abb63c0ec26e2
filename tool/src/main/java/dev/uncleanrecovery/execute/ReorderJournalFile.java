// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import dev.uncleanrecovery.cluster.ClusterSnapshot;
import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.execute.ControllerCalls;
import dev.uncleanrecovery.plan.ReorderJournal;
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
import org.apache.kafka.common.TopicPartition;

/**
 * The stock elector's reorders, recorded on the disk before the first one and removed once every one is restored.
 * The reorder and the restore are two controller writes with an election between them; a tool killed in between
 * would leave assignments best-first with nobody to say so. The next run of the same plan finds the record and
 * puts those orders back before it does anything else.
 */
public final class ReorderJournalFile {

    private final Path file;
    private final String clusterId;
    private final String planFile;

    /** @param file null: nothing is recorded (tests, and electors that change no assignment) */
    public ReorderJournalFile(Path file, String clusterId, String planFile) {
        this.file = file;
        this.clusterId = clusterId;
        this.planFile = planFile;
    }

    public static ReorderJournalFile none() {
        return new ReorderJournalFile(null, null, null);
    }

    /** Whether any run left a record beside {@code planFile} (no cluster read needed to say no). */
    public static boolean anyBeside(Path planFile) {
        try (var files = Files.list(ReorderJournal.pathFor(planFile).getParent())) {
            return files.anyMatch(f -> f.getFileName().toString().endsWith("-journal.json"));
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * The records other runs against this cluster left beside {@code planFile}: 'recover' writes a new plan each
     * time, so a run killed midway left its record under another plan's name.
     */
    public static List<ReorderJournalFile> othersBeside(Path planFile, String clusterId) {
        Path own = ReorderJournal.pathFor(planFile);
        List<ReorderJournalFile> others = new ArrayList<>();
        try (var files = Files.list(own.getParent())) {
            for (Path file : files.filter(f -> f.getFileName().toString().endsWith("-journal.json") && !f.equals(own))
                    .sorted().toList()) {
                Optional<ReorderJournal> journal = ReorderJournal.readIfPresent(file);
                if (journal.isPresent() && journal.get().clusterId().equals(clusterId)) {
                    others.add(new ReorderJournalFile(file, clusterId, journal.get().planFile()));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot look for interrupted runs' records in " + own.getParent() + ": "
                    + e.getMessage(), e);
        }
        return others;
    }

    public Optional<Path> file() {
        return Optional.ofNullable(file);
    }

    /** Before the first reorder; if it cannot be written, it throws and nothing is changed. */
    void record(Map<TopicPartition, ElectionTarget> targets, Map<TopicPartition, List<Integer>> reorders) {
        if (file == null || reorders.isEmpty()) {
            return;
        }
        List<ReorderJournal.Reorder> entries = new ArrayList<>();
        reorders.forEach((tp, order) -> {
            ElectionTarget t = targets.get(tp);
            entries.add(new ReorderJournal.Reorder(tp.topic(), tp.partition(), t.designatedLeader(),
                    t.expectedLeaderEpoch(), t.expectedReplicas(), order));
        });
        try {
            ReorderJournal.write(file, new ReorderJournal(ReorderJournal.VERSION, clusterId, planFile, Instant.now(),
                    thisHost(), ProcessHandle.current().pid(), entries));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot record the reorders in " + file + " before making them: "
                    + e.getMessage() + "; nothing changed", e);
        }
    }

    /** Every order the record names is back as it was: it is no longer needed. */
    void restored() {
        if (file == null) {
            return;
        }
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new UncheckedIOException("every replica order is restored, but " + file + " could not be removed: "
                    + e.getMessage() + "; remove it by hand", e);
        }
    }

    /** For a dry run, which changes nothing: what a real run would restore first. */
    public Optional<String> leftoverNotice() {
        if (file == null || !Files.exists(file)) {
            return Optional.empty();
        }
        return Optional.of("an earlier run did not finish and left " + file + ": a real run first restores the replica"
                + " orders it recorded");
    }

    /**
     * A record left by a run that did not finish: puts back every order it changed that is still as that run left
     * it, and says per partition what that run did. The record is removed once nothing is left to restore.
     *
     * @return per partition of the record, what the interrupted run left and what was done about it
     * @throws IllegalStateException when an order could not be restored (the record stays for the next run)
     */
    public Map<TopicPartition, String> restoreLeftover(PartitionStateReader reader, ControllerCalls controller,
                                                       Consumer<String> progress) {
        Optional<ReorderJournal> journal;
        try {
            journal = file == null ? Optional.empty() : ReorderJournal.readIfPresent(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
        if (journal.isEmpty()) {
            return Map.of();
        }
        ReorderJournal left = journal.get();
        if (clusterId != null && !clusterId.equals(left.clusterId())) {
            return Map.of(); // another cluster's: not ours to touch
        }
        if (stillRunning(left)) {
            progress.accept("another run (pid " + left.pid() + ", started " + left.startedAt() + ") is changing replica"
                    + " orders right now (" + file + "); its record is left alone");
            return Map.of();
        }
        progress.accept("an earlier run (pid " + left.pid() + ", started " + left.startedAt() + ") did not finish: it"
                + " recorded reorders of " + left.partitions().size() + " partition(s) in " + file + "; checking them");
        Set<TopicPartition> partitions = left.partitions().stream().map(ReorderJournal.Reorder::topicPartition)
                .collect(Collectors.toSet());
        ClusterSnapshot now = reader.read(partitions);
        Map<TopicPartition, String> notes = new LinkedHashMap<>();
        Map<TopicPartition, List<Integer>> toRestore = new LinkedHashMap<>();
        for (ReorderJournal.Reorder r : left.partitions()) {
            TopicPartition tp = r.topicPartition();
            Optional<TopicPartitionState> state = now.partition(tp);
            if (state.isEmpty()) {
                notes.put(tp, "an interrupted run had reordered it; the partition no longer exists");
                continue;
            }
            String led = ledBy(r, state.get());
            if (state.get().replicas().equals(r.reorderedReplicas()) && !r.reorderedReplicas().equals(r.originalReplicas())) {
                toRestore.put(tp, r.originalReplicas());
                notes.put(tp, "an interrupted run had reordered it to " + r.reorderedReplicas() + led
                        + "; original order " + r.originalReplicas() + " restored");
            } else if (state.get().replicas().equals(r.originalReplicas())) {
                notes.put(tp, "an interrupted run had recorded a reorder" + led + "; the order is the original "
                        + r.originalReplicas());
            } else {
                notes.put(tp, "an interrupted run had reordered it to " + r.reorderedReplicas() + led
                        + "; the order is now " + state.get().replicas() + ", changed by someone else: left as it is");
            }
        }
        Map<TopicPartition, String> failures = Map.of();
        if (!toRestore.isEmpty()) {
            progress.accept("restoring the original replica order of " + toRestore.size()
                    + " partition(s) the interrupted run left best-first");
            failures = controller.reassignAll(toRestore);
        }
        if (!failures.isEmpty()) {
            throw new IllegalStateException("an interrupted run left replica orders that could not be restored: "
                    + failures.entrySet().stream().map(e -> e.getKey() + " to " + toRestore.get(e.getKey()) + " ("
                            + e.getValue() + ")").collect(Collectors.joining(", "))
                    + "; nothing else was done. " + file + " keeps the record: run again, or restore them with"
                    + " kafka-reassign-partitions.sh and remove it");
        }
        awaitVisible(reader, toRestore);
        restored();
        return notes;
    }

    /** How long a restored order may take to reach the broker that is read next. */
    private static final java.time.Duration RESTORE_VISIBLE = java.time.Duration.ofSeconds(10);

    /**
     * Until a read shows every restored order: the controller has committed them, but a broker learns them from the
     * metadata log a moment later, and a plan made from a broker that has not would carry the reordered set.
     */
    private static void awaitVisible(PartitionStateReader reader, Map<TopicPartition, List<Integer>> restored) {
        if (restored.isEmpty()) {
            return;
        }
        long deadline = System.nanoTime() + RESTORE_VISIBLE.toNanos();
        while (true) {
            ClusterSnapshot seen = reader.read(restored.keySet());
            boolean all = restored.entrySet().stream().allMatch(e -> seen.partition(e.getKey())
                    .map(p -> p.replicas().equals(e.getValue())).orElse(true));
            if (all || System.nanoTime() > deadline) {
                // past the deadline the re-check before any election refuses a partition still seen otherwise
                return;
            }
            dev.uncleanrecovery.support.Pause.millis(100, "a restored replica order reaching the brokers");
        }
    }

    /** Its writer runs on this host still (the JVM of another execute or recover). */
    private static boolean stillRunning(ReorderJournal journal) {
        return thisHost().equals(journal.host()) && journal.pid() != ProcessHandle.current().pid()
                && ProcessHandle.of(journal.pid()).map(ProcessHandle::isAlive).orElse(false);
    }

    private static String thisHost() {
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.net.UnknownHostException e) {
            return "unknown";
        }
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
