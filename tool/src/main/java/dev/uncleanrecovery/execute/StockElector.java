// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import static dev.uncleanrecovery.execute.ElectionVerification.outcome;

import dev.uncleanrecovery.cluster.ClusterSnapshot;
import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.execute.ControllerCalls;
import dev.uncleanrecovery.support.OnItsOwnThread;
import dev.uncleanrecovery.support.Pause;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;

/**
 * Designated elections with stock RPCs only (no broker patch):
 * reorder the replica set best-first (designated first) → ElectLeaders UNCLEAN → restore the original order
 * (the leader is kept) while verifying leader and epoch.
 *
 * <p>It works because UNCLEAN elects the first acceptable replica in assignment order when no ISR/ELR member
 * is acceptable, and a reorder of the same set is applied at once without an election. A partition whose live
 * (registered, unfenced) replicas already stand best-first — typically the dead last leader first, the designated
 * replica next — is not reordered at all: the election sees the same order either way, and the assignment is
 * never touched. It is not atomic:
 * a returning sole LastKnownELR member, or a designated broker fenced in between, makes the controller pick
 * someone else — so every partition is re-read just before and verified just after, and any other leader is
 * reported loudly. A reorder is never left behind silently: it is restored, or the result says it was not.
 */
public final class StockElector implements DesignatedElector {

    private final ControllerCalls controller;
    private final PartitionStateReader reader;
    private final Duration verifyTimeout;
    private final Consumer<String> progress;
    private final String whyStock;
    private final ReorderJournalFile journal;

    public StockElector(ControllerCalls controller, PartitionStateReader reader, Duration verifyTimeout,
                        Consumer<String> progress) {
        this(controller, reader, verifyTimeout, progress, null, ReorderJournalFile.none());
    }

    /**
     * @param whyStock why the native elector is not used, for {@link #describe()}; null to say nothing
     * @param journal  where the reorders are recorded before the first one, so that a killed run is put right by the next
     */
    public StockElector(ControllerCalls controller, PartitionStateReader reader, Duration verifyTimeout,
                        Consumer<String> progress, String whyStock, ReorderJournalFile journal) {
        this.controller = controller;
        this.reader = reader;
        this.verifyTimeout = verifyTimeout;
        this.progress = progress;
        this.whyStock = whyStock;
        this.journal = journal;
    }

    /**
     * AlterPartitionReassignments returns once the controller committed the new order; the brokers whose
     * metadata we read learn it a moment later. Wait (bounded) until they show it, or the partition got a leader.
     */
    private ClusterSnapshot awaitReorder(Set<TopicPartition> partitions, Map<TopicPartition, List<Integer>> reorders,
                                         Set<TopicPartition> failed) {
        long deadline = System.nanoTime() + verifyTimeout.toNanos();
        while (true) {
            ClusterSnapshot snapshot = reader.read(partitions);
            boolean visible = reorders.entrySet().stream()
                    .filter(e -> !failed.contains(e.getKey()))
                    .allMatch(e -> snapshot.partition(e.getKey())
                            .map(p -> !p.isOffline() || p.replicas().equals(e.getValue())).orElse(true));
            if (visible || System.nanoTime() > deadline) {
                return snapshot;
            }
            Pause.millis(25, "the reorder");
        }
    }

    @Override
    public String describe() {
        return "stock elector" + (whyStock == null ? "" : " (" + whyStock + ")")
                + ": reorder replicas best-first, ElectLeaders UNCLEAN, restore the order, verify";
    }

    /**
     * @param start the partitions as read just now: it decides which need a reorder. Nothing is elected from it:
     *              every partition is read again after the reorder, right before the election.
     */
    @Override
    public List<PartitionOutcome> elect(List<ElectionTarget> targets, ClusterSnapshot start, Runnable beforeFirstChange) {
        Map<TopicPartition, ElectionTarget> byPartition = new LinkedHashMap<>();
        targets.forEach(t -> byPartition.put(t.topicPartition(), t));
        Map<TopicPartition, PartitionOutcome> outcomes = new LinkedHashMap<>();
        Map<TopicPartition, TopicPartitionState> before = new HashMap<>();
        byPartition.keySet().forEach(tp -> start.partition(tp).ifPresent(p -> before.put(tp, p)));
        // Which partitions need a reorder: those whose live replicas do not already stand best-first.
        Map<TopicPartition, List<Integer>> reorders = new LinkedHashMap<>();
        for (ElectionTarget t : byPartition.values()) {
            if (!ElectionVerification.liveOrderIsBestFirst(t, t.expectedReplicas(), start.liveBrokers())) {
                reorders.put(t.topicPartition(), t.replicasBestFirst());
            }
        }
        beforeFirstChange.run();
        journal.record(byPartition, reorders);

        Map<TopicPartition, List<Integer>> reordered = new LinkedHashMap<>();
        CompletableFuture<Map<TopicPartition, String>> restoring = null;
        try {
            // 1. Reorder best-first.
            if (reorders.isEmpty()) {
                progress.accept("no replica order to change: the live replicas of all " + byPartition.size()
                        + " partition(s) are already best-first: not touched");
            } else {
                progress.accept("reordering replicas of " + reorders.size() + " partition(s) best-first"
                        + (reorders.size() < byPartition.size() ? " (" + (byPartition.size() - reorders.size())
                                + " already have their live replicas best-first: not touched)" : ""));
            }
            Map<TopicPartition, String> reorderFailures = reassign(reorders);
            reorders.keySet().stream().filter(tp -> !reorderFailures.containsKey(tp))
                    .forEach(tp -> reordered.put(tp, byPartition.get(tp).expectedReplicas()));
            reorderFailures.forEach((tp, error) -> outcomes.put(tp, outcome(byPartition.get(tp), Outcome.REFUSED,
                    "reorder refused by the controller: " + error + "; nothing changed", before.get(tp), null)));

            // 2. Re-check right before electing: still leaderless, same epoch, designated first and unfenced.
            ClusterSnapshot ready = awaitReorder(byPartition.keySet(), reorders, reorderFailures.keySet());
            List<TopicPartition> toElect = new ArrayList<>();
            for (ElectionTarget t : byPartition.values()) {
                if (outcomes.containsKey(t.topicPartition())) {
                    continue;
                }
                Optional<String> problem = ElectionVerification.notReady(t, ready, true);
                if (problem.isPresent()) {
                    outcomes.put(t.topicPartition(), outcome(t, Outcome.REFUSED, problem.get(), before.get(t.topicPartition()),
                            ready.partition(t.topicPartition()).orElse(null)));
                } else {
                    toElect.add(t.topicPartition());
                }
            }

            // 3. Elect.
            progress.accept(toElect.isEmpty() ? "nothing left to elect after the re-check"
                    : "electing " + toElect.size() + " partition(s) (ElectLeaders UNCLEAN)");
            Map<TopicPartition, String> electionErrors = electUnclean(toElect);

            // 4. Restore the original order right away: the controller has decided every election it answered, and
            //    an order change never moves a leader that stays a replica. It runs while the leaders are read back.
            if (!reordered.isEmpty()) {
                progress.accept("restoring the original replica order of " + reordered.size() + " partition(s)");
            }
            restoring = OnItsOwnThread.run("replica-order-restore", () -> reassign(reordered));

            // 5. Verify: leader == designated and leader epoch == planned + 1.
            Map<TopicPartition, TopicPartitionState> after = ElectionVerification.awaitLeaders(reader, toElect, verifyTimeout);
            for (TopicPartition tp : toElect) {
                ElectionTarget t = byPartition.get(tp);
                TopicPartitionState now = after.get(tp);
                PartitionOutcome verified = ElectionVerification.verify(t, now, electionErrors.get(tp), before.get(tp));
                outcomes.put(tp, reorders.containsKey(tp) ? verified : new PartitionOutcome(tp, verified.designatedLeader(),
                        verified.outcome(), verified.detail() + " (replicas not reordered: " + t.designatedLeader()
                        + " was already the first live replica)", verified.before(), verified.after()));
            }
        } catch (RuntimeException e) {
            Map<TopicPartition, String> notRestored = restoring != null ? failuresOf(restoring, reordered.keySet())
                    : restore(reordered);
            String restoreNote = restoreNote(reordered, notRestored);
            if (notRestored.isEmpty()) {
                journal.restored();
            }
            for (ElectionTarget t : byPartition.values()) {
                outcomes.putIfAbsent(t.topicPartition(), outcome(t, Outcome.FAILED, "stopped midway: " + e.getMessage()
                        + "; " + restoreNote, before.get(t.topicPartition()), null));
            }
            return List.copyOf(outcomes.values());
        }

        // The restore's answers; the elected leader stays (it is valid: ISR = [leader]).
        Map<TopicPartition, String> restoreFailures = failuresOf(restoring, reordered.keySet());
        if (restoreFailures.isEmpty()) {
            journal.restored();
        }
        restoreFailures.forEach((tp, error) -> outcomes.computeIfPresent(tp, (k, o) -> new PartitionOutcome(k,
                o.designatedLeader(), o.outcome() == Outcome.ELECTED ? Outcome.FAILED : o.outcome(),
                o.detail() + "; BUT the original replica order " + reordered.get(tp) + " could not be restored ("
                        + error + "): the assignment is left best-first; restore it with kafka-reassign-partitions.sh",
                o.before(), o.after())));
        // The leaders were read back while the restore was on its way: "after" shows the order the controller has
        // now confirmed, not the best-first one the read may still have seen.
        reordered.forEach((tp, original) -> {
            if (!restoreFailures.containsKey(tp)) {
                outcomes.computeIfPresent(tp, (k, o) -> new PartitionOutcome(k, o.designatedLeader(), o.outcome(),
                        o.detail() + "; replica order " + original + " restored", o.before(),
                        o.after() == null ? null : o.after().withReplicas(original)));
            }
        });
        return byPartition.keySet().stream().map(outcomes::get).toList();
    }

    private Map<TopicPartition, String> reassign(Map<TopicPartition, List<Integer>> orders) {
        return controller.reassignAll(orders);
    }

    /** The restore's refusals; when it failed as a whole (no broker answered), every partition it carried. */
    private static Map<TopicPartition, String> failuresOf(CompletableFuture<Map<TopicPartition, String>> restoring,
                                                          Set<TopicPartition> restored) {
        try {
            return OnItsOwnThread.join(restoring);
        } catch (RuntimeException e) {
            return allFailed(restored, e);
        }
    }

    private Map<TopicPartition, String> electUnclean(List<TopicPartition> partitions) {
        Map<TopicPartition, String> errors = new HashMap<>();
        for (List<TopicPartition> request : ControllerCalls.requests(partitions)) {
            controller.electUnclean(request).forEach((tp, refusal) -> refusal.ifPresent(error -> errors.put(tp, error)));
        }
        return errors;
    }

    /** Best effort after a failure midway: put back every order we changed; the ones that could not be. */
    private Map<TopicPartition, String> restore(Map<TopicPartition, List<Integer>> reordered) {
        try {
            return reassign(reordered);
        } catch (RuntimeException e) {
            return allFailed(reordered.keySet(), e);
        }
    }

    /** A request that failed as a whole (no broker answered): every partition it carried, with that failure. */
    private static Map<TopicPartition, String> allFailed(Set<TopicPartition> partitions, RuntimeException e) {
        Map<TopicPartition, String> all = new LinkedHashMap<>();
        partitions.forEach(tp -> all.put(tp, String.valueOf(e.getMessage())));
        return all;
    }

    private static String restoreNote(Map<TopicPartition, List<Integer>> reordered, Map<TopicPartition, String> failures) {
        if (reordered.isEmpty()) {
            return "no replica order was changed";
        }
        if (failures.isEmpty()) {
            return "the original replica order was restored";
        }
        return "the original replica order could NOT be restored for " + failures.keySet()
                + "; restore with kafka-reassign-partitions.sh: " + failures.keySet().stream()
                .map(tp -> tp + "=" + reordered.get(tp)).collect(Collectors.joining(", "));
    }
}
