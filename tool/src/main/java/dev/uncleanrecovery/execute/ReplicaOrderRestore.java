// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import dev.uncleanrecovery.cluster.ClusterSnapshot;
import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.formats.ReorderJournal;
import dev.uncleanrecovery.support.Pause;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.kafka.common.TopicPartition;

/**
 * Puts back the replica orders a journal records, and only those the cluster still shows as that run set them: the one
 * way the stock elector's own restore, its restore after a failure midway, and the next run's restore of an
 * interrupted run all work. Nothing is assumed from what a request returned: every order is read back before it is
 * touched and after. An order found otherwise (changed by someone else, a reassignment in progress that is not the
 * tool's) is left alone and said so: AlterPartitionReassignments has no compare-and-set, and writing the recorded
 * order over someone else's would cancel their reassignment or undo another run's reorder.
 *
 * <p>Only an order is ever put back, never a move: a recorded entry whose original and reordered replicas are not the
 * same set is refused without a request, and one whose partition's replicas now are another set is left alone. A
 * reassignment to another set starts moving data, and on an offline partition it stays pending until a leader is
 * elected, then drops replicas — the one with the longest log among them, as like as not.
 */
public final class ReplicaOrderRestore {

    /** What the read-back found of one recorded reorder, and what was done about it. */
    public enum Found {
        /** The order is the original one: the reorder was never applied, or was put back before. */
        ORIGINAL,
        /** It was as the run left it and has been put back; read back as the original. */
        RESTORED,
        /** Someone else changed it, or a reassignment that is not the tool's is in progress: left alone. */
        LEFT_ALONE,
        /** The partition no longer exists. */
        GONE,
        /** Still as the run left it, or not known: the restore failed or the order could not be read. */
        NOT_RESTORED,
        /**
         * The record is not a reorder (its original and reordered replicas differ as sets): nothing is sent, and the
         * journal stays for the operator to look at, since no run of this tool writes such a record.
         */
        REFUSED;

        /** Nothing left for a later run to put back, or for the operator to look at. */
        public boolean settled() {
            return this != NOT_RESTORED && this != REFUSED;
        }
    }

    /** One recorded reorder as found. */
    public record Verdict(ReorderJournal.Reorder reorder, Found found, List<Integer> replicasNow, String why) {

        /** For a partition's outcome: "replica order [1, 3, 2] restored", or what stands in the way. */
        public String describe() {
            List<Integer> original = reorder.originalReplicas();
            return switch (found) {
                case ORIGINAL -> "replica order " + original + " unchanged";
                case RESTORED -> "replica order " + original + " restored";
                case GONE -> "the partition no longer exists";
                case LEFT_ALONE -> "replica order NOT restored: " + why + "; before this tool's reorder it was "
                        + original;
                case NOT_RESTORED -> "the original replica order " + original + " could NOT be restored (" + why + ")";
                case REFUSED -> "NOT restored: " + why;
            };
        }
    }

    /** Every recorded reorder as found; {@link #settled} when no order is left for a later run. */
    public record Report(Map<TopicPartition, Verdict> verdicts) {

        public Report {
            verdicts = Map.copyOf(verdicts);
        }

        public boolean settled() {
            return verdicts.values().stream().allMatch(v -> v.found().settled());
        }

        public Optional<Verdict> of(TopicPartition tp) {
            return Optional.ofNullable(verdicts.get(tp));
        }

        public long count(Found found) {
            return verdicts.values().stream().filter(v -> v.found() == found).count();
        }
    }

    private final PartitionStateReader reader;
    private final ControllerCalls controller;
    private final Duration visibleWithin;

    /** @param visibleWithin how long a restored order may take to show on the brokers the read-back asks */
    public ReplicaOrderRestore(PartitionStateReader reader, ControllerCalls controller, Duration visibleWithin) {
        this.reader = reader;
        this.controller = controller;
        this.visibleWithin = visibleWithin;
    }

    /**
     * Reads the recorded partitions, puts back those found as reordered, and reads them back until the brokers show
     * the original order (or {@code visibleWithin} passes: then they count as not restored, and the journal stays).
     */
    public Report restore(List<ReorderJournal.Reorder> recorded, Consumer<String> progress) {
        return restore(recorded, progress, Set.of());
    }

    /**
     * As {@link #restore(List, Consumer)}, but a partition in {@code led} that the controller accepts the restore of
     * counts as restored on that answer: the controller answers AlterPartitionReassignments only once the change is
     * committed to the metadata log, and a led partition is not planned again, so no later read can mistake the
     * reordered set for its assignment. Its broker is busy taking the leadership over and can show the order a second
     * or more later.
     */
    public Report restore(List<ReorderJournal.Reorder> recorded, Consumer<String> progress, Set<TopicPartition> led) {
        Map<TopicPartition, ReorderJournal.Reorder> byPartition = new LinkedHashMap<>();
        Map<TopicPartition, Verdict> verdicts = new LinkedHashMap<>();
        for (ReorderJournal.Reorder r : recorded) {
            Optional<String> notAReorder = notAReorder(r);
            if (notAReorder.isPresent()) {
                verdicts.put(r.topicPartition(), new Verdict(r, Found.REFUSED, null, notAReorder.get()));
            } else {
                byPartition.put(r.topicPartition(), r);
            }
        }
        if (byPartition.isEmpty()) {
            return new Report(verdicts);
        }
        Map<TopicPartition, List<Integer>> toRestore = new LinkedHashMap<>();
        Set<TopicPartition> unread = new LinkedHashSet<>(byPartition.keySet());
        long deadline = System.nanoTime() + visibleWithin.toNanos();
        while (true) {
            ClusterSnapshot now;
            try {
                now = reader.readOrders(Set.copyOf(unread));
            } catch (RuntimeException e) {
                // The reassignments in progress are the controller's to list: without them nothing is put back, but
                // the brokers' metadata still says what the orders are.
                Map<TopicPartition, ReorderJournal.Reorder> left = new LinkedHashMap<>();
                unread.forEach(tp -> left.put(tp, byPartition.get(tp)));
                verdicts.putAll(unrestorable(left, "the reassignments in progress could not be listed ("
                        + e.getMessage() + ")").verdicts());
                unread.clear();
                break;
            }
            for (TopicPartition tp : List.copyOf(unread)) {
                ReorderJournal.Reorder r = byPartition.get(tp);
                if (led.contains(tp) && readBeforeItsElection(r, now)) {
                    continue; // this broker has not applied the election yet, nor the reorder before it
                }
                unread.remove(tp);
                Verdict found = compare(r, now);
                if (found == null) {
                    toRestore.put(tp, r.originalReplicas());
                } else {
                    verdicts.put(tp, found);
                }
            }
            if (unread.isEmpty() || System.nanoTime() > deadline) {
                break;
            }
            // each read lists the reassignments and describes the partitions: a broker catching up is not rushed
            Pause.millis(250, "the brokers' metadata showing the elections");
        }
        unread.forEach(tp -> verdicts.put(tp, new Verdict(byPartition.get(tp), Found.NOT_RESTORED, null, "the brokers"
                + " asked did not show its election within " + visibleWithin.toSeconds() + " s, so its order could not"
                + " be read as it stands")));
        if (toRestore.isEmpty()) {
            return new Report(verdicts);
        }
        progress.accept("restoring the original replica order of " + toRestore.size() + " partition(s)");
        Map<TopicPartition, String> refused;
        String failure = null;
        try {
            refused = controller.reassign(toRestore);
        } catch (RuntimeException e) {
            // The controller may have applied some of them all the same: one read-back tells which.
            refused = Map.of();
            failure = "the restore failed: " + e.getMessage();
            progress.accept(failure + "; reading the orders back");
        }
        refused.forEach((tp, why) -> verdicts.put(tp, new Verdict(byPartition.get(tp), Found.NOT_RESTORED,
                byPartition.get(tp).reorderedReplicas(), "the controller refused: " + why)));
        Map<TopicPartition, List<Integer>> sent = new LinkedHashMap<>(toRestore);
        sent.keySet().removeAll(refused.keySet());
        if (failure == null) {
            for (TopicPartition tp : List.copyOf(sent.keySet())) {
                if (led.contains(tp)) {
                    sent.remove(tp);
                    verdicts.put(tp, new Verdict(byPartition.get(tp), Found.RESTORED,
                            byPartition.get(tp).originalReplicas(), null));
                }
            }
        }
        verdicts.putAll(readBack(sent, byPartition, failure == null ? visibleWithin : Duration.ZERO, failure));
        return new Report(verdicts);
    }

    /** Each recorded order as the brokers' metadata shows it, none put back: {@code why} stands in the way. */
    private Report unrestorable(Map<TopicPartition, ReorderJournal.Reorder> recorded, String why) {
        Map<TopicPartition, Verdict> verdicts = new LinkedHashMap<>();
        ClusterSnapshot seen = null;
        try {
            seen = reader.read(recorded.keySet());
        } catch (RuntimeException e) {
            // not even the orders: every one counts as not restored
        }
        for (ReorderJournal.Reorder r : recorded.values()) {
            Verdict found = seen == null ? null : compare(r, seen);
            if (seen == null) {
                verdicts.put(r.topicPartition(), new Verdict(r, Found.NOT_RESTORED, null, why + "; the orders could not"
                        + " be read either"));
            } else if (found == null) {
                verdicts.put(r.topicPartition(), new Verdict(r, Found.NOT_RESTORED, r.reorderedReplicas(), "found as "
                        + r.reorderedReplicas() + ", the order this run set; " + why));
            } else {
                verdicts.put(r.topicPartition(), found);
            }
        }
        return new Report(verdicts);
    }

    /**
     * Why a recorded entry is no reorder: its original and reordered replicas are not the same replicas, each once.
     * Empty for a reorder.
     */
    static Optional<String> notAReorder(ReorderJournal.Reorder r) {
        List<Integer> original = r.originalReplicas();
        List<Integer> reordered = r.reorderedReplicas();
        if (Set.copyOf(original).size() == original.size() && original.size() == reordered.size()
                && Set.copyOf(original).equals(Set.copyOf(reordered))) {
            return Optional.empty();
        }
        return Optional.of("the record of " + r.topicPartition() + " is not a reorder: original " + original
                + " and reordered " + reordered + " are not the same replicas, and a restore only puts back an order,"
                + " never a move; nothing was sent for it");
    }

    /**
     * Whether the read predates the election of a partition this run elected: a broker applies the metadata log in
     * order, so one that shows the new leader epoch shows the reorder written before it too, and one that does not
     * may still show the original order although the controller holds the reordered one.
     */
    private static boolean readBeforeItsElection(ReorderJournal.Reorder r, ClusterSnapshot now) {
        return now.partition(r.topicPartition()).map(p -> p.leaderEpoch() <= r.leaderEpoch()).orElse(false);
    }

    /** The verdict from the order as read, or null when it is as the run left it (to be put back). */
    private static Verdict compare(ReorderJournal.Reorder r, ClusterSnapshot now) {
        Optional<TopicPartitionState> state = now.partition(r.topicPartition());
        if (state.isEmpty()) {
            return new Verdict(r, Found.GONE, null, "no longer exists");
        }
        List<Integer> replicas = state.get().replicas();
        if (now.reassigning().contains(r.topicPartition())) {
            return new Verdict(r, Found.LEFT_ALONE, replicas, "a reassignment this tool did not start is in progress"
                    + " (replicas now " + replicas + "); left alone");
        }
        if (replicas.size() != r.originalReplicas().size()
                || !Set.copyOf(replicas).equals(Set.copyOf(r.originalReplicas()))) {
            return new Verdict(r, Found.LEFT_ALONE, replicas, "its replicas are now " + replicas + ", not the replicas "
                    + r.originalReplicas() + " the record names: a restore only puts back an order, never a move; left"
                    + " as it is");
        }
        if (replicas.equals(r.originalReplicas())) {
            return new Verdict(r, Found.ORIGINAL, replicas, null);
        }
        if (replicas.equals(r.reorderedReplicas())) {
            return null;
        }
        return new Verdict(r, Found.LEFT_ALONE, replicas, "someone else changed it to " + replicas + "; left as it is");
    }

    /**
     * Until a read shows every restored order: the controller has committed them, but a broker learns them from the
     * metadata log a moment later, and a plan or a re-check made from a broker that has not would see the reordered set.
     */
    private Map<TopicPartition, Verdict> readBack(Map<TopicPartition, List<Integer>> sent,
                                                  Map<TopicPartition, ReorderJournal.Reorder> recorded, Duration wait,
                                                  String restoreFailure) {
        Map<TopicPartition, Verdict> verdicts = new LinkedHashMap<>();
        if (sent.isEmpty()) {
            return verdicts;
        }
        Set<TopicPartition> waiting = new java.util.HashSet<>(sent.keySet());
        long deadline = System.nanoTime() + wait.toNanos();
        String lastFailure = null;
        while (true) {
            try {
                ClusterSnapshot now = reader.readOrders(Set.copyOf(waiting));
                lastFailure = null;
                for (TopicPartition tp : List.copyOf(waiting)) {
                    Verdict found = compare(recorded.get(tp), now);
                    if (found != null) {
                        waiting.remove(tp);
                        // read back as the original: ours went through
                        verdicts.put(tp, found.found() == Found.ORIGINAL
                                ? new Verdict(found.reorder(), Found.RESTORED, found.replicasNow(), null) : found);
                    }
                }
            } catch (RuntimeException e) {
                lastFailure = e.getMessage();
            }
            if (waiting.isEmpty() || System.nanoTime() > deadline) {
                break;
            }
            Pause.millis(50, "a restored replica order reaching the brokers");
        }
        String why = restoreFailure != null ? restoreFailure
                : lastFailure != null ? "the orders could not be read back: " + lastFailure
                : "the brokers still show the reordered replicas " + wait.toSeconds() + " s after the restore";
        waiting.forEach(tp -> verdicts.put(tp, new Verdict(recorded.get(tp), Found.NOT_RESTORED,
                recorded.get(tp).reorderedReplicas(), why)));
        return verdicts;
    }
}
