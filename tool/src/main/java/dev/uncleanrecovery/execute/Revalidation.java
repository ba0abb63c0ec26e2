// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import dev.uncleanrecovery.cluster.ClusterSnapshot;
import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.evidence.ReplicaEvidence;
import dev.uncleanrecovery.formats.PlanEvidence;
import dev.uncleanrecovery.formats.PlannedElection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;

/**
 * The guard rails between a reviewed plan and the election: a partition is touched only if the cluster is
 * still in the state the plan was made against. Pure: decides from values.
 */
public final class Revalidation {

    private Revalidation() {
    }

    /**
     * The first phase of a run: every partition of the plan against the cluster as re-read. The cluster's own reasons
     * (gone, fenced, not a replica, led again) come before "not probed in the plan".
     *
     * @param allowUnprobedLeader --allow-unprobed-leader: a designated replica with no live evidence in the plan may lead
     */
    static Map<TopicPartition, Verdict> recheck(List<Candidate> partitions, ClusterSnapshot now,
                                                boolean allowUnprobedLeader) {
        return Verdict.each(partitions, c -> {
            Verdict verdict = check(c, now);
            Optional<String> unprobed = unprobedDesignation(c.entry(), allowUnprobedLeader);
            return verdict instanceof Verdict.Proceed && unprobed.isPresent() ? new Verdict.Refused(unprobed.get())
                    : verdict;
        });
    }

    /**
     * Whether the cluster is still as the plan expects for {@code c}'s target: proceed, a no-op because it already
     * happened, or refuse with a reason.
     *
     * @param now the cluster now (fenced brokers, reassignments), {@code c}'s state read with it
     */
    static Verdict check(Candidate c, ClusterSnapshot now) {
        ElectionTarget target = c.target();
        TopicPartitionState current = c.state();
        if (current == null) {
            return new Verdict.Refused("partition no longer exists");
        }
        int designated = target.designatedLeader();
        if (!current.isOffline()) {
            if (current.leader() == designated) {
                return new Verdict.Done(new PartitionOutcome(target.topicPartition(), designated,
                        Outcome.ALREADY_RECOVERED, "already led by designated replica " + designated + " (leader epoch "
                        + current.leaderEpoch() + "); nothing to do", current, current));
            }
            return new Verdict.Refused("has a leader again (" + current.leader() + ", leader epoch "
                    + current.leaderEpoch() + "); not touched");
        }
        if (now.reassigning().contains(target.topicPartition())) {
            return new Verdict.Refused("a reassignment is in progress; finish or cancel it first"
                    + " (kafka-reassign-partitions.sh --list)");
        }
        if (!current.replicas().equals(target.expectedReplicas())) {
            return new Verdict.Refused("replica set changed since the plan: plan " + target.expectedReplicas()
                    + ", now " + current.replicas() + "; make a new plan");
        }
        if (current.leaderEpoch() >= 0 && current.leaderEpoch() != target.expectedLeaderEpoch()) {
            return new Verdict.Refused("stale plan: leader epoch is " + current.leaderEpoch() + ", the plan expected "
                    + target.expectedLeaderEpoch() + "; make a new plan");
        }
        if (!current.replicas().contains(designated)) {
            return new Verdict.Refused("designated leader " + designated + " is not a replica " + current.replicas());
        }
        var broker = now.brokersById().get(designated);
        if (broker == null) {
            return new Verdict.Refused("designated broker " + designated + " is not registered (down?)");
        }
        if (broker.fenced()) {
            return new Verdict.Refused("designated broker " + designated + " is fenced; it cannot lead now");
        }
        return new Verdict.Proceed(c);
    }

    /** Why the designated replica may not lead: it gave no live answer to the plan's probe; empty when it did. */
    static Optional<String> unprobedDesignation(PlannedElection p, boolean allowUnprobedLeader) {
        Optional<PlanEvidence> designated = p.evidence().stream().filter(e -> e.broker() == p.designatedLeader())
                .findFirst();
        boolean answered = designated.isPresent() && designated.get().status() == EvidenceStatus.OK;
        if (answered || allowUnprobedLeader) {
            return Optional.empty();
        }
        return Optional.of("designated leader " + p.designatedLeader() + " has no live evidence in the plan (was it"
                + " edited?); pass --allow-unprobed-leader to elect it anyway");
    }

    /**
     * The designated replica's log, probed again just before electing, must not have shrunk since the plan:
     * a shorter log means the broker restarted and lost data, so the plan's reasoning no longer holds.
     */
    public static Optional<String> logShrank(ElectionTarget target, ReplicaEvidence reprobed) {
        if (!target.wasProbed()) {
            return Optional.empty();
        }
        if (reprobed == null || !reprobed.isAnswered()) {
            return Optional.of("designated replica " + target.designatedLeader() + " did not answer the re-probe"
                    + (reprobed == null || reprobed.error() == null ? "" : " (" + reprobed.error() + ")"));
        }
        if (reprobed.lastWrittenLeaderEpoch() < target.plannedLastWrittenLeaderEpoch()
                || reprobed.logEndOffset() < target.plannedLogEndOffset()) {
            return Optional.of("designated replica " + target.designatedLeader() + " log shrank since the plan: "
                    + "epoch " + target.plannedLastWrittenLeaderEpoch() + " LEO " + target.plannedLogEndOffset()
                    + " -> epoch " + reprobed.lastWrittenLeaderEpoch() + " LEO " + reprobed.logEndOffset()
                    + "; make a new plan");
        }
        return Optional.empty();
    }
}
