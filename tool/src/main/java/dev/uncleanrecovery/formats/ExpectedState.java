// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.formats;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;

/**
 * The partition as the plan saw it. {@code execute} refuses a partition whose state moved on since.
 *
 * <p>Plans before version 3 also carried a {@code partitionEpoch}, always -1: neither DescribeTopicPartitions nor
 * Metadata gives a partition's epoch, so it is read and ignored.
 *
 * @param leaderEpoch    the metadata leader epoch; the election must make it exactly one higher
 * @param replicas       the assignment, in its order
 */
@JsonIgnoreProperties("partitionEpoch")
public record ExpectedState(
        @Required int leaderEpoch,
        @Required List<Integer> replicas) {

    public static final int UNKNOWN_EPOCH = -1;

    public ExpectedState {
        Checks.atLeast(leaderEpoch, UNKNOWN_EPOCH, "leaderEpoch");
        replicas = Checks.brokerIds(replicas, "replicas");
        if (replicas.isEmpty()) {
            throw Checks.invalid("replicas", "must list at least one broker");
        }
    }
}
