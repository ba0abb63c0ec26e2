// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.formats;


/**
 * A consumer group whose committed offset lies beyond the designated leader's log end (plan version 2): it read
 * records that will no longer exist, and on its next fetch it resets by its {@code auto.offset.reset} (or, with
 * KIP-320's leader epoch in the commit, detects the truncation).
 *
 * @param offsetsReadAndLost {@code committedOffset - newLogEnd}: offsets it had read that the election destroys
 */
public record PlanConsumerGroup(
        @Required String group,
        @Required long committedOffset,
        @Required long newLogEnd,
        @Required long offsetsReadAndLost) {

    public PlanConsumerGroup {
        Checks.text(group, "group");
        if (newLogEnd < 0 || committedOffset <= newLogEnd || offsetsReadAndLost != committedOffset - newLogEnd) {
            throw Checks.invalid("committedOffset", committedOffset + " must lie beyond newLogEnd "
                    + newLogEnd + ", and offsetsReadAndLost be their difference (" + offsetsReadAndLost + ")");
        }
    }

    public static PlanConsumerGroup of(String group, long committedOffset, long newLogEnd) {
        return new PlanConsumerGroup(group, committedOffset, newLogEnd, committedOffset - newLogEnd);
    }
}
