// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cluster;

import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

/**
 * One partition as the controller's metadata describes it (DescribeTopicPartitions).
 *
 * @param leader          -1 when the partition is offline
 * @param leaderEpoch     -1 when the source did not report it (Metadata fallback on 3.7)
 * @param eligibleLeaderReplicas KIP-966 ELR; empty when the feature is off
 * @param lastKnownElr    KIP-966 LastKnownELR; empty when the feature is off
 * @param offlineReplicas replicas whose broker is fenced, missing or has the directory offline
 */
public record TopicPartitionState(
        String topic,
        Uuid topicId,
        int partition,
        int leader,
        int leaderEpoch,
        List<Integer> replicas,
        List<Integer> isr,
        List<Integer> eligibleLeaderReplicas,
        List<Integer> lastKnownElr,
        List<Integer> offlineReplicas) {

    public static final int NO_LEADER = -1;

    public TopicPartitionState {
        replicas = List.copyOf(replicas);
        isr = List.copyOf(isr);
        eligibleLeaderReplicas = List.copyOf(eligibleLeaderReplicas);
        lastKnownElr = List.copyOf(lastKnownElr);
        offlineReplicas = List.copyOf(offlineReplicas);
    }

    public TopicPartition topicPartition() {
        return new TopicPartition(topic, partition);
    }

    public boolean isOffline() {
        return leader == NO_LEADER;
    }

    /** The same state with the replicas in another order (a reorder the controller has confirmed). */
    public TopicPartitionState withReplicas(List<Integer> order) {
        return new TopicPartitionState(topic, topicId, partition, leader, leaderEpoch, order, isr, eligibleLeaderReplicas,
                lastKnownElr, offlineReplicas);
    }
}
