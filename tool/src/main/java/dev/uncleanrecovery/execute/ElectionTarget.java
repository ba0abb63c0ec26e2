// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import java.util.List;
import org.apache.kafka.common.TopicPartition;

/**
 * One partition to give a designated leader, with the state the plan was made against.
 *
 * @param expectedLeaderEpoch  the leader epoch when the plan was made; the election must produce epoch + 1
 * @param expectedReplicas     the replica set, in assignment order, when the plan was made
 * @param replicasBestFirst    the same replicas, designated leader first, then best log to worst: the order the
 *                             stock elector installs so that UNCLEAN (first acceptable replica in assignment
 *                             order) falls to the next best, not to an arbitrary one, if the designated one fails
 * @param plannedLogEndOffset  the designated replica's log end offset in the plan; -1 when it was not probed
 * @param plannedLastWrittenLeaderEpoch its last written epoch in the plan; -1 when not probed
 */
public record ElectionTarget(
        TopicPartition topicPartition,
        int designatedLeader,
        int expectedLeaderEpoch,
        List<Integer> expectedReplicas,
        List<Integer> replicasBestFirst,
        long plannedLogEndOffset,
        int plannedLastWrittenLeaderEpoch) {

    public ElectionTarget {
        expectedReplicas = List.copyOf(expectedReplicas);
        replicasBestFirst = List.copyOf(replicasBestFirst);
        if (replicasBestFirst.isEmpty() || replicasBestFirst.get(0) != designatedLeader) {
            throw new IllegalArgumentException("replicasBestFirst must start with the designated leader");
        }
    }

    public boolean wasProbed() {
        return plannedLogEndOffset >= 0;
    }
}
