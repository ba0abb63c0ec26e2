// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

import java.util.Collection;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which partitions {@code inspect} reads: all of them, one topic, or some partitions of one topic.
 *
 * @param topic      null for every topic
 * @param partitions empty for every partition of {@code topic}
 */
public record PartitionFilter(String topic, Set<Integer> partitions) {

    public PartitionFilter {
        partitions = Set.copyOf(partitions);
        if (topic == null && !partitions.isEmpty()) {
            throw new IllegalArgumentException("partitions " + new TreeSet<>(partitions) + " need a topic");
        }
    }

    public static PartitionFilter all() {
        return new PartitionFilter(null, Set.of());
    }

    public static PartitionFilter topic(String topic) {
        return new PartitionFilter(topic, Set.of());
    }

    public static PartitionFilter partitions(String topic, Collection<Integer> partitions) {
        return new PartitionFilter(topic, Set.copyOf(partitions));
    }

    public boolean matches(String candidateTopic, int candidatePartition) {
        return (topic == null || topic.equals(candidateTopic))
                && (partitions.isEmpty() || partitions.contains(candidatePartition));
    }

    @Override
    public String toString() {
        if (topic == null) {
            return "all partitions";
        }
        return partitions.isEmpty() ? "topic " + topic : "topic " + topic + " partitions " + new TreeSet<>(partitions);
    }
}
