// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import dev.uncleanrecovery.cluster.ClusterSnapshot;
import dev.uncleanrecovery.cluster.TopicPartitionState;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;

/** Reads the cluster's current view of some partitions (DescribeCluster + DescribeTopicPartitions). */
@FunctionalInterface
public interface PartitionStateReader {
    ClusterSnapshot read(Set<TopicPartition> partitions);

    /** The registered, unfenced brokers now: those a client may ask for metadata. */
    default Set<Integer> liveBrokers() {
        return read(Set.of()).liveBrokers();
    }

    /**
     * The partitions as one broker's own metadata shows them, for waiting on an election (see
     * {@code ClusterDiscovery.describeOn}); completes exceptionally when the broker does not answer. The same as
     * {@link #read} unless overridden.
     */
    default CompletableFuture<List<TopicPartitionState>> readOn(int broker, Set<TopicPartition> partitions) {
        return CompletableFuture.completedFuture(read(partitions).partitions());
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
