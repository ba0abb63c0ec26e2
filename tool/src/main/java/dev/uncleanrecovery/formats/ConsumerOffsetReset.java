// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.formats;

import com.fasterxml.jackson.annotation.JsonInclude;
import org.apache.kafka.common.TopicPartition;

/**
 * One consumer group's committed offset on one elected partition that lies past the divergence point, and what was
 * done about it (result file version 7): set back to the divergence point, the group reads every record of the new
 * leader's history and none twice.
 *
 * @param committedOffset  the group's committed offset when the repair read it
 * @param divergenceOffset the first offset where the new leader's log differs from the history the group read
 * @param basis            how the divergence point was found
 * @param historyReplica   the replica whose log the group read, when {@code basis} is REPLICA_CUT
 * @param detail           why a group was not reset (its members, Kafka's refusal); absent otherwise
 */
public record ConsumerOffsetReset(
        @Required String group,
        @Required String topic,
        @Required int partition,
        @Required long committedOffset,
        @Required long divergenceOffset,
        @Required DivergencePoint.Basis basis,
        @JsonInclude(JsonInclude.Include.NON_NULL) Integer historyReplica,
        @Required Outcome outcome,
        @JsonInclude(JsonInclude.Include.NON_NULL) String detail) {

    /** What became of the reset. */
    public enum Outcome {
        /** A dry run: the offset would be set to the divergence point. */
        WOULD_RESET,
        /** The group's offset is now the divergence point. */
        RESET,
        /** Not touched: the group has members, and Kafka changes no offset of a group with members. */
        ACTIVE_GROUP,
        /** Kafka refused the change or did not answer; the detail says which. */
        FAILED,
        /**
         * Not touched: an earlier run set the group back to {@code divergenceOffset} for this election, and the group
         * has committed past it since without a leader epoch that tells which history it read: it read on in the new
         * one (result file version 8).
         */
        ALREADY_RESET
    }

    public ConsumerOffsetReset {
        Checks.text(group, "group");
        Checks.topic(topic, "topic");
        Checks.atLeast(partition, 0, "partition");
        if (divergenceOffset < 0 || committedOffset <= divergenceOffset) {
            throw Checks.invalid("committedOffset", committedOffset + " must lie past divergenceOffset "
                    + divergenceOffset);
        }
    }

    public TopicPartition topicPartition() {
        return new TopicPartition(topic, partition);
    }

    /** The same reset with what became of it. */
    public ConsumerOffsetReset with(Outcome done, String why) {
        return new ConsumerOffsetReset(group, topic, partition, committedOffset, divergenceOffset, basis,
                historyReplica, done, why);
    }
}
