// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.salvage;

import dev.uncleanrecovery.formats.Checks;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

/**
 * Offsets {@code [fromOffset, toOffset)} of one replica's log that an election will truncate: the follower cuts its
 * log at {@code fromOffset} when it first fetches from the new leader, and {@code toOffset} is its log end offset.
 *
 * @param topicId {@link Uuid#ZERO_UUID} when the cluster gave none
 * @param lastWrittenLeaderEpoch the replica's latest epoch as the probe saw it (its epoch cache); -1 when not known.
 *                               A copy whose last batch carries a newer epoch is not the log the plan was made from.
 */
public record DoomedRange(TopicPartition partition, Uuid topicId, int broker, long fromOffset, long toOffset,
                          int lastWrittenLeaderEpoch) {

    public DoomedRange {
        if (partition == null || topicId == null) {
            throw new IllegalArgumentException("partition and topicId are required");
        }
        // the topic becomes a directory name of the salvage: <dir>/<topic>-<partition>/broker-<id>
        Checks.topic(partition.topic(), "topic");
        if (broker < 0 || fromOffset < 0 || toOffset <= fromOffset) {
            throw new IllegalArgumentException("broker " + broker + " [" + fromOffset + ", " + toOffset
                    + ") is not a doomed range");
        }
    }

    public long offsets() {
        return toOffset - fromOffset;
    }
}
