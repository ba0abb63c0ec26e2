// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.recovery;

import dev.uncleanrecovery.UserInputException;
import dev.uncleanrecovery.cluster.ClusterDiscovery;
import dev.uncleanrecovery.cluster.ClusterSnapshot;
import dev.uncleanrecovery.cluster.HangingTransactions;
import dev.uncleanrecovery.cluster.PartitionSelection;
import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.election.ElectionOptions;
import dev.uncleanrecovery.connect.BrokerNativeSupport;
import dev.uncleanrecovery.connect.BrokerState;
import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.evidence.ReplicaEvidence;
import dev.uncleanrecovery.execute.ControllerCalls;
import dev.uncleanrecovery.execute.DesignatedElector;
import dev.uncleanrecovery.execute.ElectorChoice;
import dev.uncleanrecovery.execute.ExecutionResult;
import dev.uncleanrecovery.execute.NativeElector;
import dev.uncleanrecovery.execute.PartitionStateReader;
import dev.uncleanrecovery.execute.PlanExecution;
import dev.uncleanrecovery.execute.Redecision;
import dev.uncleanrecovery.execute.PendingReorders;
import dev.uncleanrecovery.execute.ReplicaOrderRestore;
import dev.uncleanrecovery.execute.RunLock;
import dev.uncleanrecovery.execute.StockElector;
import dev.uncleanrecovery.formats.Plan;
import dev.uncleanrecovery.formats.PlannedElection;
import dev.uncleanrecovery.formats.ReorderJournal;
import dev.uncleanrecovery.formats.RunLockFate;
import dev.uncleanrecovery.probe.ProbeMode;
import dev.uncleanrecovery.probe.ProbeSettings;
import dev.uncleanrecovery.support.OnItsOwnThread;
import dev.uncleanrecovery.election.TruncationEstimate;
import dev.uncleanrecovery.execute.MeasuredTruncation;
import dev.uncleanrecovery.execute.Outcome;
import dev.uncleanrecovery.execute.PartitionOutcome;
import dev.uncleanrecovery.formats.PlanEvidence;
import dev.uncleanrecovery.formats.PlanTruncation;
import dev.uncleanrecovery.probe.BrokerLookUps;
import dev.uncleanrecovery.probe.TruncationPoints;
import dev.uncleanrecovery.salvage.LiveReplicaReader;
import dev.uncleanrecovery.salvage.SalvageStore;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Optional;
import java.util.OptionalLong;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.internals.Topic;

/** Re-validate → re-probe the designated replicas and those that did not answer → elect → verify, for a reviewed plan. */
public final class ExecuteFlow implements AutoCloseable {

    /** How long to wait for the live brokers' ApiVersions before choosing the elector. */
    private static final Duration API_VERSIONS_TIMEOUT = Duration.ofSeconds(10);

    /**
     * @param reprobe       deadline for probing each designated replica (and each that did not answer the plan) once more
     * @param verifyTimeout how long to wait for elected partitions to show their new leader
     * @param probeMode     which RPCs the re-probe uses (the same choice as for the plan)
     * @param mode          for real or as a dry run; all or nothing
     * @param salvageDir    where the doomed ranges are copied before electing; null: beside the plan file
     * @param noSalvage     elect without copying them (--no-salvage)
     * @param locking       the run lock: taken unless the operator runs without it, after breaking a given one
     * @param acceptUnknownLoss an election where some replica's loss is not known does not make the run exit 3
     * @param abortHanging      abort the hanging transactions found on the elected partitions afterwards
     * @param restoreJournals   journals the operator names (--restore-journal), put back first whoever wrote them
     */
    public record Options(boolean allowUnprobedLeader, ProbeSettings reprobe, Duration verifyTimeout, ProbeMode probeMode,
                          PlanExecution.Mode mode, Path salvageDir, boolean noSalvage, Locking locking,
                          boolean acceptUnknownLoss, boolean abortHanging, List<Path> restoreJournals) {

        public Options {
            restoreJournals = restoreJournals == null ? List.of() : List.copyOf(restoreJournals);
        }

        public Options(boolean allowUnprobedLeader, ProbeSettings reprobe, Duration verifyTimeout, ProbeMode probeMode) {
            this(allowUnprobedLeader, reprobe, verifyTimeout, probeMode, PlanExecution.Mode.APPLY);
        }

        public Options(boolean allowUnprobedLeader, ProbeSettings reprobe, Duration verifyTimeout, ProbeMode probeMode,
                       PlanExecution.Mode mode) {
            this(allowUnprobedLeader, reprobe, verifyTimeout, probeMode, mode, null, false, Locking.TAKE, false, false,
                    List.of());
        }
    }

    /**
     * How a run that changes the cluster keeps others out (see {@link RunLock}).
     *
     * @param withoutLock the operator vouches that no other run is active (the lock cannot be taken here)
     * @param breakLock   the id of an abandoned lock to remove first; null for none
     */
    public record Locking(boolean withoutLock, Uuid breakLock) {
        public static final Locking TAKE = new Locking(false, null);
    }

    private final ClusterDiscovery discovery;
    /** The id of the cluster this run acts on, read from the live cluster before anything is sent to it. */
    private final String clusterId;
    /** The run lock, taken on a thread of its own while the run reads: every change waits for it. */
    private CompletableFuture<RunLock> locking;
    /** What became of the lock once released; null until then, and for a run that took none. */
    private CompletableFuture<RunLockFate> releasing;

    /** Told what became of the run lock once it is released. */
    private Consumer<RunLockFate> lockReleased = fate -> { };
    /** The journals this run has looked at already: each is named once. */
    private final Set<Path> journalsSeen = new HashSet<>();

    private ExecuteFlow(ClusterDiscovery discovery, String clusterId) {
        this.discovery = discovery;
        this.clusterId = clusterId;
    }

    /**
     * The flow of a run on the cluster {@code discovery} reaches, checked first: the one place where the live cluster's
     * id is compared with the plan's, before the run lock (and --break-lock), any journal and any change.
     *
     * @param planClusterId the id the plan was made for; null for recover, which plans the live cluster itself
     * @throws UserInputException when the live cluster is another one
     */
    public static ExecuteFlow on(ClusterDiscovery discovery, String planClusterId) {
        String live = discovery.clusterId();
        if (planClusterId != null) {
            requireSameCluster(planClusterId, live);
        }
        return new ExecuteFlow(discovery, live);
    }

    private static void requireSameCluster(String planClusterId, String live) {
        if (!planClusterId.equals(live)) {
            throw new UserInputException("the plan was made for cluster " + planClusterId + ", but --bootstrap-server"
                    + " is cluster " + live + "; nothing was changed: use the plan of this cluster");
        }
    }

    /** The id of the live cluster, as checked when this flow began. */
    public String clusterId() {
        return clusterId;
    }

    /** Tells {@code released} what became of the run lock once it is released (nothing when none was taken). */
    public ExecuteFlow reportingLockTo(Consumer<RunLockFate> released) {
        this.lockReleased = released;
        return this;
    }

    /**
     * Starts taking the run lock (see {@link RunLock}), unless started already or the operator runs without it. It is
     * taken on a thread of its own, beside the reads that come first (the re-read, the probes, the plan): every change
     * waits for it ({@link #awaitLock}), and {@link #close} releases it.
     */
    public void lock(Locking locking, Consumer<String> progress) {
        if (this.locking != null) {
            return;
        }
        if (locking.withoutLock()) {
            progress.accept("WARNING: --without-lock: nothing keeps another run from changing these partitions at the"
                    + " same time; the operator vouches that none is active");
            this.locking = CompletableFuture.completedFuture(null);
            this.releasing = CompletableFuture.completedFuture(RunLockFate.NOT_TAKEN);
            return;
        }
        ControllerCalls controller = ControllerCalls.through(discovery);
        if (locking.breakLock() != null) {
            // right away, not beside the reads: an id that is not the run lock's is bad input, said before any work
            RunLock.breakLock(controller, locking.breakLock(), progress);
        }
        this.locking = OnItsOwnThread.run("run-lock", () -> RunLock.take(controller, null, progress));
    }

    /**
     * Before a change: the run lock, once taken.
     *
     * @throws RunLock.Held when another run holds it: nothing was changed
     */
    private void awaitLock() {
        if (locking != null) {
            OnItsOwnThread.join(locking);
        }
    }

    /** Releases the run lock once this run changes nothing more, beside what is left to read and print. */
    private void releaseInBackground() {
        CompletableFuture<RunLock> taken = locking;
        locking = null;
        if (taken != null && releasing == null) {
            releasing = taken.handle((held, failure) -> held)
                    .thenApplyAsync(held -> held == null ? null : held.release());
        }
    }

    /**
     * Releases the run lock, if this run took it, and waits until it is.
     *
     * @return what became of it ({@link RunLockFate#NOT_TAKEN} with --without-lock); empty when this run took none
     *         (a dry run, or one stopped before the lock was taken)
     */
    public Optional<RunLockFate> releaseLock() {
        releaseInBackground();
        Optional<RunLockFate> fate = releasing == null ? Optional.empty() : Optional.ofNullable(releasing.join());
        fate.ifPresent(lockReleased);
        return fate;
    }

    /** {@link #releaseLock}: a lock left in place is said as a warning. */
    @Override
    public void close() {
        releaseLock();
    }

    /** @param planSha256 the SHA-256 of the plan file's bytes, as read: the journal of this run is bound to it */
    public ExecutionResult execute(Plan plan, String planFile, String planSha256, Options options,
                                   Consumer<String> progress) {
        return execute(plan, planFile, () -> planSha256, options, progress, () -> { }, null, null);
    }

    /**
     * @param planSha256     the SHA-256 of the plan file, once it is on the disk (recover writes it as the run begins)
     * @param beforeElecting and asPlanned: see {@link PlanExecution#run(Plan, String, Runnable, ClusterSnapshot)}
     * @param redecision     what to do when a replica that did not answer the plan answers now with more (recover
     *                       decides again); null refuses the partition
     */
    public ExecutionResult execute(Plan plan, String planFile, Supplier<String> planSha256, Options options,
                                   Consumer<String> progress, Runnable beforeElecting, ClusterSnapshot asPlanned,
                                   Redecision redecision) {
        requireSameCluster(plan.clusterId(), clusterId);
        PendingReorders journal = new PendingReorders(ReorderJournal.pathFor(Path.of(planFile)), clusterId, planFile,
                planSha256);
        Path salvageDirectory = options.noSalvage() ? null
                : options.salvageDir() != null ? options.salvageDir() : SalvageStore.besidePlan(Path.of(planFile));
        if (salvageDirectory != null) {
            // before the lock and any read: a directory others may write is bad input, whatever the cluster says
            SalvageStore.refuseShared(salvageDirectory);
        }
        if (!options.mode().dryRun()) {
            lock(options.locking(), progress);
        }
        Runnable gate = () -> {
            awaitLock();
            beforeElecting.run();
        };
        // Before anything else: runs of this plan killed between their reorder and their restore, and the journals
        // the operator named.
        Map<TopicPartition, String> leftover = restoreInterrupted(Path.of(planFile), planSha256.get(),
                options.restoreJournals(), options.mode().dryRun(), progress);
        // the followers' look-ups before the election and the read-back after it: a Fetch for many partitions each
        BrokerLookUps lookUps = new BrokerLookUps(discovery.connections(), options.reprobe().requestTimeout());
        BrokerCutLookUp cutLookUp = new BrokerCutLookUp(lookUps, options.reprobe());
        PlanExecution execution = new PlanExecution(new Describing(discovery),
                new PlanReprobe(discovery, plan, options.reprobe(), options.probeMode()),
                elector(options, progress, journal), options.allowUnprobedLeader(), progress)
                .withRedecision(redecision)
                .withMode(options.mode())
                .withEarlierNotes(leftover)
                .withCutLookUp(cutLookUp)
                .acceptingUnknownLoss(options.acceptUnknownLoss());
        if (options.noSalvage()) {
            execution.withoutSalvage();
        } else {
            execution.withSalvage(new LiveSalvage(salvageDirectory,
                    new SalvageStore.PlanReference(planFile, plan.clusterId(), plan.createdAt()), discovery::connections,
                    LiveReplicaReader.Settings.defaults(), progress));
        }
        ExecutionResult withHanging;
        // The lock is held until the hanging transactions are looked at: an abort changes the cluster, and the look
        // itself is not queued behind the lock topic's deletion on a broker still applying it.
        try {
            ExecutionResult result = execution.run(plan, planFile, gate, asPlanned);
            if (options.mode().dryRun() || !result.anyUncleanElection()) {
                return result;
            }
            HangingTransactions.Result hanging = hangingTransactions(result, progress);
            if (options.abortHanging() && !hanging.hanging().isEmpty()) {
                progress.accept("aborting " + hanging.hanging().size() + " hanging transaction(s)");
                hanging = hanging.withAborts(HangingTransactions.abort(discovery.admin(), hanging.hanging(),
                        discovery.requestTimeout()));
            }
            withHanging = result.withHanging(hanging);
        } finally {
            releaseInBackground(); // what is left only reads
        }
        try {
            return withHanging.withTruncations(measuredTruncations(plan, withHanging, lookUps, cutLookUp.lookUps(),
                    options.reprobe()));
        } catch (RuntimeException | Error e) {
            // the elections are done and recorded: a read-back that fails leaves the truncations unmeasured
            progress.accept("the truncations could not be read back after the election: " + e);
            return withHanging;
        }
    }

    /**
     * The stock elector (reorder + UNCLEAN) or the native one (ElectLeaders v3 with designated leaders), as the live
     * brokers' ApiVersions allow. The electors poll while they wait for a reorder or a leader: brokers and partitions
     * are all they need.
     */
    private DesignatedElector elector(Options options, Consumer<String> progress, PendingReorders journal) {
        PartitionStateReader polling = new Polling(discovery);
        return new ElectorChoice(
                () -> {
                    // The brokers of the re-read that has just validated the plan: no new DescribeCluster.
                    List<BrokerState> brokers = discovery.lastKnownBrokers();
                    List<Integer> live = brokers.stream().filter(b -> !b.fenced()).map(BrokerState::id).toList();
                    return BrokerNativeSupport.survey(discovery.connections(brokers), live, API_VERSIONS_TIMEOUT);
                },
                // The connections exist by now: the survey above opened them with the live brokers.
                via -> NativeElector.of(discovery.connections(), via, polling, options.verifyTimeout(), progress),
                whyStock -> new StockElector(ControllerCalls.through(discovery), polling, options.verifyTimeout(), progress,
                        whyStock, journal));
    }

    /**
     * Per elected partition, where each other replica with a known log cuts under the leader now in place (but those
     * the plan said lose nothing in the leader's own epoch), next to what the plan said for that leader: the follower's own look-up, with the new leader's answers read after the
     * election (its cache holds the new epoch by now: nothing is simulated) and the follower's from right before it.
     */
    private Map<TopicPartition, List<MeasuredTruncation>> measuredTruncations(Plan plan, ExecutionResult result,
                                                                              BrokerLookUps lookUps,
                                                                              Map<TopicPartition, TruncationPoints> before,
                                                                              ProbeSettings settings) {
        Map<TopicPartition, PlannedElection> planned = new HashMap<>();
        plan.partitions().forEach(p -> planned.put(p.topicPartition(), p));
        Map<TopicPartition, List<CompletableFuture<MeasuredTruncation>>> asks = new LinkedHashMap<>();
        for (PartitionOutcome outcome : result.partitions()) {
            PlannedElection p = planned.get(outcome.topicPartition());
            TopicPartitionState after = outcome.after();
            if (p == null || after == null || after.isOffline()
                    || (outcome.outcome() != Outcome.ELECTED && outcome.outcome() != Outcome.ELECTED_OTHER)) {
                continue;
            }
            TopicPartition tp = p.topicPartition();
            PlanEvidence leaderBefore = knownLog(p, after.leader());
            if (leaderBefore == null) {
                continue;
            }
            // the plan's figures for the leader in place: its expectedTruncation, or the alternative's when the
            // reviewer designated that one (or the controller elected it)
            List<PlanTruncation> plannedCuts = p.truncationsUnder(after.leader()).orElse(List.of());
            ReplicaEvidence leader = null;
            TruncationPoints points = null;
            for (int broker : after.replicas()) {
                PlanEvidence follower = broker == after.leader() ? null : knownLog(p, broker);
                if (follower == null) {
                    continue;
                }
                long plannedFrom = plannedFrom(plannedCuts, broker);
                long logEnd = follower.logEndOffset();
                // a shorter log of the leader's own epoch: the new epoch starts at the leader's log end, past it, so
                // it loses nothing (the common case, not worth a request per partition)
                if (plannedFrom == logEnd && follower.lastWrittenLeaderEpoch().equals(leaderBefore.lastWrittenLeaderEpoch())) {
                    continue;
                }
                if (points == null) {
                    leader = ReplicaEvidence.answered(tp, after.leader(), leaderBefore.source(),
                            leaderBefore.logEndOffset(), after.leaderEpoch(), after.leaderEpoch(), -1L, Instant.now());
                    points = before.containsKey(tp) ? before.get(tp).withFreshAnswersFrom(after.leader())
                            : TruncationPoints.over(lookUps, after);
                }
                // where its loss starts needs its batches as they were before it followed the leader: only the
                // look-ups made before the election read them
                ReplicaEvidence followerLog = follower.toReplicaEvidence(tp);
                CompletableFuture<OptionalLong> from = before.containsKey(tp) ? points.lossFrom(leader, followerLog)
                        : points.truncateTo(leader, followerLog);
                asks.computeIfAbsent(tp, k -> new ArrayList<>()).add(from
                        .thenApply(cut -> new MeasuredTruncation(broker, plannedFrom,
                                cut.isPresent() ? Math.min(cut.getAsLong(), logEnd) : -1L, logEnd)));
            }
        }
        Map<TopicPartition, List<MeasuredTruncation>> measured = new LinkedHashMap<>();
        lookUps.settle(settings.timeout());
        // a look-up that failed or is late is left out: not measured
        asks.forEach((tp, futures) -> measured.put(tp, futures.stream()
                .filter(f -> f.isDone() && !f.isCompletedExceptionally()).map(CompletableFuture::join).toList()));
        return measured;
    }

    /** Where the plan said {@code broker} starts losing records under that leader, or -1 when not exactly. */
    private static long plannedFrom(List<PlanTruncation> plannedCuts, int broker) {
        for (PlanTruncation t : plannedCuts) {
            if (t.broker() == broker && t.estimate() == TruncationEstimate.EXACT) {
                return t.fromOffset();
            }
        }
        return -1L;
    }

    /** What the plan knew of a replica's log: a live answer, else one read from disk. */
    private static Optional<ReplicaEvidence> known(PlannedElection p, int broker) {
        return Optional.ofNullable(knownLog(p, broker)).map(e -> e.toReplicaEvidence(p.topicPartition()));
    }

    /** {@link #known}, as the plan has it; null when the plan knew nothing of that log. */
    private static PlanEvidence knownLog(PlannedElection p, int broker) {
        PlanEvidence fromDisk = null;
        for (PlanEvidence e : p.evidence()) {
            if (e.broker() != broker || e.status() != EvidenceStatus.OK || e.lastWrittenLeaderEpoch() == null
                    || e.logEndOffset() == null) {
                continue;
            }
            if (e.source() != EvidenceSource.DISK) {
                return e;
            }
            fromDisk = fromDisk == null ? e : fromDisk;
        }
        return fromDisk;
    }

    /**
     * Open transactions nothing will close on the partitions just elected. When a partition of
     * {@code __transaction_state} was among them, its coordinator may have forgotten transactions open anywhere:
     * then every partition of the cluster is looked at, as {@code kafka-transactions.sh find-hanging} does per broker.
     */
    private HangingTransactions.Result hangingTransactions(ExecutionResult result, Consumer<String> progress) {
        Map<TopicPartition, Integer> leaders = new HashMap<>();
        boolean stateElected = false;
        for (PartitionOutcome o : result.partitions()) {
            if ((o.outcome() == Outcome.ELECTED || o.outcome() == Outcome.ELECTED_OTHER) && o.after() != null
                    && !o.after().isOffline()) {
                leaders.put(o.topicPartition(), o.after().leader());
                stateElected |= o.topicPartition().topic().equals(Topic.TRANSACTION_STATE_TOPIC_NAME);
            }
        }
        if (leaders.isEmpty()) {
            return HangingTransactions.Result.notNeeded("no partition was elected");
        }
        try {
            // A transaction begins at its coordinator, a partition leader of __transaction_state, which Kafka creates
            // on the first transactional producer's request: without that topic no transaction was ever open.
            if (!stateElected && !discovery.mayHaveTopic(Topic.TRANSACTION_STATE_TOPIC_NAME)) {
                return HangingTransactions.Result.notNeeded(Topic.TRANSACTION_STATE_TOPIC_NAME
                        + " does not exist: no transaction was ever begun on this cluster");
            }
            if (stateElected) {
                leaders.clear();
                discovery.describePartitionsOnly(new PartitionSelection.AllTopics()).partitions().stream()
                        .filter(p -> !p.isOffline()).forEach(p -> leaders.put(p.topicPartition(), p.leader()));
                progress.accept(Topic.TRANSACTION_STATE_TOPIC_NAME + " was elected: looking for hanging transactions"
                        + " on all " + leaders.size() + " partition(s) with a leader");
            } else {
                progress.accept("looking for hanging transactions on " + leaders.size() + " elected partition(s)");
            }
            return HangingTransactions.find(discovery.connections(), leaders, discovery::admin,
                    discovery.requestTimeout(), Clock.systemUTC());
        } catch (RuntimeException e) {
            return new HangingTransactions.Result(List.of(), List.of("could not ask the cluster: " + e.getMessage()));
        }
    }

    /** What {@link #executeWhileReporting} did: the report's exit code and the execution. */
    public record Recovered(int reportExitCode, ExecutionResult result) {
    }

    /**
     * Writes and prints a plan; gives {@code written} the SHA-256 of the file once it is on disk; returns the exit code
     * of its part.
     */
    @FunctionalInterface
    public interface PlanReport {
        int write(Consumer<String> written) throws Exception;
    }

    /**
     * {@code recover --automated-recovery}: the plan is written and printed on a thread of its own while its
     * partitions are re-read and the designated replicas probed once more, but nothing is elected before the plan
     * is on disk (an election the operator cannot find a plan for must never happen); printing may still go on.
     *
     * @param progress the execution's steps, given the report (to hold them until the plan is printed)
     */
    public Recovered executeWhileReporting(PlanFlow.Result planned, String planFile, Options options,
                                           ElectionOptions election, PlanReport report,
                                           Function<CompletableFuture<Integer>, Consumer<String>> progress) {
        CompletableFuture<String> written = new CompletableFuture<>();
        CompletableFuture<Integer> reported = OnItsOwnThread.run("plan-report", () -> report.write(written::complete));
        ExecutionResult result;
        try {
            result = execute(planned.plan(), planFile, () -> written.getNow(null), options, progress.apply(reported),
                    () -> CompletableFuture.anyOf(written, reported).join(), planned.snapshot(),
                    PlanFlow.redecision(planned, election, discovery.connections(), options.reprobe()));
        } finally {
            reported.handle((code, failure) -> code).join();
        }
        return new Recovered(reported.join(), result);
    }

    /**
     * Puts back the replica orders that runs of this plan killed between their reorder and their restore left beside
     * {@code planFile}, and those of the journals the operator names; lists every other journal of this cluster there
     * with the command that acts on it ('recover' writes a new plan each time: a killed recover's journal is bound to
     * the plan that recover wrote). A dry run only says what a real run would do.
     *
     * @param planSha256 the SHA-256 of the plan file; null when it is not on the disk yet (recover, before it plans)
     * @param named      the journals the operator names (--restore-journal)
     * @return per partition, what an interrupted run left and what was done about it
     */
    public Map<TopicPartition, String> restoreInterrupted(Path planFile, String planSha256, List<Path> named,
                                                          boolean dryRun, Consumer<String> progress) {
        List<PendingReorders> toRestore = new ArrayList<>(namedJournals(named));
        for (PendingReorders found : PendingReorders.beside(planFile, clusterId, planSha256)) {
            if (!journalsSeen.add(found.file().orElseThrow().toAbsolutePath().normalize())) {
                continue;
            }
            if (found.standing() == PendingReorders.Standing.BOUND) {
                toRestore.add(found);
            } else {
                found.notice(planFile.toString()).ifPresent(progress);
            }
        }
        return restore(toRestore, dryRun, progress);
    }

    /**
     * Puts back the replica orders of the journals the operator names (--restore-journal), before anything else: what
     * 'recover' does before it plans, so that its plan reads the orders as they were.
     */
    public Map<TopicPartition, String> restoreNamed(List<Path> named, boolean dryRun, Consumer<String> progress) {
        return restore(namedJournals(named), dryRun, progress);
    }

    /** The journals named and not looked at yet by this run, each checked to be this cluster's. */
    private List<PendingReorders> namedJournals(List<Path> named) {
        List<PendingReorders> journals = new ArrayList<>();
        for (Path file : named) {
            if (journalsSeen.add(file.toAbsolutePath().normalize())) {
                journals.add(PendingReorders.named(file, clusterId));
            }
        }
        return journals;
    }

    private Map<TopicPartition, String> restore(List<PendingReorders> journals, boolean dryRun,
                                                Consumer<String> progress) {
        if (journals.isEmpty()) {
            return Map.of();
        }
        PartitionStateReader reader = new Describing(discovery);
        ReplicaOrderRestore restore = new ReplicaOrderRestore(new Polling(discovery), ControllerCalls.through(discovery),
                RESTORE_VISIBLE);
        Map<TopicPartition, String> notes = new HashMap<>();
        for (PendingReorders left : journals) {
            if (dryRun) {
                left.notice(null).ifPresent(progress);
            } else {
                awaitLock();
                left.restoreLeftover(reader, restore, progress)
                        .forEach((tp, note) -> notes.merge(tp, note, (a, b) -> a + "; " + b));
            }
        }
        return notes;
    }

    /** How long a restored order of an interrupted run may take to reach the broker that is read next. */
    private static final Duration RESTORE_VISIBLE = Duration.ofSeconds(10);

    /** The partitions as the controller describes them, with the brokers: what a plan is re-validated against. */
    private record Describing(ClusterDiscovery discovery) implements PartitionStateReader {
        @Override
        public ClusterSnapshot read(Set<TopicPartition> partitions) {
            return discovery.describe(new PartitionSelection.Explicit(partitions));
        }
    }

    /**
     * Brokers and partitions only, for polling while waiting for a reorder, a leader or a restored order; with the
     * reassignments in progress where an order is checked before it is changed or put back.
     */
    private record Polling(ClusterDiscovery discovery) implements PartitionStateReader {
        @Override
        public ClusterSnapshot read(Set<TopicPartition> partitions) {
            return discovery.describePartitionsOnly(new PartitionSelection.Explicit(partitions));
        }

        @Override
        public Set<Integer> liveBrokers() {
            return discovery.brokers().stream().filter(b -> !b.fenced()).map(BrokerState::id)
                    .collect(java.util.stream.Collectors.toSet());
        }

        @Override
        public CompletableFuture<List<TopicPartitionState>> readOn(int broker, Set<TopicPartition> partitions) {
            return discovery.describeOn(broker, partitions);
        }

        @Override
        public ClusterSnapshot readOrders(Set<TopicPartition> partitions) {
            return discovery.describeOrders(new PartitionSelection.Explicit(partitions));
        }
    }
}
