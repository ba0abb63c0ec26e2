// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import dev.uncleanrecovery.cluster.ClusterSnapshot;
import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.formats.Plan;
import dev.uncleanrecovery.formats.PlanEvidence;
import dev.uncleanrecovery.formats.PlannedElection;
import dev.uncleanrecovery.salvage.SalvagedFile;
import dev.uncleanrecovery.support.OnItsOwnThread;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.TreeMap;
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
    private int partitionsPerBatch = partitionsPerBatch();

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

    /** How many partitions go through the phases from the second look to the election together (see runPhases). */
    public PlanExecution inBatchesOf(int partitions) {
        this.partitionsPerBatch = Math.max(1, partitions);
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
        SecondLookPhase secondLook = beginSecondLook(planned, asPlanned);
        // the plan's cluster id was compared with the live cluster's before anything was sent (recovery.ExecuteFlow)
        ClusterSnapshot now = reader.read(planned.keySet());
        Ledger ledger = new Ledger(planned.values().stream().map(p -> Candidate.of(p, now)).toList(), earlierNotes);
        boolean[] changing = new boolean[1];
        Runnable gate = () -> {
            beforeElecting.run();
            changing[0] = true;
        };
        try {
            return runPhases(ledger, secondLook, now, gate, planFile, planned.keySet(), startedAt, start);
        } catch (RuntimeException | Error e) {
            if (!changing[0]) {
                throw e; // nothing was changed: the failure is the answer
            }
            // A run that may have changed something always leaves its record: the outcomes known so far, and what the
            // cluster shows of the rest.
            return stoppedMidway(planFile, planned, now, ledger, startedAt, start, e);
        }
    }

    /**
     * The runbook's step 7, one phase after the other: each takes the partitions still going and refuses some, settles
     * some, and lets the rest go on to the next. After the re-validation the partitions go through the other phases
     * in batches ({@link #inBatchesOf}), each batch through every phase in turn, so the first are led long
     * before the last; while one batch is elected, the next gets its second look, loss measurement and salvage (they
     * change nothing in the cluster). A batch whose election failed or went to another replica stops the batches
     * after it: those are refused, unchanged.
     */
    private ExecutionResult runPhases(Ledger ledger, SecondLookPhase secondLook, ClusterSnapshot now,
                                      Runnable beforeElecting, String planFile, Set<TopicPartition> order,
                                      Instant startedAt, long start) {
        ElectPhase electing = new ElectPhase(elector, mode.dryRun(), progress);
        List<Candidate> going = ledger.settle(Revalidation.recheck(ledger.going(), now, allowUnprobedLeader));
        electing.prepare(going);
        // --all-or-nothing judges every partition before the first change, and a dry run changes nothing: one batch
        List<List<Candidate>> batches = batches(going,
                mode.allOrNothing() || mode.dryRun() ? Math.max(1, going.size()) : partitionsPerBatch);
        Runnable firstChange = once(beforeElecting);
        List<Candidate> elected = new ArrayList<>();
        List<ElectPhase.Election> elections = new ArrayList<>();
        CompletableFuture<List<Candidate>> next = CompletableFuture.completedFuture(
                prepare(ledger, secondLook, batches.get(0), now));
        try {
            for (int i = 0; i < batches.size(); i++) {
                List<Candidate> ready = OnItsOwnThread.join(next);
                if (i + 1 < batches.size()) {
                    List<Candidate> following = batches.get(i + 1);
                    next = OnItsOwnThread.run("batch-" + (i + 2), () -> prepare(ledger, secondLook, following, now));
                }
                if (batches.size() > 1) {
                    progress.accept("batch " + (i + 1) + " of " + batches.size() + ": " + ready.size()
                            + " partition(s) to elect");
                }
                ElectPhase.Election election = electing.elect(ready, now, firstChange);
                ledger.settle(ready, election.verdicts());
                elected.addAll(ready);
                elections.add(election);
                Optional<String> stop = stopsTheRest(election, i + 1);
                if (stop.isPresent() && i + 1 < batches.size()) {
                    OnItsOwnThread.join(next); // its reads and copies end before the rest is refused
                    List<Candidate> rest = ledger.going(); // every earlier batch is settled
                    ledger.settle(rest, Verdict.each(rest, c -> new Verdict.Refused(stop.get())));
                    break;
                }
            }
        } finally {
            next.exceptionally(e -> null).join(); // no batch's phases outlive the run
        }
        Map<TopicPartition, List<SalvagedFile>> salvaged = new LinkedHashMap<>();
        elected.stream().filter(c -> !c.kept().isEmpty()).forEach(c -> salvaged.put(c.topicPartition(), c.kept()));
        Map<TopicPartition, Map<Integer, String>> unknownLoss = unknownLoss(elected, ledger);
        ElectPhase.Election election = ElectPhase.Election.together(elections);

        ExecutionResult result = new ExecutionResult(now.clusterId(), planFile, startedAt,
                Duration.ofNanos(System.nanoTime() - start), election.electedBy(), ledger.outcomes(order))
                .withUnknownLoss(unknownLoss, acceptUnknownLoss)
                .withLeadersShown(election.leadersShownAfter(), election.metadataLag());
        if (noSalvage) {
            return result.withSalvage(null, "--no-salvage: nothing was kept", Map.of());
        }
        return salvage == null ? result : result.withSalvage(salvage.directory().toString(), null, salvaged);
    }

    /**
     * One batch through the phases before the election: second look, late answers, loss measurement, salvage (and,
     * with --all-or-nothing, the judgement of the whole plan); the batch's partitions still going.
     */
    private List<Candidate> prepare(Ledger ledger, SecondLookPhase secondLook, List<Candidate> batch,
                                    ClusterSnapshot now) {
        List<Candidate> going = ledger.settle(batch, secondLook.look(batch, now));
        going = ledger.settle(going, new LateAnswersPhase(redecision).judge(going, now));
        going = ledger.settle(going, new LossMeasurementPhase(cutLookUp).measure(going, now));
        going = ledger.settle(going, SilentLiveReplicaPhase.judge(going, now, acceptUnknownLoss));
        going = ledger.settle(going, new SalvagePhase(salvage, noSalvage, mode.dryRun(), progress).keep(going, now));
        if (mode.allOrNothing()) {
            going = ledger.settle(going, AllOrNothingPhase.judge(going, ledger.count(Outcome.REFUSED)));
        }
        return going;
    }

    /** Why the batches after this one are not elected: a partition of it failed or was elected to another replica. */
    private static Optional<String> stopsTheRest(ElectPhase.Election election, int batch) {
        return election.verdicts().entrySet().stream()
                .filter(e -> e.getValue() instanceof Verdict.Done done && (done.outcome().outcome() == Outcome.FAILED
                        || done.outcome().outcome() == Outcome.ELECTED_OTHER))
                .findFirst()
                .map(e -> "not elected: the election of batch " + batch + " did not go as planned (" + e.getKey()
                        + " " + ((Verdict.Done) e.getValue()).outcome().outcome() + "), so the batches after it were"
                        + " stopped; nothing of this partition was changed: see that partition, then execute again");
    }

    /**
     * How many partitions go through the phases together; by default as many as one controller write takes (9,999),
     * so that up to that many are one batch: measured at N = 5,000 on a stock cluster (docs/benchmarks.md), batches
     * of 1,000 led the first partition after 6.2 s but all after 28.6 s, each batch waiting about 4.5 s for the new
     * leader's broker to show its 1,000 new leaders before the next began. Set with
     * {@value #PARTITIONS_PER_BATCH_PROPERTY}.
     */
    static int partitionsPerBatch() {
        return Math.max(1, Integer.getInteger(PARTITIONS_PER_BATCH_PROPERTY, DEFAULT_PARTITIONS_PER_BATCH));
    }

    public static final String PARTITIONS_PER_BATCH_PROPERTY = "kafka.unclean.recovery.partitions.per.batch";
    /** Kafka's cap on one controller write; smaller controller requests (their own property) leave the batch whole. */
    private static final int DEFAULT_PARTITIONS_PER_BATCH = 9_999;

    /** The partitions in plan order, {@code size} at a time; one empty batch when there are none. */
    static List<List<Candidate>> batches(List<Candidate> going, int size) {
        List<List<Candidate>> batches = new ArrayList<>();
        for (int from = 0; from < going.size(); from += size) {
            batches.add(List.copyOf(going.subList(from, Math.min(going.size(), from + size))));
        }
        return batches.isEmpty() ? List.of(List.of()) : batches;
    }

    /** Runs {@code action} the first time only: the gate before the run's first change. */
    private static Runnable once(Runnable action) {
        boolean[] ran = new boolean[1];
        return () -> {
            synchronized (ran) {
                if (!ran[0]) {
                    action.run();
                    ran[0] = true;
                }
            }
        };
    }

    /**
     * The replicas whose loss is not known, per partition given to the election (a refused one loses nothing); said
     * in the outcome of each that was (or would be) elected.
     */
    private static Map<TopicPartition, Map<Integer, String>> unknownLoss(List<Candidate> elected, Ledger ledger) {
        Map<TopicPartition, Map<Integer, String>> unknownLoss = new LinkedHashMap<>();
        for (Candidate c : elected) {
            Map<Integer, String> unknown = c.doomed().unknown();
            if (unknown.isEmpty()) {
                continue;
            }
            TopicPartition tp = c.topicPartition();
            unknownLoss.put(tp, unknown);
            Outcome outcome = ledger.outcome(tp).outcome();
            if (outcome == Outcome.ELECTED || outcome == Outcome.ELECTED_OTHER || outcome == Outcome.WOULD_ELECT) {
                new TreeMap<>(unknown).forEach((broker, why) -> ledger.note(tp, "broker " + broker
                        + ": loss NOT KNOWN (" + why + ")"));
            }
        }
        return unknownLoss;
    }

    /**
     * With the partitions as planned (recover), the designated replicas are probed while the partitions are re-read;
     * from a plan file, after.
     */
    private SecondLookPhase beginSecondLook(Map<TopicPartition, PlannedElection> planned, ClusterSnapshot asPlanned) {
        Map<TopicPartitionState, List<Integer>> early = asPlanned == null ? Map.of() : toProbeAsPlanned(planned, asPlanned);
        if (early.isEmpty()) {
            progress.accept("re-reading " + planned.size() + " partition(s) of the plan");
            return SecondLookPhase.afterTheReread(reprobe, progress);
        }
        progress.accept("re-reading " + planned.size() + " partition(s) of the plan while their " + early.size()
                + " designated replica(s) are probed once more");
        return SecondLookPhase.duringTheReread(reprobe, progress, early);
    }

    /**
     * The result of a run that stopped on an exception or an error (out of memory, say) after the re-read: every
     * partition with an outcome keeps it, each other one is FAILED with what the cluster shows of it now.
     */
    private ExecutionResult stoppedMidway(String planFile, Map<TopicPartition, PlannedElection> planned,
                                          ClusterSnapshot now, Ledger ledger, Instant startedAt, long start,
                                          Throwable e) {
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
            PartitionOutcome o = ledger.outcome(tp);
            if (o == null) {
                TopicPartitionState after = seen == null ? null : seen.partition(tp).orElse(null);
                String state = after == null ? "its state could not be read"
                        : after.isOffline() ? "it is still offline, replicas " + after.replicas()
                        : "it is led by " + after.leader() + " at leader epoch " + after.leaderEpoch() + ", replicas "
                                + after.replicas();
                o = new PartitionOutcome(tp, p.designatedLeader(), Outcome.FAILED, "the run stopped before it was done"
                        + " with this partition (" + e + "); " + state, now.partition(tp).orElse(null), after);
            }
            ordered.add(ledger.withNotes(o));
        }
        return new ExecutionResult(now.clusterId(), planFile, startedAt, Duration.ofNanos(System.nanoTime() - start),
                "stopped: " + e, ordered);
    }

    /** Per partition of the plan that may be elected, its state as planned and the replicas to probe once more. */
    private Map<TopicPartitionState, List<Integer>> toProbeAsPlanned(Map<TopicPartition, PlannedElection> planned,
                                                                     ClusterSnapshot asPlanned) {
        Map<TopicPartitionState, List<Integer>> replicas = new LinkedHashMap<>();
        for (PlannedElection p : planned.values()) {
            if (Revalidation.unprobedDesignation(p, allowUnprobedLeader).isEmpty()) {
                asPlanned.partition(p.topicPartition())
                        .ifPresent(state -> replicas.put(state, SecondLookPhase.replicasToProbe(p, state, asPlanned)));
            }
        }
        return replicas;
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
}
