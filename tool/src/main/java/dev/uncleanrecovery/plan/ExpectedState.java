// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.plan;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * The partition as the plan saw it. {@code execute} refuses a partition whose state moved on since.
 *
 * @param leaderEpoch    the metadata leader epoch; the election must make it exactly one higher
 * @param partitionEpoch -1 when unknown: DescribeTopicPartitions and Metadata do not expose it
 * @param replicas       the assignment, in its order
 */
public record ExpectedState(
        @JsonProperty(required = true) int leaderEpoch,
        @JsonProperty(required = true) int partitionEpoch,
        @JsonProperty(required = true) List<Integer> replicas) {

    public static final int UNKNOWN_EPOCH = -1;

    public ExpectedState {
        Checks.atLeast(leaderEpoch, UNKNOWN_EPOCH, "leaderEpoch");
        Checks.atLeast(partitionEpoch, UNKNOWN_EPOCH, "partitionEpoch");
        replicas = Checks.brokerIds(replicas, "replicas");
        if (replicas.isEmpty()) {
            throw new IllegalArgumentException("replicas must list at least one broker");
        }
    }
}
