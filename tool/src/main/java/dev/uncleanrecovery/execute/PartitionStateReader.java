// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import dev.uncleanrecovery.cluster.ClusterSnapshot;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/** Reads the cluster's current view of some partitions (DescribeCluster + DescribeTopicPartitions). */
@FunctionalInterface
public interface PartitionStateReader {
    ClusterSnapshot read(Set<TopicPartition> partitions);

    /**
     * The partitions with the newest leaders any live broker knows, for waiting on an election (see
     * {@code ClusterDiscovery.describeNewestLeaders}); the same as {@link #read} unless overridden.
     */
    default ClusterSnapshot readNewestLeaders(Set<TopicPartition> partitions) {
        return read(partitions);
    }

    /**
     * The partitions with their replica order and the reassignments in progress ({@link ClusterSnapshot#reassigning}):
     * what an order is checked against right before the stock elector changes it or puts it back. The same as
     * {@link #read} unless overridden.
     */
    default ClusterSnapshot readOrders(Set<TopicPartition> partitions) {
        return read(partitions);
    }
}
