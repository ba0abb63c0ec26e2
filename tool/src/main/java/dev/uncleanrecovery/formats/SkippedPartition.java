// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.formats;

import java.util.List;
import org.apache.kafka.common.TopicPartition;

/**
 * A partition the plan does not elect, and why (kept out of {@code partitions} so Kafka's tool never sees it).
 *
 * @param evidence what each replica said when the plan was made, in assignment order, as in {@link PlannedElection}:
 *                 the reviewer sees what the skip rests on. Empty when nothing was probed (a partition that has a
 *                 leader or is being reassigned), and in plans written before the field existed
 */
public record SkippedPartition(
        @Required String topic,
        @Required int partition,
        @Required String reason,
        List<PlanEvidence> evidence) {

    public SkippedPartition {
        Checks.topic(topic, "topic");
        Checks.atLeast(partition, 0, "partition");
        evidence = Checks.listOrEmpty(evidence);
    }

    public TopicPartition topicPartition() {
        return new TopicPartition(topic, partition);
    }
}
