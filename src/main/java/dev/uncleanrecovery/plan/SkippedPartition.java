// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.plan;

import com.fasterxml.jackson.annotation.JsonProperty;
import org.apache.kafka.common.TopicPartition;

/** A partition the plan does not elect, and why (kept out of {@code partitions} so Kafka's tool never sees it). */
public record SkippedPartition(
        @JsonProperty(required = true) String topic,
        @JsonProperty(required = true) int partition,
        @JsonProperty(required = true) String reason) {

    public SkippedPartition {
        Checks.text(topic, "topic");
        Checks.atLeast(partition, 0, "partition");
        Checks.present(reason, "reason");
    }

    public TopicPartition topicPartition() {
        return new TopicPartition(topic, partition);
    }
}
