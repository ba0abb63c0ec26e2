// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import dev.uncleanrecovery.cluster.ClusterSnapshot;
import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.evidence.ReplicaEvidence;
import java.util.Optional;

/**
 * The guard rails between a reviewed plan and the election: a partition is touched only if the cluster is
 * still in the state the plan was made against. Pure: decides from values.
 */
public final class Revalidation {

    private Revalidation() {
    }

    /** A verdict for one partition: proceed, a no-op because it already happened, or refuse with a reason. */
    public sealed interface Verdict {
        record Proceed() implements Verdict {
        }

        record AlreadyRecovered(String detail) implements Verdict {
        }

        record Refuse(String reason) implements Verdict {
        }
    }

    /**
     * @param current the partition as the controller describes it now
     * @param snapshot the cluster now (fenced brokers, reassignments)
     */
    public static Verdict check(ElectionTarget target, TopicPartitionState current, ClusterSnapshot snapshot) {
        int designated = target.designatedLeader();
        if (!current.isOffline()) {
            if (current.leader() == designated) {
                return new Verdict.AlreadyRecovered("already led by designated replica " + designated
                        + " (leader epoch " + current.leaderEpoch() + "); nothing to do");
            }
            return new Verdict.Refuse("has a leader again (" + current.leader() + ", leader epoch "
                    + current.leaderEpoch() + "); not touched");
        }
        if (snapshot.reassigning().contains(target.topicPartition())) {
            return new Verdict.Refuse("a reassignment is in progress; finish or cancel it first"
                    + " (kafka-reassign-partitions.sh --list)");
        }
        if (!current.replicas().equals(target.expectedReplicas())) {
            return new Verdict.Refuse("replica set changed since the plan: plan " + target.expectedReplicas()
                    + ", now " + current.replicas() + "; make a new plan");
        }
        if (current.leaderEpoch() >= 0 && current.leaderEpoch() != target.expectedLeaderEpoch()) {
            return new Verdict.Refuse("stale plan: leader epoch is " + current.leaderEpoch() + ", the plan expected "
                    + target.expectedLeaderEpoch() + "; make a new plan");
        }
        if (!current.replicas().contains(designated)) {
            return new Verdict.Refuse("designated leader " + designated + " is not a replica " + current.replicas());
        }
        var broker = snapshot.brokersById().get(designated);
        if (broker == null) {
            return new Verdict.Refuse("designated broker " + designated + " is not registered (down?)");
        }
        if (broker.fenced()) {
            return new Verdict.Refuse("designated broker " + designated + " is fenced; it cannot lead now");
        }
        return new Verdict.Proceed();
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
