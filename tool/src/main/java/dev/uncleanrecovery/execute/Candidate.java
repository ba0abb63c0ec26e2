// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import dev.uncleanrecovery.cluster.ClusterSnapshot;
import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.evidence.ReplicaEvidence;
import dev.uncleanrecovery.formats.PlannedElection;
import dev.uncleanrecovery.salvage.SalvagedFile;
import java.util.List;
import org.apache.kafka.common.TopicPartition;

/**
 * One partition of the plan on its way to the election, as the phases so far left it.
 *
 * @param entry      the plan entry of the leader it will get: the reviewed one, or the one 'recover' decided again
 * @param target     what the elector is given, made from {@code entry}
 * @param state      the partition as re-read before the run's first phase; null when it no longer exists
 * @param secondLook its replicas' answers to the second look; empty before it
 * @param doomed     what its election truncates, as measured from those answers; null before the measurement
 * @param kept       the copies of those ranges made before electing; empty when none was needed or made
 */
record Candidate(PlannedElection entry, ElectionTarget target, TopicPartitionState state,
                 List<ReplicaEvidence> secondLook, DoomedRanges doomed, List<SalvagedFile> kept) {

    Candidate {
        secondLook = List.copyOf(secondLook);
        kept = List.copyOf(kept);
    }

    /** The plan entry before any phase, with the partition as the re-read found it. */
    static Candidate of(PlannedElection entry, ClusterSnapshot now) {
        return new Candidate(entry, PlanExecution.toTarget(entry), now.partition(entry.topicPartition()).orElse(null),
                List.of(), null, List.of());
    }

    TopicPartition topicPartition() {
        return target.topicPartition();
    }

    Candidate withSecondLook(List<ReplicaEvidence> answers) {
        return new Candidate(entry, target, state, answers, doomed, kept);
    }

    /** Another replica designated (recover decided again); the rest as measured so far. */
    Candidate decidedAgain(PlannedElection chosen) {
        return new Candidate(chosen, PlanExecution.toTarget(chosen), state, secondLook, doomed, kept);
    }

    Candidate measured(DoomedRanges losses) {
        return new Candidate(entry, target, state, secondLook, losses, kept);
    }

    Candidate salvaged(List<SalvagedFile> files) {
        return new Candidate(entry, target, state, secondLook, doomed, files);
    }

    /** Its answer to the second look from {@code broker}, answered or not; null when that broker was not asked. */
    ReplicaEvidence answerOf(int broker) {
        return secondLook.stream().filter(e -> e.broker() == broker).findFirst().orElse(null);
    }

    /** Its outcome when refused: not touched. */
    PartitionOutcome refused(String reason) {
        return new PartitionOutcome(topicPartition(), target.designatedLeader(), Outcome.REFUSED, reason, state, null);
    }
}
