// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import dev.uncleanrecovery.cluster.ClusterSnapshot;
import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.evidence.ReplicaEvidence;
import dev.uncleanrecovery.formats.PlannedElection;
import java.util.List;

/**
 * What to do when a replica that did not answer the plan answers now with a better log than the designated one:
 * {@code execute --plan} refuses (a reviewed plan is never changed behind the reviewer's back); {@code recover}
 * decides again from everything it knows.
 */
@FunctionalInterface
public interface Redecision {

    /** The new choice, or why none can be made. */
    sealed interface Outcome {
        record Elect(PlannedElection planned) implements Outcome {
        }

        record Refuse(String reason) implements Outcome {
        }
    }

    /**
     * @param lateAnswers the answers of replicas that had no live answer in the plan
     */
    Outcome redecide(PlannedElection planned, TopicPartitionState now, ClusterSnapshot cluster,
                     List<ReplicaEvidence> lateAnswers);
}
