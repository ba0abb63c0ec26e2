// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import dev.uncleanrecovery.OnItsOwnThread;
import dev.uncleanrecovery.UserInputException;
import dev.uncleanrecovery.cluster.ClusterSnapshot;
import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.plan.Plan;
import dev.uncleanrecovery.plan.PlanEvidence;
import dev.uncleanrecovery.plan.PlannedElection;
import dev.uncleanrecovery.probe.EvidenceStatus;
import dev.uncleanrecovery.probe.PartitionToProbe;
import dev.uncleanrecovery.probe.ReplicaEvidence;
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
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;

/**
 * Applies a reviewed plan: re-validates every partition against the cluster as it is now, probes each
 * designated replica once more, then hands the partitions that are still safe to the elector.
 */
public final class PlanExecution {

    private final PartitionStateReader reader;
    private final ReplicaReprobe reprobe;
    private final DesignatedElector elector;
    private final boolean allowUnprobedLeader;
    private final Consumer<String> progress;

    public PlanExecution(PartitionStateReader reader, ReplicaReprobe reprobe, DesignatedElector elector,
                         boolean allowUnprobedLeader, Consumer<String> progress) {
        this.reader = reader;
        this.reprobe = reprobe;
        this.elector = elector;
        this.allowUnprobedLeader = allowUnprobedLeader;
        this.progress = progress;
    }

    public ExecutionResult run(Plan plan, String planFile) {
        return run(plan, planFile, () -> { }, null);
    }

    /**
     * @param beforeElecting runs after the re-read and the designated replicas' second look, right before the
     *                       elector changes anything (its preparation, which changes nothing, may go first); if it
     *                       throws, nothing is elected (recover: the plan must be on disk first)
     * @param asPlanned      the partitions as read for the plan (recover), or null (a plan file does not carry the
     *                       topic ids a probe needs): with it, the designated replicas are probed once more while
     *                       the partitions are re-read, and an answer counts only for a partition the re-read finds
     *                       as the probe saw it (same topic id and leader epoch); the others are probed again
     */
    public ExecutionResult run(Plan plan, String planFile, Runnable beforeElecting, ClusterSnapshot asPlanned) {
        Instant startedAt = Instant.now();
        long start = System.nanoTime();
        Map<TopicPartition, PlannedElection> planned = new LinkedHashMap<>();
        plan.partitions().forEach(p -> planned.put(p.topicPartition(), p));
        Map<TopicPartitionState, Integer> early = asPlanned == null ? Map.of() : designatedAsPlanned(planned, asPlanned);
        CompletableFuture<Map<TopicPartition, ReplicaEvidence>> earlyReprobe = null;
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
        Map<TopicPartition, ElectionTarget> proceed = new LinkedHashMap<>();
        for (PlannedElection p : planned.values()) {
            ElectionTarget target = toTarget(p);
            Optional<TopicPartitionState> current = now.partition(p.topicPartition());
            if (current.isEmpty()) {
                outcomes.put(p.topicPartition(), refuse(target, "partition no longer exists", null));
                continue;
            }
            Optional<String> unprobed = unprobedDesignation(p);
            if (unprobed.isPresent()) {
                outcomes.put(p.topicPartition(), refuse(target, unprobed.get(), current.get()));
                continue;
            }
            Revalidation.Verdict verdict = Revalidation.check(target, current.get(), now);
            if (verdict instanceof Revalidation.Verdict.AlreadyRecovered done) {
                outcomes.put(p.topicPartition(), new PartitionOutcome(p.topicPartition(), p.designatedLeader(),
                        Outcome.ALREADY_RECOVERED, done.detail(), current.get(), current.get()));
            } else if (verdict instanceof Revalidation.Verdict.Refuse refused) {
                outcomes.put(p.topicPartition(), refuse(target, refused.reason(), current.get()));
            } else {
                proceed.put(p.topicPartition(), target);
            }
        }

        if (!proceed.isEmpty()) {
            elector.prepare();
            Map<TopicPartitionState, Integer> toReprobe = new LinkedHashMap<>();
            proceed.values().forEach(t -> toReprobe.put(now.partition(t.topicPartition()).orElseThrow(), t.designatedLeader()));
            Map<TopicPartition, ReplicaEvidence> reprobed = new HashMap<>();
            if (earlyReprobe != null) {
                Map<TopicPartition, ReplicaEvidence> answers = OnItsOwnThread.join(earlyReprobe);
                Set<PartitionToProbe> probedAs = early.keySet().stream().map(PartitionToProbe::of).collect(Collectors.toSet());
                toReprobe.keySet().removeIf(state -> {
                    boolean seenAsProbed = probedAs.contains(PartitionToProbe.of(state));
                    if (seenAsProbed) {
                        reprobed.put(state.topicPartition(), answers.get(state.topicPartition()));
                    }
                    return seenAsProbed;
                });
            }
            if (!toReprobe.isEmpty()) {
                progress.accept("probing the " + toReprobe.size() + " designated replica(s) once more");
                reprobed.putAll(reprobe.reprobe(toReprobe));
            }
            for (ElectionTarget t : List.copyOf(proceed.values())) {
                Optional<String> shrank = Revalidation.logShrank(t, reprobed.get(t.topicPartition()));
                if (shrank.isPresent()) {
                    proceed.remove(t.topicPartition());
                    outcomes.put(t.topicPartition(), refuse(t, shrank.get(), now.partition(t.topicPartition()).orElse(null)));
                }
            }
        }

        if (proceed.isEmpty()) {
            beforeElecting.run();
        } else {
            progress.accept(elector.describe());
            elector.elect(new ArrayList<>(proceed.values()), now, beforeElecting)
                    .forEach(o -> outcomes.put(o.topicPartition(), o));
        }
        List<PartitionOutcome> ordered = planned.keySet().stream().map(outcomes::get).toList();
        return new ExecutionResult(now.clusterId(), planFile, startedAt, Duration.ofNanos(System.nanoTime() - start),
                proceed.isEmpty() ? "none (nothing to elect)" : elector.describe(), ordered);
    }

    /** Per partition of the plan that may be elected, its state as planned and the replica to probe once more. */
    private Map<TopicPartitionState, Integer> designatedAsPlanned(Map<TopicPartition, PlannedElection> planned,
                                                                  ClusterSnapshot asPlanned) {
        Map<TopicPartitionState, Integer> designated = new LinkedHashMap<>();
        for (PlannedElection p : planned.values()) {
            if (unprobedDesignation(p).isEmpty()) {
                asPlanned.partition(p.topicPartition()).ifPresent(state -> designated.put(state, p.designatedLeader()));
            }
        }
        return designated;
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
    static ElectionTarget toTarget(PlannedElection p) {
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
