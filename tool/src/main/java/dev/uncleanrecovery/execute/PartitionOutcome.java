// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import dev.uncleanrecovery.cluster.TopicPartitionState;
import org.apache.kafka.common.TopicPartition;

/**
 * The result for one partition: the state before, what was done, the state after.
 *
 * @param before the state re-read just before acting (null if it could not be read)
 * @param after  the state read after acting (null when nothing was done)
 * @param detail one line for people: why refused, who got elected, what state a failure left
 */
public record PartitionOutcome(TopicPartition topicPartition, int designatedLeader, Outcome outcome,
                               String detail, TopicPartitionState before, TopicPartitionState after) {

    /** The same outcome with more said about it: "...; broker 2 answered after the plan: epoch 0, LEO 20". */
    public PartitionOutcome withNote(String note) {
        return new PartitionOutcome(topicPartition, designatedLeader, outcome, detail + "; " + note, before, after);
    }
}
