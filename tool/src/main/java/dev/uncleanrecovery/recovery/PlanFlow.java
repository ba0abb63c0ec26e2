// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.recovery;

import dev.uncleanrecovery.UserInputException;
import dev.uncleanrecovery.cluster.ClusterDiscovery;
import dev.uncleanrecovery.cluster.ClusterSnapshot;
import dev.uncleanrecovery.cluster.ConsumerGroupOffsets;
import dev.uncleanrecovery.cluster.PartitionSelection;
import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.connect.BrokerConnections;
import dev.uncleanrecovery.connect.BrokerState;
import dev.uncleanrecovery.election.Alternative;
import dev.uncleanrecovery.election.Decision;
import dev.uncleanrecovery.election.ElectionOptions;
import dev.uncleanrecovery.election.KnownCuts;
import dev.uncleanrecovery.election.LeaderChoice;
import dev.uncleanrecovery.election.SkipCause;
import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.evidence.ReplicaEvidence;
import dev.uncleanrecovery.execute.Redecision;
import dev.uncleanrecovery.formats.EvidenceFile;
import dev.uncleanrecovery.formats.Plan;
import dev.uncleanrecovery.formats.PlanBuilder;
import dev.uncleanrecovery.formats.PlanConsumerGroup;
import dev.uncleanrecovery.formats.PlanUnansweredBroker;
import dev.uncleanrecovery.probe.BrokerLookUps;
import dev.uncleanrecovery.probe.PartitionToProbe;
import dev.uncleanrecovery.probe.ProbeFanOut;
import dev.uncleanrecovery.probe.ProbeMode;
import dev.uncleanrecovery.probe.ProbeProgress;
import dev.uncleanrecovery.probe.ProbeResult;
import dev.uncleanrecovery.probe.ProbeSettings;
import dev.uncleanrecovery.probe.RequestCounts;
import dev.uncleanrecovery.probe.UnansweredBroker;
import dev.uncleanrecovery.support.InOrder;
import dev.uncleanrecovery.support.OnItsOwnThread;
import dev.uncleanrecovery.support.PartitionMap;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import dev.uncleanrecovery.election.ExpectedTruncation;
import dev.uncleanrecovery.election.TruncationEstimate;
import dev.uncleanrecovery.probe.TruncationPoints;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.internals.Topic;

/**
 * Discover → probe every replica → choose → plan. Changes nothing in the cluster.
 */
public final class PlanFlow {

    /**
     * @param selection what the user selected; with {@link PartitionSelection.AllTopics} only offline partitions
     *                  are planned, an explicit selection plans (or skips, with the reason) every selected one
     * @param probeMode       which RPCs ask the brokers (native GetReplicaLogInfo, stock, or per broker)
     * @param unlistedBrokers brokers the cluster does not list, at addresses the operator gave: probed like fenced
     *                        brokers and never elected (a 3.x cluster lists no fenced broker)
     * @param acceptUnidentifiedEvidence use disk evidence that names no cluster id or no topic id, which cannot be told
     *                        from another cluster's or a deleted topic's (the operator vouches for it)
     */
    public record Options(PartitionSelection selection, ElectionOptions election, ProbeSettings probe,
                          ProbeMode probeMode, List<EvidenceFile> diskEvidence, List<BrokerState> unlistedBrokers,
                          boolean acceptUnidentifiedEvidence) {

        public Options {
            diskEvidence = List.copyOf(diskEvidence);
            unlistedBrokers = List.copyOf(unlistedBrokers);
        }

        public Options(PartitionSelection selection, ElectionOptions election, ProbeSettings probe, ProbeMode probeMode) {
            this(selection, election, probe, probeMode, List.of(), List.of(), false);
        }
    }

    /**
     * The plan and what the commands print beside it. Neither the probe's answers nor the decisions are kept: the
     * plan holds both, per partition, and the run keeps it to print and execute.
     *
     * @param diskEvidence what {@code inspect} read off stopped brokers' disks, per partition, as it was read (a
     *                     partition decided again takes it from here, the live answers from the plan); sized by the
     *                     evidence files given, which the options hold anyway
     */
    public record Result(Plan plan, ClusterSnapshot snapshot, Answered answered,
                         Map<TopicPartition, List<ReplicaEvidence>> diskEvidence, RequestCounts requests,
                         Duration probeTime) {
    }

    /**
     * The brokers that answered the probe and how: per broker that answered GetReplicaLogInfo its broker epoch (the
     * highest it gave), and the brokers that answered the stock RPCs.
     */
    public record Answered(Map<Integer, Long> nativeBrokerEpochs, Set<Integer> stock) {

        public Answered {
            nativeBrokerEpochs = Collections.unmodifiableMap(new TreeMap<>(nativeBrokerEpochs));
            stock = Collections.unmodifiableSet(new TreeSet<>(stock));
        }

        public static Answered by(Map<TopicPartition, List<ReplicaEvidence>> evidence) {
            Map<Integer, Long> nativeEpochs = new TreeMap<>();
            Set<Integer> stock = new TreeSet<>();
            evidence.values().forEach(list -> list.stream().filter(ReplicaEvidence::isAnswered).forEach(e -> {
                if (e.source() == EvidenceSource.NATIVE) {
                    nativeEpochs.merge(e.broker(), e.brokerEpoch(), Math::max);
                } else if (e.source() == EvidenceSource.STOCK) {
                    stock.add(e.broker());
                }
            }));
            return new Answered(nativeEpochs, stock);
        }
    }

    /** Decisions made together before they go into the plan. */
    private static final int DECISION_CHUNK = 2_048;

    /** How long a fenced broker may take to answer (it normally cannot: it serves requests only once unfenced). */
    static final Duration FENCED_BROKER_PROBE_TIMEOUT = Duration.ofSeconds(5);

    private final ClusterDiscovery discovery;
    private final Clock clock;
    private final String tool;

    /** @param tool name and version written into the plan */
    public PlanFlow(ClusterDiscovery discovery, Clock clock, String tool) {
        this.discovery = discovery;
        this.clock = clock;
        this.tool = tool;
    }

    public Result plan(Options options, Consumer<ProbeProgress> progress) {
        // a topic the cluster will not describe becomes a note (and exit 2 or 3), never a silent gap in the plan
        ClusterSnapshot snapshot = discovery.describeListingUnreadableTopics(options.selection());
        for (BrokerState given : options.unlistedBrokers()) {
            BrokerState listed = snapshot.brokersById().get(given.id());
            if (listed != null) {
                throw new UserInputException("--broker-address " + given.id() + "=" + given.address() + ": the cluster"
                        + " lists broker " + given.id() + " at " + listed.address() + "; the option is for brokers it"
                        + " does not list");
            }
        }
        List<TopicPartitionState> considered = options.selection() instanceof PartitionSelection.AllTopics
                ? snapshot.offlinePartitions() : snapshot.partitions();

        List<TopicPartitionState> toProbe = considered.stream()
                .filter(TopicPartitionState::isOffline)
                .filter(p -> !snapshot.reassigning().contains(p.topicPartition()))
                .toList();
        // Listing every topic shows whether any group ever committed an offset: without __consumer_offsets there is
        // no consumer group to look at (and no Admin to start). Where the listing cannot tell, the question to a
        // broker goes beside the probe, as does Admin's start-up: the groups are read once the choice is made.
        boolean assumedOrListed = !(options.selection() instanceof PartitionSelection.AllTopics)
                || snapshot.partitions().stream().anyMatch(p -> p.topic().equals(Topic.GROUP_METADATA_TOPIC_NAME));
        CompletableFuture<Boolean> groupsPossible = toProbe.isEmpty() ? CompletableFuture.completedFuture(false)
                : assumedOrListed ? CompletableFuture.completedFuture(true)
                : OnItsOwnThread.run("consumer-offsets-topic", () -> discovery.mayHaveTopic(Topic.GROUP_METADATA_TOPIC_NAME));
        groupsPossible.thenAccept(possible -> {
            if (possible) {
                OnItsOwnThread.run("admin-start", discovery::admin).exceptionally(failure -> null);
            }
        });
        // Kept in the probe's PartitionMap, not copied to a HashMap: TopicPartition hashes collide (see PartitionMap)
        Map<TopicPartition, List<ReplicaEvidence>> evidence = Map.of();
        RequestCounts requests = new RequestCounts();
        Duration probeTime = Duration.ZERO;
        List<PlanUnansweredBroker> unanswered = List.of();
        if (!toProbe.isEmpty()) {
            ProbeResult probed = probe(snapshot, toProbe, options.probe(), options.probeMode(),
                    options.unlistedBrokers(), progress);
            evidence = probed.evidence();
            requests = probed.requests();
            probeTime = probed.elapsed();
            Map<Integer, String> addresses = new HashMap<>();
            options.unlistedBrokers().forEach(b -> addresses.put(b.id(), b.address()));
            snapshot.brokers().forEach(b -> addresses.put(b.id(), b.address()));
            // a broker the cluster does not list is down, or fenced on 3.x, which lists unfenced brokers only
            Set<Integer> listed = new HashSet<>();
            snapshot.brokers().forEach(b -> listed.add(b.id()));
            Set<Integer> fencedNow = snapshot.fencedBrokers();
            unanswered = probed.unansweredBrokers().stream()
                    .map(b -> PlanUnansweredBroker.from(b, addresses.get(b.broker()),
                            fencedNow.contains(b.broker()) || !listed.contains(b.broker())))
                    .toList();
        }
        PlanBuilder plan = new PlanBuilder(Instant.now(clock), snapshot.clusterId(), tool,
                options.election().strategy()).unansweredBrokers(unanswered)
                .bootstrapServer(discovery.bootstrapServers());
        snapshot.unreadableTopics().forEach(t -> plan.note(t.describe() + "; its partitions are not in this plan"));
        DiskEvidence.Checked disk = DiskEvidence.check(options.diskEvidence(), snapshot, considered,
                options.acceptUnidentifiedEvidence());
        disk.notes().forEach(plan::note);
        evidence = withDiskEvidence(evidence, disk.evidence());

        // A broker the cluster does not list is down or fenced: whatever it answered, the controller would not elect it.
        Set<Integer> fenced = new HashSet<>(snapshot.fencedBrokers());
        options.unlistedBrokers().forEach(b -> fenced.add(b.id()));
        // Each decision goes into the plan as soon as it is final and only its plan entry is kept: 100,000 decisions
        // take about as much heap again as the plan. What the plan tells of the elections as a whole (tiered storage,
        // consumer groups ahead) is gathered on the way.
        Elections elections = new Elections(plan, snapshot, OnItsOwnThread.join(groupsPossible));
        List<Decision.Elect> bounded = new ArrayList<>();
        List<TopicPartitionState> boundedStates = new ArrayList<>();
        Map<TopicPartition, List<ReplicaEvidence>> answers = evidence;
        Function<TopicPartitionState, Decision> decide = partition -> snapshot.reassigning()
                .contains(partition.topicPartition())
                ? new Decision.Skip(partition.topicPartition(), SkipCause.REASSIGNMENT_IN_PROGRESS,
                        "a reassignment is in progress; finish or cancel it first (kafka-reassign-partitions.sh --list)")
                : LeaderChoice.decide(partition, answers.getOrDefault(partition.topicPartition(), List.of()), fenced,
                        options.election());
        // Each decision depends on its partition alone: a chunk of them is made on every core, then added to the plan
        // in order. A chunk at a time keeps only that many decisions beside the plan.
        InOrder.map(considered, DECISION_CHUNK, decide, (partition, decision) -> {
            if (decision instanceof Decision.Elect elect && anyLowerBound(elect)) {
                bounded.add(elect);
                boundedStates.add(partition);
            } else {
                elections.add(partition, answers.getOrDefault(partition.topicPartition(), List.of()), decision);
            }
        });
        // Where epochs differ the estimate is a lower bound: the brokers are asked where those replicas will cut, and
        // the partition is decided again with the exact loss (the same leader: the ranking does not depend on it).
        // Usually no partition needs it, and the map stays empty.
        Map<TopicPartition, KnownCuts> points = truncationPoints(discovery.connections(), bounded, evidence,
                tp -> snapshot.partition(tp).orElseThrow(), options.probe());
        for (int i = 0; i < bounded.size(); i++) {
            TopicPartitionState partition = boundedStates.get(i);
            List<ReplicaEvidence> known = evidence.getOrDefault(partition.topicPartition(), List.of());
            KnownCuts exact = points.get(partition.topicPartition());
            elections.add(partition, known, exact == null ? bounded.get(i)
                    : LeaderChoice.decide(partition, known, fenced, options.election(), exact));
        }
        bounded.clear(); // in the plan now, while the consumer groups are read
        tieredStorage(elections.tieredTopics, plan);
        if (elections.groupsPossible) {
            consumerImpact(elections.newLogEnds, plan);
        }
        return new Result(plan.build(), snapshot, Answered.by(evidence), disk.evidence(), requests, probeTime);
    }

    /** The decisions as they go into the plan, and what the plan says of the elections as a whole. */
    private static final class Elections {
        final PlanBuilder plan;
        final ClusterSnapshot snapshot;
        final boolean groupsPossible;
        /** Topics with remote storage among the partitions to elect. */
        final Set<String> tieredTopics = new TreeSet<>();
        /** Per partition to elect, the designated replica's log end offset as it answered live. */
        final Map<TopicPartition, Long> newLogEnds = new LinkedHashMap<>();

        Elections(PlanBuilder plan, ClusterSnapshot snapshot, boolean groupsPossible) {
            this.plan = plan;
            this.snapshot = snapshot;
            this.groupsPossible = groupsPossible;
        }

        void add(TopicPartitionState partition, List<ReplicaEvidence> known, Decision decision) {
            plan.add(partition, known, decision);
            if (decision instanceof Decision.Elect elect) {
                if (snapshot.hasTieredStorage(partition.topic())) {
                    tieredTopics.add(partition.topic());
                }
                if (groupsPossible) {
                    liveAnswer(known, elect.designatedLeader())
                            .ifPresent(e -> newLogEnds.put(elect.topicPartition(), e.logEndOffset()));
                }
            }
        }
    }

    /**
     * Topics with remote storage among the partitions to elect: a reviewer must know that the loss counted from the
     * local logs is not all of it.
     */
    private static void tieredStorage(Set<String> tiered, PlanBuilder plan) {
        if (tiered.isEmpty()) {
            return;
        }
        plan.tieredStorage(tiered).note("tiered storage (remote.storage.enable=true) on " + String.join(", ", tiered)
                + ": remote segments of the epochs a truncation discards leave the new leader's lineage and Kafka"
                + " deletes them, so the loss may reach past the local logs counted here");
    }

    /**
     * The consumer groups that read past the designated leader's log end: they read records the election destroys.
     * Read-only (ListGroups, OffsetFetch); what cannot be read becomes a note. Offline partitions of
     * {@code __consumer_offsets} come first: groups kept there can neither be read nor commit until one is elected.
     */
    private void consumerImpact(Map<TopicPartition, Long> newLogEnds, PlanBuilder plan) {
        if (newLogEnds.isEmpty()) {
            return;
        }
        ConsumerGroupOffsets.Result groups;
        try {
            groups = ConsumerGroupOffsets.read(discovery.admin(), newLogEnds.keySet(), discovery.requestTimeout());
        } catch (RuntimeException e) {
            plan.note("consumer groups not checked: " + e.getMessage());
            return;
        }
        if (!groups.offlineOffsetsPartitions().isEmpty()) {
            plan.note(Topic.GROUP_METADATA_TOPIC_NAME + " has offline partitions " + groups.offlineOffsetsPartitions()
                    + ": consumer groups kept there can neither read nor commit offsets until they are elected;"
                    + " they come first in this plan when it covers them");
        }
        groups.unreadable().forEach(plan::note);
        Map<TopicPartition, List<PlanConsumerGroup>> ahead = new HashMap<>();
        for (ConsumerGroupOffsets.Committed c : groups.committed()) {
            long newLogEnd = newLogEnds.get(c.topicPartition());
            if (c.offset() > newLogEnd) {
                ahead.computeIfAbsent(c.topicPartition(), k -> new ArrayList<>())
                        .add(PlanConsumerGroup.of(c.group(), c.offset(), newLogEnd));
            }
        }
        ahead.forEach(plan::consumerGroupsAhead);
    }

    /**
     * Per partition to elect, the offset each replica whose loss is only a lower bound (another last written epoch
     * than the leader's) truncates to, under the designated leader and under each alternative, as the brokers answer
     * the follower's look-ups. Only replicas that answered the probe live are asked, and a stopped broker's replica
     * whose epoch cache {@code inspect} read off its disk answers from that cache; any other keeps its estimate.
     */
    private static Map<TopicPartition, KnownCuts> truncationPoints(BrokerConnections connections,
                                                                 List<? extends Decision> decisions,
                                                                 Map<TopicPartition, List<ReplicaEvidence>> evidence,
                                                                 Function<TopicPartition, TopicPartitionState> states,
                                                                 ProbeSettings settings) {
        Map<TopicPartition, Map<Integer, Map<Integer, Long>>> points = new ConcurrentHashMap<>();
        // every partition's look-ups go to a broker together, a Fetch for many partitions
        BrokerLookUps lookUps = new BrokerLookUps(connections, settings.requestTimeout());
        for (Decision decision : decisions) {
            if (!(decision instanceof Decision.Elect elect)) {
                continue;
            }
            if (!anyLowerBound(elect)) {
                continue; // every loss is known exactly or not at all: nothing to ask (the usual case)
            }
            TopicPartition tp = elect.topicPartition();
            List<ReplicaEvidence> known = evidence.getOrDefault(tp, List.of());
            Map<Integer, List<ExpectedTruncation>> byLeader = new LinkedHashMap<>();
            byLeader.put(elect.designatedLeader(), elect.truncations());
            elect.alternatives().forEach(a -> byLeader.put(a.broker(), a.truncations()));
            TruncationPoints asked = null;
            for (Map.Entry<Integer, List<ExpectedTruncation>> under : byLeader.entrySet()) {
                Optional<ReplicaEvidence> leader = liveAnswer(known, under.getKey());
                if (leader.isEmpty()) {
                    continue;
                }
                for (ExpectedTruncation truncation : under.getValue()) {
                    Optional<ReplicaEvidence> follower = liveAnswer(known, truncation.broker())
                            .or(() -> diskEpochCache(known, truncation.broker()));
                    if (truncation.estimate() != TruncationEstimate.AT_LEAST || follower.isEmpty()) {
                        continue;
                    }
                    if (asked == null) {
                        // one per partition: the look-ups are the same whoever leads, and each is asked once
                        asked = TruncationPoints.over(lookUps, states.apply(tp));
                    }
                    asked.lossFrom(leader.get(), follower.get()).thenAccept(point -> point.ifPresent(offset ->
                            points.computeIfAbsent(tp, k -> new ConcurrentHashMap<>())
                                    .computeIfAbsent(under.getKey(), k -> new ConcurrentHashMap<>())
                                    .put(truncation.broker(), offset)));
                }
            }
        }
        // a look-up that failed or is late leaves that replica with its estimate
        lookUps.settle(settings.timeout());
        Map<TopicPartition, KnownCuts> answered = new HashMap<>();
        points.forEach((tp, byLeader) -> answered.put(tp, new KnownCuts(Map.copyOf(byLeader))));
        return answered;
    }

    private static boolean anyLowerBound(Decision.Elect elect) {
        for (ExpectedTruncation t : elect.truncations()) {
            if (t.estimate() == TruncationEstimate.AT_LEAST) {
                return true;
            }
        }
        for (Alternative alternative : elect.alternatives()) {
            for (ExpectedTruncation t : alternative.truncations()) {
                if (t.estimate() == TruncationEstimate.AT_LEAST) {
                    return true;
                }
            }
        }
        return false;
    }

    /** A stopped broker's replica read off its disk with its whole epoch cache: its cuts need no broker to answer. */
    private static Optional<ReplicaEvidence> diskEpochCache(List<ReplicaEvidence> known, int broker) {
        return known.stream().filter(e -> e.broker() == broker && e.isAnswered() && e.source() == EvidenceSource.DISK
                && e.epochCache() != null).findFirst();
    }

    private static Optional<ReplicaEvidence> liveAnswer(List<ReplicaEvidence> known, int broker) {
        return known.stream().filter(e -> e.broker() == broker && e.isAnswered() && e.source() != EvidenceSource.DISK)
                .findFirst();
    }

    /**
     * For {@code recover}: when a replica that did not answer the probe answers the second look with more than the
     * designated one, the partition is decided again by the same policy from the plan's evidence and the new answers
     * (those replace the brokers' earlier failures); where epochs differ, the brokers are asked where replicas cut,
     * as for the plan.
     */
    public static Redecision redecision(Result planned, ElectionOptions options, BrokerConnections connections,
                                        ProbeSettings settings) {
        return (plannedElection, now, cluster, lateAnswers) -> {
            TopicPartition tp = plannedElection.topicPartition();
            Set<Integer> answeredLate = new HashSet<>();
            lateAnswers.forEach(e -> answeredLate.add(e.broker()));
            // the probe's answers as the plan holds them, the disks' as they were read
            List<ReplicaEvidence> evidence = new ArrayList<>(plannedElection.evidence().stream()
                    .filter(e -> e.source() != EvidenceSource.DISK && !answeredLate.contains(e.broker()))
                    .map(e -> e.toReplicaEvidence(tp)).toList());
            evidence.addAll(planned.diskEvidence().getOrDefault(tp, List.of()));
            evidence.addAll(lateAnswers);
            Decision decision = LeaderChoice.decide(now, evidence, cluster.fencedBrokers(), options);
            // exact losses where the epochs differ, as the plan has them
            KnownCuts cuts = truncationPoints(connections, List.of(decision), Map.of(tp, evidence), k -> now, settings)
                    .get(tp);
            if (cuts != null) {
                decision = LeaderChoice.decide(now, evidence, cluster.fencedBrokers(), options, cuts);
            }
            if (decision instanceof Decision.Elect) {
                PlanBuilder one = new PlanBuilder(planned.plan().createdAt(), planned.plan().clusterId(),
                        planned.plan().tool(), options.strategy());
                return new Redecision.Outcome.Elect(one.add(now, evidence, decision).build().partitions().get(0));
            }
            return new Redecision.Outcome.Refuse("decided again with the late answers, and skipped: " + decision.reason());
        };
    }

    /**
     * The probe's answers with what {@code inspect} read from stopped brokers' disks, once checked to be this cluster's
     * and these topics' (see DiskEvidence). It counts as that replica's log (for the truncation estimates and for balanced waiting),
     * but never makes a down broker electable; a live answer from the same broker wins (see LeaderChoice).
     */
    private static Map<TopicPartition, List<ReplicaEvidence>> withDiskEvidence(
            Map<TopicPartition, List<ReplicaEvidence>> evidence, Map<TopicPartition, List<ReplicaEvidence>> disk) {
        if (disk.isEmpty()) {
            return evidence;
        }
        PartitionMap.Builder<List<ReplicaEvidence>> merged = new PartitionMap.Builder<>(evidence.size() + disk.size());
        evidence.forEach((tp, probed) -> {
            List<ReplicaEvidence> read = disk.get(tp);
            merged.put(tp, read == null ? probed : Stream.concat(probed.stream(), read.stream()).toList());
        });
        disk.forEach((tp, read) -> {
            if (!evidence.containsKey(tp)) {
                merged.put(tp, List.copyOf(read));
            }
        });
        return merged.build();
    }

    /** Why a broker the cluster does not list cannot be asked, saying only what is known. */
    static String notListed(ClusterSnapshot snapshot, int broker) {
        return snapshot.listsFencedBrokers() ? "broker " + broker + " is not registered with the controller (it is down)"
                : "broker " + broker + " is not listed by the cluster: down or fenced (Kafka 3.x lists unfenced brokers only;"
                        + " --broker-address " + broker + "=HOST:PORT probes it)";
    }

    /**
     * Every replica of the partitions, on the broker that holds it; a broker the cluster does not list is asked only
     * at an address the operator gave.
     */
    private ProbeResult probe(ClusterSnapshot snapshot, List<TopicPartitionState> partitions, ProbeSettings settings,
                              ProbeMode mode, List<BrokerState> unlistedBrokers, Consumer<ProbeProgress> progress) {
        Set<Integer> registered = new HashSet<>(snapshot.brokersById().keySet());
        unlistedBrokers.forEach(b -> registered.add(b.id()));
        Map<Integer, List<PartitionToProbe>> byBroker = new LinkedHashMap<>();
        Map<TopicPartition, List<ReplicaEvidence>> unreachable = new HashMap<>();
        List<UnansweredBroker> unregistered = new ArrayList<>();
        PartitionToProbe.everyReplica(partitions).forEach((broker, list) -> {
            if (registered.contains(broker)) {
                byBroker.put(broker, list);
            } else {
                unregistered.add(new UnansweredBroker(broker, "broker " + broker, notListed(snapshot, broker), false,
                        list.size(), list.size()));
                for (PartitionToProbe p : list) {
                    unreachable.computeIfAbsent(p.topicPartition(), k -> new ArrayList<>()).add(ReplicaEvidence.failed(
                            p.topicPartition(), broker, mode.unaskedSource(), EvidenceStatus.UNREACHABLE,
                            notListed(snapshot, broker), Instant.now(clock)));
                }
            }
        });
        BrokerConnections connections = discovery.connections(
                Stream.concat(snapshot.brokers().stream(), unlistedBrokers.stream()).toList());
        // A fenced broker serves no request until the controller unfences it: waiting the whole deadline for it
        // would only delay the plan (its replicas cannot be elected, and balanced skips what it would need).
        // It gets a few seconds in case it is being unfenced right now, none if it refuses connections.
        Map<Integer, Duration> fencedDeadlines = new HashMap<>();
        snapshot.fencedBrokers().forEach(b -> fencedDeadlines.put(b, FENCED_BROKER_PROBE_TIMEOUT));
        unlistedBrokers.forEach(b -> fencedDeadlines.put(b.id(), FENCED_BROKER_PROBE_TIMEOUT));
        ProbeResult result = new ProbeFanOut(mode.source(connections), settings, connections::describe)
                .run(byBroker, fencedDeadlines, progress);
        if (unreachable.isEmpty()) {
            return result;
        }
        PartitionMap.Builder<List<ReplicaEvidence>> merged = new PartitionMap.Builder<>(result.evidence().size() + unreachable.size());
        result.evidence().forEach((tp, answered) -> {
            List<ReplicaEvidence> down = unreachable.remove(tp);
            merged.put(tp, down == null ? answered : Stream.concat(answered.stream(), down.stream())
                    .sorted(Comparator.comparingInt(ReplicaEvidence::broker)).toList());
        });
        unreachable.forEach(merged::put);
        List<UnansweredBroker> unanswered = Stream.concat(result.unansweredBrokers().stream(), unregistered.stream())
                .sorted(Comparator.comparingInt(UnansweredBroker::broker)).toList();
        return new ProbeResult(merged.build(), result.requests(), result.elapsed(), unanswered);
    }
}
