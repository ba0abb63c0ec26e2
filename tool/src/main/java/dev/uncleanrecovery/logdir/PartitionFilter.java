// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

import java.util.Collection;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.TopicPartition;

/**
 * Which partitions {@code inspect} reads: all of them, one topic, some partitions of one topic, or an explicit
 * set (a kafka-leader-election {@code --path-to-json-file}).
 *
 * @param topic           null unless one topic is selected
 * @param partitions      with {@code topic}: the partitions of it, empty for all
 * @param topicPartitions the explicit set; empty unless neither topic nor partitions is given
 */
public record PartitionFilter(String topic, Set<Integer> partitions, Set<TopicPartition> topicPartitions) {

    public PartitionFilter {
        partitions = Set.copyOf(partitions);
        topicPartitions = Set.copyOf(topicPartitions);
        if (topic == null && !partitions.isEmpty()) {
            throw new IllegalArgumentException("partitions " + new TreeSet<>(partitions) + " need a topic");
        }
        if (topic != null && !topicPartitions.isEmpty()) {
            throw new IllegalArgumentException("a topic and an explicit partition set cannot be combined");
        }
    }

    public static PartitionFilter all() {
        return new PartitionFilter(null, Set.of(), Set.of());
    }

    public static PartitionFilter topic(String topic) {
        return new PartitionFilter(topic, Set.of(), Set.of());
    }

    public static PartitionFilter partitions(String topic, Collection<Integer> partitions) {
        return new PartitionFilter(topic, Set.copyOf(partitions), Set.of());
    }

    /** Exactly these partitions; an empty set selects nothing. */
    public static PartitionFilter exactly(Collection<TopicPartition> topicPartitions) {
        if (topicPartitions.isEmpty()) {
            throw new IllegalArgumentException("an explicit partition set must name at least one partition");
        }
        return new PartitionFilter(null, Set.of(), Set.copyOf(topicPartitions));
    }

    public boolean matches(String candidateTopic, int candidatePartition) {
        if (!topicPartitions.isEmpty()) {
            return topicPartitions.contains(new TopicPartition(candidateTopic, candidatePartition));
        }
        return (topic == null || topic.equals(candidateTopic))
                && (partitions.isEmpty() || partitions.contains(candidatePartition));
    }

    /** Nothing is filtered out. */
    public boolean selectsAll() {
        return topic == null && topicPartitions.isEmpty();
    }

    @Override
    public String toString() {
        if (!topicPartitions.isEmpty()) {
            return "partitions " + new TreeSet<>(topicPartitions.stream().map(TopicPartition::toString).toList());
        }
        if (topic == null) {
            return "all partitions";
        }
        return partitions.isEmpty() ? "topic " + topic : "topic " + topic + " partitions " + new TreeSet<>(partitions);
    }
}
