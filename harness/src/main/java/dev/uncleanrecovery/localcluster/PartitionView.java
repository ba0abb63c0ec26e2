// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

import java.util.List;
import java.util.Objects;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;

/**
 * One partition as the local cluster's brokers report it (Admin {@code describeTopics}, which in
 * Kafka 4.x uses DescribeTopicPartitions and so carries the KIP-966 ELR fields). Small on purpose:
 * it is what harness waits and real-cluster tests assert on.
 *
 * @param leader       {@link #NO_LEADER} when the partition is offline
 * @param elr          eligible leader replicas (KIP-966)
 * @param lastKnownElr the ELR members that were last in ELR when it emptied (KIP-966)
 */
public record PartitionView(
        TopicPartition topicPartition,
        int leader,
        List<Integer> replicas,
        List<Integer> isr,
        List<Integer> elr,
        List<Integer> lastKnownElr) {

    public static final int NO_LEADER = -1;

    public PartitionView {
        Objects.requireNonNull(topicPartition, "topicPartition");
        replicas = List.copyOf(replicas);
        isr = List.copyOf(isr);
        elr = List.copyOf(elr);
        lastKnownElr = List.copyOf(lastKnownElr);
    }

    static PartitionView of(String topic, TopicPartitionInfo info) {
        return new PartitionView(
                new TopicPartition(topic, info.partition()),
                leaderId(info.leader()),
                ids(info.replicas()),
                ids(info.isr()),
                ids(info.elr()),
                ids(info.lastKnownElr()));
    }

    public boolean isLeaderless() {
        return leader == NO_LEADER;
    }

    // A -1 leader arrives as null from some code paths and as Node.noNode() from others.
    private static int leaderId(Node leader) {
        return leader == null || leader.isEmpty() ? NO_LEADER : leader.id();
    }

    private static List<Integer> ids(List<Node> nodes) {
        return nodes == null ? List.of() : nodes.stream().map(Node::id).toList();
    }

    /** The way the runbook and Kafka's tools print it: {@code t-0 leader=-1 replicas=[2, 3, 1] isr=[] elr=[1] lastKnownElr=[1]}. */
    @Override
    public String toString() {
        return topicPartition + " leader=" + leader + " replicas=" + replicas + " isr=" + isr
                + " elr=" + elr + " lastKnownElr=" + lastKnownElr;
    }
}
