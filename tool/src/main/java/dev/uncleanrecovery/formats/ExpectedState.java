// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.formats;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * The partition as the plan saw it. {@code execute} refuses a partition whose leader epoch or replicas moved on
 * since.
 *
 * <p>Plans before version 3 also carried a {@code partitionEpoch}, always -1: neither DescribeTopicPartitions nor
 * Metadata gives a partition's epoch, so it is read and ignored.
 *
 * @param leaderEpoch            the metadata leader epoch; the election must make it exactly one higher
 * @param replicas               the assignment, in its order
 * @param isr                    the controller's ISR of the leaderless partition: without ELR it keeps its last
 *                               leader there (plan version 5; absent in older plans)
 * @param eligibleLeaderReplicas KIP-966 ELR: replicas that held every committed record when the ISR shrank (version 5)
 * @param lastKnownElr           KIP-966 LastKnownELR: ELR members that stopped uncleanly, or the last known leader
 *                               of a partition left with neither ISR nor ELR (version 5)
 */
@JsonIgnoreProperties("partitionEpoch")
public record ExpectedState(
        @Required int leaderEpoch,
        @Required List<Integer> replicas,
        @JsonInclude(JsonInclude.Include.NON_NULL) List<Integer> isr,
        @JsonInclude(JsonInclude.Include.NON_NULL) List<Integer> eligibleLeaderReplicas,
        @JsonInclude(JsonInclude.Include.NON_NULL) List<Integer> lastKnownElr) {

    public static final int UNKNOWN_EPOCH = -1;

    /** The state of a plan before version 5, which does not record ISR, ELR and LastKnownELR. */
    public ExpectedState(int leaderEpoch, List<Integer> replicas) {
        this(leaderEpoch, replicas, null, null, null);
    }

    public ExpectedState {
        Checks.atLeast(leaderEpoch, UNKNOWN_EPOCH, "leaderEpoch");
        replicas = Checks.brokerIds(replicas, "replicas");
        if (replicas.isEmpty()) {
            throw Checks.invalid("replicas", "must list at least one broker");
        }
        isr = isr == null ? null : Checks.brokerIds(isr, "isr");
        eligibleLeaderReplicas = eligibleLeaderReplicas == null ? null
                : Checks.brokerIds(eligibleLeaderReplicas, "eligibleLeaderReplicas");
        lastKnownElr = lastKnownElr == null ? null : Checks.brokerIds(lastKnownElr, "lastKnownElr");
    }

    /** Whether the plan records ISR, ELR and LastKnownELR (version 5 on). */
    public boolean recordsMembership() {
        return isr != null && eligibleLeaderReplicas != null && lastKnownElr != null;
    }
}
