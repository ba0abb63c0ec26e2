// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import dev.uncleanrecovery.UserInputException;
import dev.uncleanrecovery.cluster.ClusterSnapshot;
import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.evidence.ReplicaEvidence;
import dev.uncleanrecovery.plan.Plan;
import dev.uncleanrecovery.plan.PlanEvidence;
import dev.uncleanrecovery.plan.PlannedElection;
import dev.uncleanrecovery.probe.PartitionToProbe;
import dev.uncleanrecovery.salvage.DoomedRange;
import dev.uncleanrecovery.salvage.SalvagedFile;
import dev.uncleanrecovery.support.OnItsOwnThread;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;

/**
 * Applies a reviewed plan: re-validates every partition against the cluster as it is now, probes each
 * designated replica once more, then hands the partitions that are still safe to the elector.
 */
public final class PlanExecution {

    /** How a run applies the plan: for real or as a dry run, and whether one refusal stops them all. */
    public record Mode(boolean dryRun, boolean allOrNothing) {
        public static final Mode APPLY = new Mode(false, false);
    }

    private final PartitionStateReader reader;
    private final ReplicaReprobe reprobe;
    private final DesignatedElector elector;
    private final boolean allowUnprobedLeader;
    private final Consumer<String> progress;
    private Redecision redecision;
    private Mode mode = Mode.APPLY;
    private Map<TopicPartition, String> earlierNotes = Map.of();
    private Salvage salvage;
    private boolean noSalvage;
    private CutLookUp cutLookUp = CutLookUp.NONE;
    private boolean acceptUnknownLoss;

    public PlanExecution(PartitionStateReader reader, ReplicaReprobe reprobe, DesignatedElector elector,
                         boolean allowUnprobedLeader, Consumer<String> progress) {
        this.reader = reader;
        this.reprobe = reprobe;
        this.elector = elector;
        this.allowUnprobedLeader = allowUnprobedLeader;
        this.progress = progress;
    }

    /** What to do when a replica that did not answer the plan answers now with a better log (without: refuse). */
    public PlanExecution withRedecision(Redecision decideAgain) {
        this.redecision = decideAgain;
        return this;
    }

    public PlanExecution withMode(Mode how) {
        this.mode = how;
        return this;
    }

    /** Said about partitions before this run looked at them (what an interrupted run left), in their outcomes. */
    public PlanExecution withEarlierNotes(Map<TopicPartition, String> notes) {
        this.earlierNotes = Map.copyOf(notes);
        return this;
    }

    /** Copies every doomed range before electing; a partition whose copy fails is refused. */
    public PlanExecution withSalvage(Salvage copier) {
        this.salvage = copier;
        this.noSalvage = false;
        return this;
    }

    /** How the cuts of followers whose last written epoch differs from the leader's are asked of the brokers. */
    public PlanExecution withCutLookUp(CutLookUp lookUp) {
        this.cutLookUp = lookUp;
        return this;
    }

    /** --accept-unknown-loss: an election where some replica's loss is not known does not need attention. */
    public PlanExecution acceptingUnknownLoss(boolean accept) {
        this.acceptUnknownLoss = accept;
        return this;
    }

    /** --no-salvage: elects without copying what the election truncates, and says so per partition. */
    public PlanExecution withoutSalvage() {
        this.salvage = null;
        this.noSalvage = true;
        return this;
    }

    public ExecutionResult run(Plan plan, String planFile) {
        return run(plan, planFile, () -> { }, null);
    }

    /**
     * @param beforeElecting runs after the re-read and the replicas' second look, right before the elector changes
     *                       anything (its preparation, which changes nothing, may go first); if it throws, nothing
     *                       is elected (recover: the plan must be on disk first)
     * @param asPlanned      the partitions as read for the plan (recover), or null (a plan file does not carry the
     *                       topic ids a probe needs): with it, the replicas are probed once more while the
     *                       partitions are re-read, and an answer counts only for a partition the re-read finds as
     *                       the probe saw it (same topic id and leader epoch); the others are probed again
     */
    public ExecutionResult run(Plan plan, String planFile, Runnable beforeElecting, ClusterSnapshot asPlanned) {
        Instant startedAt = Instant.now();
        long start = System.nanoTime();
        Map<TopicPartition, PlannedElection> planned = new LinkedHashMap<>();
        plan.partitions().forEach(p -> planned.put(p.topicPartition(), p));
        Map<TopicPartitionState, List<Integer>> early = asPlanned == null ? Map.of() : toProbeAsPlanned(planned, asPlanned);
        CompletableFuture<Map<TopicPartition, List<ReplicaEvidence>>> earlyReprobe = null;
        if (early.isEmpty()) {
            progress.accept("re-reading " + planned.size() + " partition(s) of the plan");
        } else {
            progress.accept("re-reading " + planned.size() + " partition(s) of the plan while their " + early.size()
                    + " designated replica(s) are probed once more");
            earlyReprobe = OnItsOwnThread.run("designated-reprobe", () -> reprobe.reprobe(early));
        }
        ClusterSnapshot now = reader.read(planned.keySet());
        if (!plan.clusterId().equals(now.clusterId())) {
            throw new UserInputException("the plan was made for cluster " + plan.clusterId() + ", but --bootstrap-server is"
                    + " cluster " + now.clusterId() + "; use the plan of this cluster");
        }

        Map<TopicPartition, PartitionOutcome> outcomes = new LinkedHashMap<>();
        Map<TopicPartition, String> notes = new HashMap<>(earlierNotes);
        boolean[] changing = new boolean[1];
        Runnable gate = () -> {
            beforeElecting.run();
            changing[0] = true;
        };
        try {
            return decideSalvageAndElect(plan, planFile, gate, planned, now, early, earlyReprobe, outcomes, notes,
                    startedAt, start);
        } catch (RuntimeException | Error e) {
            if (!changing[0]) {
                throw e; // nothing was changed: the failure is the answer
            }
            // A run that may have changed something always leaves its record: the outcomes known so far, and what the
            // cluster shows of the rest.
            return stoppedMidway(planFile, planned, now, outcomes, notes, startedAt, start, e);
        }
    }

    private ExecutionResult decideSalvageAndElect(Plan plan, String planFile, Runnable beforeElecting,
            Map<TopicPartition, PlannedElection> planned, ClusterSnapshot now,
            Map<TopicPartitionState, List<Integer>> early,
            CompletableFuture<Map<TopicPartition, List<ReplicaEvidence>>> earlyReprobe,
            Map<TopicPartition, PartitionOutcome> outcomes, Map<TopicPartition, String> notes, Instant startedAt,
            long start) {
        Map<TopicPartition, ElectionTarget> proceed = new LinkedHashMap<>();
        for (PlannedElection p : planned.values()) {
            ElectionTarget target = toTarget(p);
            Optional<TopicPartitionState> current = now.partition(p.topicPartition());
            if (current.isEmpty()) {
                outcomes.put(p.topicPartition(), refuse(target, "partition no longer exists", null));
                continue;
            }
            // The cluster's own reasons (fenced, not a replica, led again) come before "not probed in the plan".
            Revalidation.Verdict verdict = Revalidation.check(target, current.get(), now);
            Optional<String> unprobed = unprobedDesignation(p);
            if (verdict instanceof Revalidation.Verdict.AlreadyRecovered done) {
                outcomes.put(p.topicPartition(), new PartitionOutcome(p.topicPartition(), p.designatedLeader(),
                        Outcome.ALREADY_RECOVERED, done.detail(), current.get(), current.get()));
            } else if (verdict instanceof Revalidation.Verdict.Refuse refused) {
                outcomes.put(p.topicPartition(), refuse(target, refused.reason(), current.get()));
            } else if (unprobed.isPresent()) {
                outcomes.put(p.topicPartition(), refuse(target, unprobed.get(), current.get()));
            } else {
                proceed.put(p.topicPartition(), target);
            }
        }

        // the plan entry of the leader each partition will really get: recover may decide again
        Map<TopicPartition, PlannedElection> electing = new HashMap<>(planned);
        Map<TopicPartition, List<ReplicaEvidence>> reprobed = Map.of();
        if (!proceed.isEmpty()) {
            if (!mode.dryRun()) {
                elector.prepare();
            }
            reprobed = secondLook(planned, proceed, now, early, earlyReprobe);
            for (ElectionTarget t : List.copyOf(proceed.values())) {
                TopicPartitionState state = now.partition(t.topicPartition()).orElse(null);
                List<ReplicaEvidence> answers = reprobed.getOrDefault(t.topicPartition(), List.of());
                ReplicaEvidence designated = answers.stream().filter(e -> e.broker() == t.designatedLeader())
                        .findFirst().orElse(null);
                Optional<String> shrank = Revalidation.logShrank(t, designated);
                if (shrank.isPresent()) {
                    proceed.remove(t.topicPartition());
                    outcomes.put(t.topicPartition(), refuse(t, shrank.get(), state));
                    continue;
                }
                PlannedElection p = planned.get(t.topicPartition());
                // Only native evidence carries the broker epoch: a new one means the broker restarted since the plan,
                // and a restart can truncate a log (unclean shutdown) or change it in ways a log end offset hides.
                Optional<String> restarted = BrokerRestart.note(p, designated);
                if (restarted.isPresent()) {
                    proceed.remove(t.topicPartition());
                    outcomes.put(t.topicPartition(), refuse(t, "designated " + restarted.get() + "; plan again", state));
                    continue;
                }
                List<ReplicaEvidence> late = answers.stream()
                        .filter(e -> e.broker() != t.designatedLeader() && e.isAnswered())
                        .filter(e -> !answeredInPlan(p, e.broker()))
                        .toList();
                if (late.isEmpty()) {
                    continue;
                }
                long designatedEnd = designated != null && designated.isAnswered() ? designated.logEndOffset()
                        : t.plannedLogEndOffset();
                int designatedEpoch = designated != null && designated.isAnswered() ? designated.lastWrittenLeaderEpoch()
                        : t.plannedLastWrittenLeaderEpoch();
                List<ReplicaEvidence> better = late.stream()
                        .filter(e -> e.lastWrittenLeaderEpoch() > designatedEpoch
                                || (e.lastWrittenLeaderEpoch() == designatedEpoch && e.logEndOffset() > designatedEnd))
                        .toList();
                String lateNote = late.stream().map(e -> "broker " + e.broker() + " answered after the plan: epoch "
                        + e.lastWrittenLeaderEpoch() + ", LEO " + e.logEndOffset())
                        .collect(Collectors.joining("; "));
                if (better.isEmpty()) {
                    notes.merge(t.topicPartition(), lateNote + " (not more than designated " + t.designatedLeader()
                            + ": epoch " + designatedEpoch + ", LEO " + designatedEnd + ")", PlanExecution::both);
                    continue;
                }
                String why = better.stream().map(e -> "broker " + e.broker() + " answered after the plan and holds more:"
                        + " epoch " + e.lastWrittenLeaderEpoch() + ", LEO " + e.logEndOffset() + " against epoch "
                        + designatedEpoch + ", LEO " + designatedEnd + " on designated " + t.designatedLeader())
                        .collect(Collectors.joining("; "));
                Redecision.Outcome again = redecision == null ? new Redecision.Outcome.Refuse(why + "; plan again")
                        : redecision.redecide(p, state, now, late);
                if (again instanceof Redecision.Outcome.Elect elect
                        && Revalidation.check(toTarget(elect.planned()), state, now) instanceof Revalidation.Verdict.Proceed) {
                    ElectionTarget redecided = toTarget(elect.planned());
                    proceed.put(t.topicPartition(), redecided);
                    electing.put(t.topicPartition(), elect.planned());
                    notes.merge(t.topicPartition(), "decided again: " + why + "; designated "
                            + redecided.designatedLeader() + " instead", PlanExecution::both);
                } else {
                    proceed.remove(t.topicPartition());
                    String reason = again instanceof Redecision.Outcome.Refuse r ? r.reason()
                            : why + "; decided again, " + ((Redecision.Outcome.Elect) again).planned().designatedLeader()
                                    + " cannot lead now; plan again";
                    outcomes.put(t.topicPartition(), refuse(t, reason, state));
                }
            }
        }

        Map<TopicPartition, Map<Integer, String>> unknownLoss = new LinkedHashMap<>();
        Map<TopicPartition, DoomedRanges> doomed = measureLosses(proceed, electing, now, reprobed, outcomes, notes,
                unknownLoss);
        Map<TopicPartition, List<SalvagedFile>> salvaged = salvageBeforeElecting(proceed, doomed, now, outcomes, notes);

        if (mode.allOrNothing() && !proceed.isEmpty()) {
            long refused = outcomes.values().stream().filter(o -> o.outcome() == Outcome.REFUSED).count();
            if (refused > 0) {
                for (ElectionTarget t : proceed.values()) {
                    outcomes.put(t.topicPartition(), refuse(t, "not elected: --all-or-nothing, and " + refused
                            + " partition(s) of the plan were refused", now.partition(t.topicPartition()).orElse(null)));
                }
                proceed.clear();
            }
        }

        String electedBy;
        Duration leadersShown = null;
        if (proceed.isEmpty()) {
            beforeElecting.run();
            electedBy = "none (nothing to elect)";
        } else if (mode.dryRun()) {
            electedBy = "none (dry run)";
            for (ElectionTarget t : proceed.values()) {
                TopicPartitionState state = now.partition(t.topicPartition()).orElse(null);
                outcomes.put(t.topicPartition(), new PartitionOutcome(t.topicPartition(), t.designatedLeader(),
                        Outcome.WOULD_ELECT, "would elect " + t.designatedLeader() + " (epoch "
                        + t.plannedLastWrittenLeaderEpoch() + ", LEO " + t.plannedLogEndOffset() + "); nothing changed",
                        state, null));
            }
        } else {
            progress.accept(elector.describe());
            electedBy = elector.describe();
            elector.elect(new ArrayList<>(proceed.values()), now, beforeElecting)
                    .forEach(o -> outcomes.put(o.topicPartition(), o));
            leadersShown = elector.leadersShownAfter();
        }
        // said of the partitions elected (or that would be) only: a refused one loses nothing
        unknownLoss.keySet().retainAll(proceed.keySet());
        unknownLoss.forEach((tp, unknown) -> {
            Outcome outcome = outcomes.get(tp).outcome();
            if (outcome == Outcome.ELECTED || outcome == Outcome.ELECTED_OTHER || outcome == Outcome.WOULD_ELECT) {
                new TreeMap<>(unknown).forEach((broker, why) -> notes.merge(tp, "broker " + broker
                        + ": loss NOT KNOWN (" + why + ")", PlanExecution::both));
            }
        });
        List<PartitionOutcome> ordered = planned.keySet().stream().map(outcomes::get)
                .map(o -> notes.containsKey(o.topicPartition()) ? o.withNote(notes.get(o.topicPartition())) : o)
                .toList();
        ExecutionResult result = new ExecutionResult(now.clusterId(), planFile, startedAt,
                Duration.ofNanos(System.nanoTime() - start), electedBy, ordered)
                .withUnknownLoss(unknownLoss, acceptUnknownLoss)
                .withLeadersShownAfter(leadersShown);
        if (noSalvage) {
            return result.withSalvage(null, "--no-salvage: nothing was kept", Map.of());
        }
        return salvage == null ? result : result.withSalvage(salvage.directory().toString(), null, salvaged);
    }

    /**
     * The result of a run that stopped on an exception or an error (out of memory, say) after the re-read: every
     * partition with an outcome keeps it, each other one is FAILED with what the cluster shows of it now.
     */
    private ExecutionResult stoppedMidway(String planFile, Map<TopicPartition, PlannedElection> planned,
                                          ClusterSnapshot now, Map<TopicPartition, PartitionOutcome> outcomes,
                                          Map<TopicPartition, String> notes, Instant startedAt, long start, Throwable e) {
        progress.accept("the run stopped: " + e);
        ClusterSnapshot seen = null;
        try {
            seen = reader.read(planned.keySet());
        } catch (RuntimeException | Error unread) {
            // the outcomes say the state is not known
        }
        List<PartitionOutcome> ordered = new ArrayList<>();
        for (PlannedElection p : planned.values()) {
            TopicPartition tp = p.topicPartition();
            PartitionOutcome o = outcomes.get(tp);
            if (o == null) {
                TopicPartitionState after = seen == null ? null : seen.partition(tp).orElse(null);
                String state = after == null ? "its state could not be read"
                        : after.isOffline() ? "it is still offline, replicas " + after.replicas()
                        : "it is led by " + after.leader() + " at leader epoch " + after.leaderEpoch() + ", replicas "
                                + after.replicas();
                o = new PartitionOutcome(tp, p.designatedLeader(), Outcome.FAILED, "the run stopped before it was done"
                        + " with this partition (" + e + "); " + state, now.partition(tp).orElse(null), after);
            }
            ordered.add(notes.containsKey(tp) ? o.withNote(notes.get(tp)) : o);
        }
        return new ExecutionResult(now.clusterId(), planFile, startedAt, Duration.ofNanos(System.nanoTime() - start),
                "stopped: " + e, ordered);
    }

    /**
     * What each election will truncate, measured from the replicas' answers to the second look (see
     * {@link DoomedRanges}): never the plan's figures, which a reviewer may have edited. A replica that loses more
     * than the plan states refuses its partition; other differences are said; a replica whose loss cannot be known
     * is noted and collected for the run's warning.
     *
     * @return per partition that proceeds, its measured losses
     */
    private Map<TopicPartition, DoomedRanges> measureLosses(Map<TopicPartition, ElectionTarget> proceed,
            Map<TopicPartition, PlannedElection> electing, ClusterSnapshot now,
            Map<TopicPartition, List<ReplicaEvidence>> reprobed, Map<TopicPartition, PartitionOutcome> outcomes,
            Map<TopicPartition, String> notes, Map<TopicPartition, Map<Integer, String>> unknownLoss) {
        Map<TopicPartition, DoomedRanges> measured = new LinkedHashMap<>();
        if (proceed.isEmpty()) {
            return measured;
        }
        // Followers of another last written epoch than the leader's: only their brokers' look-ups say where they cut.
        Map<TopicPartition, CutLookUp.Ask> asks = new LinkedHashMap<>();
        for (ElectionTarget t : proceed.values()) {
            List<ReplicaEvidence> answers = reprobed.getOrDefault(t.topicPartition(), List.of());
            ReplicaEvidence leader = answers.stream().filter(e -> e.broker() == t.designatedLeader() && e.isAnswered())
                    .findFirst().orElse(null);
            TopicPartitionState state = now.partition(t.topicPartition()).orElse(null);
            if (leader == null || state == null) {
                continue;
            }
            List<ReplicaEvidence> diverging = answers.stream().filter(e -> e.broker() != t.designatedLeader()
                    && e.isAnswered() && e.lastWrittenLeaderEpoch() != leader.lastWrittenLeaderEpoch()
                    && e.logEndOffset() > 0).toList();
            if (!diverging.isEmpty()) {
                asks.put(t.topicPartition(), new CutLookUp.Ask(state, leader, diverging));
            }
        }
        Map<TopicPartition, Map<Integer, Long>> cuts = asks.isEmpty() ? Map.of() : cutLookUp.cuts(asks);
        for (ElectionTarget t : List.copyOf(proceed.values())) {
            TopicPartition tp = t.topicPartition();
            TopicPartitionState state = now.partition(tp).orElse(null);
            DoomedRanges d = DoomedRanges.measure(electing.get(tp), t.designatedLeader(), state, now,
                    reprobed.getOrDefault(tp, List.of()), cuts.getOrDefault(tp, Map.of()));
            if (d.refusal().isPresent()) {
                proceed.remove(tp);
                outcomes.put(tp, refuse(t, d.refusal().get(), state));
                continue;
            }
            d.differences().forEach(difference -> notes.merge(tp, difference, PlanExecution::both));
            if (!d.unknown().isEmpty()) {
                unknownLoss.put(tp, d.unknown());
            }
            measured.put(tp, d);
        }
        return measured;
    }

    /**
     * Before the first change to the cluster, every range the elections will truncate is copied out: an exact loss is
     * copied (a partition whose copy fails is refused); a loss only known as a lower bound refuses the partition (its
     * start is not known, so it cannot be copied whole). With --no-salvage nothing is copied and each partition says
     * what was not kept.
     *
     * @param measured the losses measured for the partitions that proceed
     * @return per partition whose ranges were copied, the files
     */
    private Map<TopicPartition, List<SalvagedFile>> salvageBeforeElecting(Map<TopicPartition, ElectionTarget> proceed,
            Map<TopicPartition, DoomedRanges> measured, ClusterSnapshot now, Map<TopicPartition, PartitionOutcome> outcomes,
            Map<TopicPartition, String> notes) {
        Map<TopicPartition, List<SalvagedFile>> salvaged = new LinkedHashMap<>();
        if (proceed.isEmpty() || (salvage == null && !noSalvage)) {
            return salvaged;
        }
        Map<TopicPartition, DoomedRanges> doomed = new LinkedHashMap<>();
        for (ElectionTarget t : List.copyOf(proceed.values())) {
            TopicPartition tp = t.topicPartition();
            TopicPartitionState state = now.partition(tp).orElse(null);
            DoomedRanges d = measured.get(tp);
            if (d == null) {
                continue;
            }
            if (!d.inexact().isEmpty() && !noSalvage) {
                proceed.remove(tp);
                outcomes.put(tp, refuse(t, "the truncation start on broker(s) " + d.inexact().stream().map(String::valueOf)
                        .collect(Collectors.joining(", ")) + " is not known exactly; cannot salvage it whole (plan again, or"
                        + " --no-salvage to elect without a copy)", state));
                continue;
            }
            if (!d.ranges().isEmpty()) {
                doomed.put(tp, d);
            }
        }
        if (doomed.isEmpty()) {
            return salvaged;
        }
        if (noSalvage) {
            doomed.forEach((tp, d) -> notes.merge(tp, "--no-salvage: not kept " + ranges(d.ranges()), PlanExecution::both));
            return salvaged;
        }
        // A broker that is down serves no Fetch: its doomed records must already have been copied off its disk
        // (inspect --salvage-beyond, into this salvage directory), or the partition waits.
        Map<TopicPartition, List<SalvagedFile>> fromDisk = new LinkedHashMap<>();
        Map<TopicPartition, List<String>> unreadable = new LinkedHashMap<>();
        Map<TopicPartition, List<DoomedRange>> live = new LinkedHashMap<>();
        doomed.forEach((tp, d) -> {
            for (DoomedRange r : d.ranges()) {
                var broker = now.brokersById().get(r.broker());
                if (broker != null && !broker.fenced()) {
                    live.computeIfAbsent(tp, x -> new ArrayList<>()).add(r);
                    continue;
                }
                Salvage.EarlierCopy earlier = salvage.alreadyKept(r);
                SalvagedFile kept = earlier.file();
                if (kept != null) {
                    fromDisk.computeIfAbsent(tp, x -> new ArrayList<>()).add(kept);
                    notes.merge(tp, "broker " + r.broker() + " is down; its doomed records " + ranges(List.of(r))
                            + " were copied off its disk before (" + kept.manifest() + ")", PlanExecution::both);
                } else {
                    unreadable.computeIfAbsent(tp, x -> new ArrayList<>()).add("broker " + r.broker() + " did not serve "
                            + tp + " [" + r.fromOffset() + ".." + r.toOffset() + "): it is " + (broker == null
                            ? "not registered" : "fenced") + ", so nothing can be read from it online; "
                            + earlier.notUsed().stream().map(why -> why + "; ").collect(Collectors.joining())
                            + "copy its records off its disk with 'inspect --salvage-beyond' on its host into "
                            + salvage.directory() + ", then execute again (or --no-salvage)");
                }
            }
        });
        if (mode.dryRun()) {
            doomed.forEach((tp, d) -> {
                if (unreadable.containsKey(tp)) {
                    notes.merge(tp, "would refuse: salvage impossible: " + String.join("; ", unreadable.get(tp)),
                            PlanExecution::both);
                } else if (live.containsKey(tp)) {
                    notes.merge(tp, "would salvage " + ranges(live.get(tp)), PlanExecution::both);
                }
            });
            return salvaged;
        }
        unreadable.forEach((tp, why) -> {
            ElectionTarget t = proceed.remove(tp);
            outcomes.put(tp, refuse(t, "salvage failed: " + String.join("; ", why) + "; nothing elected",
                    now.partition(tp).orElse(null)));
            live.remove(tp);
            fromDisk.remove(tp);
        });
        fromDisk.forEach((tp, files) -> {
            if (!live.containsKey(tp)) {
                salvaged.put(tp, files);
            }
        });
        doomed.keySet().retainAll(live.keySet());
        if (doomed.isEmpty()) {
            return salvaged;
        }
        List<DoomedRange> all = live.values().stream().flatMap(List::stream).toList();
        progress.accept("salvaging " + all.size() + " doomed range(s) of " + doomed.size() + " partition(s) ("
                + all.stream().mapToLong(DoomedRange::offsets).sum() + " offsets) into " + salvage.directory());
        Map<TopicPartition, List<Salvage.Kept>> kept = new HashMap<>();
        salvage.keep(all).forEach(k -> kept.computeIfAbsent(k.range().partition(), x -> new ArrayList<>()).add(k));
        doomed.forEach((tp, d) -> {
            List<Salvage.Kept> answers = kept.getOrDefault(tp, List.of());
            List<String> failures = answers.stream().filter(k -> !k.isKept()).map(Salvage.Kept::failure).toList();
            if (!failures.isEmpty() || answers.size() < live.get(tp).size()) {
                ElectionTarget t = proceed.remove(tp);
                String why = failures.isEmpty() ? "not every range was copied" : String.join("; ", failures);
                outcomes.put(tp, refuse(t, "salvage failed: " + why + "; nothing elected", now.partition(tp).orElse(null)));
            } else {
                List<SalvagedFile> files = new ArrayList<>(fromDisk.getOrDefault(tp, List.of()));
                answers.stream().map(Salvage.Kept::file).forEach(files::add);
                salvaged.put(tp, files);
            }
        });
        return salvaged;
    }

    /** "broker 3 [10..30) (20 offsets)", for each range. */
    private static String ranges(List<DoomedRange> ranges) {
        return ranges.stream().map(r -> "broker " + r.broker() + " [" + r.fromOffset() + ".." + r.toOffset() + ") ("
                + r.offsets() + " offsets)").collect(Collectors.joining(", "));
    }

    /**
     * The second look: every replica {@link #replicasToProbe} names, with the answers of the early probe (recover)
     * where the re-read finds the partition as that probe saw it, and a probe now for the rest.
     */
    private Map<TopicPartition, List<ReplicaEvidence>> secondLook(Map<TopicPartition, PlannedElection> planned,
            Map<TopicPartition, ElectionTarget> proceed, ClusterSnapshot now, Map<TopicPartitionState, List<Integer>> early,
            CompletableFuture<Map<TopicPartition, List<ReplicaEvidence>>> earlyReprobe) {
        Map<TopicPartitionState, List<Integer>> toReprobe = new LinkedHashMap<>();
        for (ElectionTarget t : proceed.values()) {
            TopicPartitionState state = now.partition(t.topicPartition()).orElseThrow();
            toReprobe.put(state, replicasToProbe(planned.get(t.topicPartition()), state, now));
        }
        Map<TopicPartition, List<ReplicaEvidence>> reprobed = new HashMap<>();
        if (earlyReprobe != null) {
            Map<TopicPartition, List<ReplicaEvidence>> answers = OnItsOwnThread.join(earlyReprobe);
            Map<PartitionToProbe, List<Integer>> probedAs = new HashMap<>();
            early.forEach((state, brokers) -> probedAs.put(PartitionToProbe.of(state), brokers));
            for (var it = toReprobe.entrySet().iterator(); it.hasNext(); ) {
                var entry = it.next();
                List<Integer> asked = probedAs.get(PartitionToProbe.of(entry.getKey()));
                if (asked == null) {
                    continue;
                }
                TopicPartition tp = entry.getKey().topicPartition();
                reprobed.put(tp, answers.getOrDefault(tp, List.of()).stream().filter(e -> asked.contains(e.broker())).toList());
                List<Integer> rest = entry.getValue().stream().filter(b -> !asked.contains(b)).toList();
                if (rest.isEmpty()) {
                    it.remove();
                } else {
                    entry.setValue(rest);
                }
            }
        }
        if (!toReprobe.isEmpty()) {
            long replicas = toReprobe.values().stream().mapToLong(List::size).sum();
            progress.accept("probing once more the " + replicas + " live replica(s) of " + toReprobe.size()
                    + " partition(s): the designated leader, and what each other replica will lose");
            reprobe.reprobe(toReprobe).forEach((tp, answers) -> reprobed.merge(tp, answers,
                    (a, b) -> java.util.stream.Stream.concat(a.stream(), b.stream()).toList()));
        }
        return reprobed;
    }

    /**
     * The designated replica, and every other replica whose broker is registered and unfenced now: what each will
     * lose is measured from these answers, and one with no live answer in the plan may have come back with more than
     * the designated one holds. A fenced broker serves no request, so it keeps its plan status.
     */
    static List<Integer> replicasToProbe(PlannedElection p, TopicPartitionState state, ClusterSnapshot cluster) {
        List<Integer> brokers = new ArrayList<>();
        brokers.add(p.designatedLeader());
        for (int replica : state.replicas()) {
            var broker = cluster.brokersById().get(replica);
            if (replica != p.designatedLeader() && broker != null && !broker.fenced()) {
                brokers.add(replica);
            }
        }
        return brokers;
    }

    private static boolean answeredInPlan(PlannedElection p, int broker) {
        return p.evidence().stream().anyMatch(e -> e.broker() == broker && e.status() == EvidenceStatus.OK
                && e.source() != EvidenceSource.DISK);
    }

    private static String both(String first, String second) {
        return first + "; " + second;
    }

    /** Per partition of the plan that may be elected, its state as planned and the replicas to probe once more. */
    private Map<TopicPartitionState, List<Integer>> toProbeAsPlanned(Map<TopicPartition, PlannedElection> planned,
                                                                     ClusterSnapshot asPlanned) {
        Map<TopicPartitionState, List<Integer>> replicas = new LinkedHashMap<>();
        for (PlannedElection p : planned.values()) {
            if (unprobedDesignation(p).isEmpty()) {
                asPlanned.partition(p.topicPartition())
                        .ifPresent(state -> replicas.put(state, replicasToProbe(p, state, asPlanned)));
            }
        }
        return replicas;
    }

    private Optional<String> unprobedDesignation(PlannedElection p) {
        Optional<PlanEvidence> designated = p.evidence().stream().filter(e -> e.broker() == p.designatedLeader()).findFirst();
        boolean answered = designated.isPresent() && designated.get().status() == EvidenceStatus.OK;
        if (answered || allowUnprobedLeader) {
            return Optional.empty();
        }
        return Optional.of("designated leader " + p.designatedLeader() + " has no live evidence in the plan (was it edited?);"
                + " pass --allow-unprobed-leader to elect it anyway");
    }

    /**
     * Designated first, then the other replicas by (last written epoch, log end offset), then the ones with no
     * evidence in assignment order: if the designated replica cannot lead, UNCLEAN falls to the next best.
     */
    public static ElectionTarget toTarget(PlannedElection p) {
        List<Integer> replicas = p.expected().replicas();
        Map<Integer, PlanEvidence> answered = p.evidence().stream()
                .filter(e -> e.status() == EvidenceStatus.OK)
                .collect(Collectors.toMap(PlanEvidence::broker, e -> e, (a, b) -> a));
        Comparator<Integer> bestFirst = Comparator
                .comparing((Integer r) -> !answered.containsKey(r))
                .thenComparing(r -> answered.containsKey(r) ? -answered.get(r).lastWrittenLeaderEpoch() : 0)
                .thenComparing(r -> answered.containsKey(r) ? -answered.get(r).logEndOffset() : 0L)
                .thenComparing(replicas::indexOf);
        List<Integer> order = new ArrayList<>();
        order.add(p.designatedLeader());
        replicas.stream().filter(r -> r != p.designatedLeader()).sorted(bestFirst).forEach(order::add);
        PlanEvidence designated = answered.get(p.designatedLeader());
        return new ElectionTarget(p.topicPartition(), p.designatedLeader(), p.expected().leaderEpoch(), replicas, order,
                designated == null ? -1 : designated.logEndOffset(),
                designated == null ? -1 : designated.lastWrittenLeaderEpoch());
    }

    private static PartitionOutcome refuse(ElectionTarget t, String reason, TopicPartitionState current) {
        return new PartitionOutcome(t.topicPartition(), t.designatedLeader(), Outcome.REFUSED, reason, current, null);
    }

    static Set<TopicPartition> partitionsOf(Plan plan) {
        return plan.partitions().stream().map(PlannedElection::topicPartition).collect(Collectors.toSet());
    }
}
