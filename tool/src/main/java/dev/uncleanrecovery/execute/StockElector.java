// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import static dev.uncleanrecovery.execute.ElectionVerification.outcome;

import dev.uncleanrecovery.cluster.ClusterSnapshot;
import dev.uncleanrecovery.cluster.TopicPartitionState;
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
 * reported loudly. A reorder is never left behind silently: every order is read back and the ones still as this run
 * set them are restored ({@link ReplicaOrderRestore}), or the result says which were not and the journal keeps them.
 */
public final class StockElector implements DesignatedElector {

    private final ControllerCalls controller;
    private final PartitionStateReader reader;
    private final Duration verifyTimeout;
    private final Consumer<String> progress;
    private final String whyStock;
    private final PendingReorders journal;
    private final ReplicaOrderRestore restore;
    private volatile Duration leadersShownAfter;
    private volatile List<MetadataLag> metadataLag = List.of();

    public StockElector(ControllerCalls controller, PartitionStateReader reader, Duration verifyTimeout,
                        Consumer<String> progress) {
        this(controller, reader, verifyTimeout, progress, null, PendingReorders.none());
    }

    /**
     * @param whyStock why the native elector is not used, for {@link #describe()}; null to say nothing
     * @param journal  where the reorders are recorded before the first one, so that a killed run is put right by the next
     */
    public StockElector(ControllerCalls controller, PartitionStateReader reader, Duration verifyTimeout,
                        Consumer<String> progress, String whyStock, PendingReorders journal) {
        this.controller = controller;
        this.reader = reader;
        this.verifyTimeout = verifyTimeout;
        this.progress = progress;
        this.whyStock = whyStock;
        this.journal = journal;
        this.restore = new ReplicaOrderRestore(reader, controller, verifyTimeout);
    }

    /**
     * AlterPartitionReassignments returns once the controller committed the new order; the brokers whose
     * metadata we read learn it a moment later. Wait (bounded) until they show it, or the partition got a leader.
     * The last read carries the reassignments in progress: the re-check right before the election refuses any.
     */
    private ClusterSnapshot awaitReorder(Set<TopicPartition> partitions, Map<TopicPartition, List<Integer>> reorders,
                                         Set<TopicPartition> failed) {
        long deadline = System.nanoTime() + verifyTimeout.toNanos();
        while (true) {
            ClusterSnapshot snapshot = reader.readOrders(partitions);
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
    public Duration leadersShownAfter() {
        return leadersShownAfter;
    }

    @Override
    public List<MetadataLag> metadataLag() {
        return metadataLag;
    }

    @Override
    public String describe() {
        return "stock elector" + (whyStock == null ? "" : " (" + whyStock + ")")
                + ": reorder replicas best-first, ElectLeaders UNCLEAN, restore the order, verify";
    }

    /**
     * @param validated the partitions as the run re-validated them: not trusted for the reorder, which may come
     *                  minutes later (after the second look and the salvage): every partition is read again, with the
     *                  reassignments in progress, right before the first change and again right before the election
     */
    @Override
    public List<PartitionOutcome> elect(List<ElectionTarget> targets, ClusterSnapshot validated, Runnable beforeFirstChange) {
        Map<TopicPartition, ElectionTarget> byPartition = new LinkedHashMap<>();
        targets.forEach(t -> byPartition.put(t.topicPartition(), t));
        Map<TopicPartition, PartitionOutcome> outcomes = new LinkedHashMap<>();
        Map<TopicPartition, TopicPartitionState> before = new HashMap<>();
        byPartition.keySet().forEach(tp -> validated.partition(tp).ifPresent(p -> before.put(tp, p)));
        // 1. Right before the first change: what someone else did since the re-validation (a reassignment started
        //    by Cruise Control or kafka-reassign-partitions.sh, a leader elected) is refused and left alone. The read
        //    runs while the gate waits (the plan file, the run lock): both end moments before the reorder.
        CompletableFuture<ClusterSnapshot> reading = OnItsOwnThread.run("replica-orders",
                () -> reader.readOrders(byPartition.keySet()));
        beforeFirstChange.run();
        ClusterSnapshot start = OnItsOwnThread.join(reading);
        Map<TopicPartition, List<Integer>> reorders = new LinkedHashMap<>();
        for (ElectionTarget t : byPartition.values()) {
            Optional<String> problem = ElectionVerification.notReady(t, start, false)
                    .or(() -> orderChanged(t, start));
            if (problem.isPresent()) {
                outcomes.put(t.topicPartition(), outcome(t, Outcome.REFUSED, problem.get() + "; nothing changed",
                        before.get(t.topicPartition()), start.partition(t.topicPartition()).orElse(null)));
            } else if (!ElectionVerification.liveOrderIsBestFirst(t, t.expectedReplicas(), start.liveBrokers())) {
                // the live replicas do not already stand best-first: reorder them
                reorders.put(t.topicPartition(), t.replicasBestFirst());
            }
        }
        List<ElectionTarget> ready = byPartition.values().stream().filter(t -> !outcomes.containsKey(t.topicPartition()))
                .toList();
        if (ready.isEmpty()) {
            return byPartition.keySet().stream().map(outcomes::get).toList();
        }
        journal.record(byPartition, reorders);

        CompletableFuture<ReplicaOrderRestore.Report> restoring = null;
        try {
            // 2. Reorder best-first.
            if (reorders.isEmpty()) {
                progress.accept("no replica order to change: the live replicas of all " + ready.size()
                        + " partition(s) are already best-first: not touched");
            } else {
                progress.accept("reordering replicas of " + reorders.size() + " partition(s) best-first"
                        + (reorders.size() < ready.size() ? " (" + (ready.size() - reorders.size())
                                + " already have their live replicas best-first: not touched)" : ""));
            }
            Map<TopicPartition, String> reorderFailures = controller.reassign(reorders);
            reorderFailures.forEach((tp, error) -> outcomes.put(tp, outcome(byPartition.get(tp), Outcome.REFUSED,
                    "reorder refused by the controller: " + error, before.get(tp), null)));

            // 3. Re-check right before electing: still leaderless, same epoch, designated first and unfenced, no
            //    reassignment of someone else's.
            ClusterSnapshot reordered = awaitReorder(byPartition.keySet(), reorders, reorderFailures.keySet());
            List<TopicPartition> toElect = new ArrayList<>();
            for (ElectionTarget t : ready) {
                if (outcomes.containsKey(t.topicPartition())) {
                    continue;
                }
                Optional<String> problem = ElectionVerification.notReady(t, reordered, true);
                if (problem.isPresent()) {
                    outcomes.put(t.topicPartition(), outcome(t, Outcome.REFUSED, problem.get(), before.get(t.topicPartition()),
                            reordered.partition(t.topicPartition()).orElse(null)));
                } else {
                    toElect.add(t.topicPartition());
                }
            }

            // 4. Elect.
            progress.accept(toElect.isEmpty() ? "nothing left to elect after the re-check"
                    : "electing " + toElect.size() + " partition(s) (ElectLeaders UNCLEAN)");
            Map<TopicPartition, String> electionErrors = controller.electUnclean(toElect);

            // 5. Restore right away, every recorded order the read-back finds as this run set it: the controller has
            //    decided every election it answered, and an order change never moves a leader that stays a replica.
            //    It runs while the leaders are read back, except in ZooKeeper mode, whose controller gives a live
            //    leader kept by a reassignment a new leader epoch (KafkaController's moveReassignedPartitionLeader-
            //    IfRequired): there the order is restored once the election is verified at epoch + 1.
            boolean restoreAfterVerify = validated.isZooKeeperMode();
            Set<TopicPartition> led = toElect.stream().filter(tp -> !electionErrors.containsKey(tp))
                    .collect(Collectors.toSet());
            if (!reorders.isEmpty() && !restoreAfterVerify) {
                restoring = OnItsOwnThread.run("replica-order-restore",
                        () -> journal.restoreRecorded(restore, progress, false, led));
            }

            // 6. Verify: leader == designated and leader epoch == planned + 1.
            ElectionVerification.Shown shown = ElectionVerification.awaitLeaders(reader, toElect, verifyTimeout);
            leadersShownAfter = toElect.isEmpty() ? null : shown.after();
            metadataLag = shown.lags();
            Map<TopicPartition, TopicPartitionState> after = shown.states();
            for (TopicPartition tp : toElect) {
                ElectionTarget t = byPartition.get(tp);
                TopicPartitionState now = after.get(tp);
                PartitionOutcome verified = shown.withLag(
                        ElectionVerification.verify(t, now, electionErrors.get(tp), before.get(tp)));
                outcomes.put(tp, reorders.containsKey(tp) ? verified : new PartitionOutcome(tp, verified.designatedLeader(),
                        verified.outcome(), verified.detail() + " (replicas not reordered: " + t.designatedLeader()
                        + " was already the first live replica)", verified.before(), verified.after()));
            }
            if (!reorders.isEmpty() && restoreAfterVerify) {
                restoring = CompletableFuture.completedFuture(journal.restoreRecorded(restore, progress, false, led));
            }
        } catch (RuntimeException | Error e) {
            // Whatever the failed request did or did not apply, the read-back says: never the request's own answer.
            ReplicaOrderRestore.Report found = restoring != null ? joined(restoring) : restoreAfterFailure();
            for (ElectionTarget t : ready) {
                String what = found.of(t.topicPartition()).map(ReplicaOrderRestore.Verdict::describe)
                        .orElse("its replica order was not changed");
                outcomes.putIfAbsent(t.topicPartition(), outcome(t, Outcome.FAILED, "stopped midway: " + e
                        + "; " + what + journalNote(found, true), before.get(t.topicPartition()), null));
            }
            return byPartition.keySet().stream().map(outcomes::get).toList();
        }

        // The restore's read-back; the elected leader stays (it is valid: ISR = [leader]).
        ReplicaOrderRestore.Report found = restoring == null ? new ReplicaOrderRestore.Report(Map.of()) : joined(restoring);
        found.verdicts().forEach((tp, verdict) -> outcomes.computeIfPresent(tp, (k, o) -> switch (verdict.found()) {
            // "after" shows the order read back, not the best-first one the leader read may still have seen
            case RESTORED -> new PartitionOutcome(k, o.designatedLeader(), o.outcome(), o.detail() + "; "
                    + verdict.describe(), o.before(), o.after() == null ? null : o.after().withReplicas(verdict.replicasNow()));
            // a refusal read back as the original order: nothing of this partition was changed
            case ORIGINAL -> o.outcome() == Outcome.REFUSED ? o.withNote("nothing changed") : o;
            case GONE -> o;
            case LEFT_ALONE, REFUSED -> o.withNote(verdict.describe());
            case NOT_RESTORED -> new PartitionOutcome(k, o.designatedLeader(),
                    o.outcome() == Outcome.ELECTED ? Outcome.FAILED : o.outcome(), o.detail() + "; BUT "
                    + verdict.describe() + ": the assignment is left best-first" + journalNote(found)
                    + ", or restore it with kafka-reassign-partitions.sh", o.before(), o.after());
        }));
        return byPartition.keySet().stream().map(outcomes::get).toList();
    }

    /** Before the reorder the partition must stand as the plan has it: any other order is someone else's. */
    private static Optional<String> orderChanged(ElectionTarget t, ClusterSnapshot start) {
        return start.partition(t.topicPartition())
                .filter(p -> !p.replicas().equals(t.expectedReplicas()))
                .map(p -> "replica order changed to " + p.replicas() + " since the plan " + t.expectedReplicas()
                        + " (someone else reordered it); left alone");
    }

    /** The restore after a failure midway: the record stays for the next run, which reads the orders again. */
    private ReplicaOrderRestore.Report restoreAfterFailure() {
        try {
            return journal.restoreRecorded(restore, progress, true);
        } catch (RuntimeException e) {
            return new ReplicaOrderRestore.Report(Map.of());
        }
    }

    private ReplicaOrderRestore.Report joined(CompletableFuture<ReplicaOrderRestore.Report> restoring) {
        try {
            return OnItsOwnThread.join(restoring);
        } catch (RuntimeException e) {
            return restoreAfterFailure();
        }
    }

    /** Where the unsettled orders are recorded for the next run. */
    private String journalNote(ReplicaOrderRestore.Report found) {
        return journalNote(found, false);
    }

    private String journalNote(ReplicaOrderRestore.Report found, boolean kept) {
        if (found.settled() && !kept) {
            return "";
        }
        return journal.keptNote().orElse("");
    }
}
