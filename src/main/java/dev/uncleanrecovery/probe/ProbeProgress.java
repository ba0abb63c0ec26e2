// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.probe;

import java.time.Duration;

/**
 * How far a fan-out has come, for a progress line on stderr.
 *
 * @param brokersAnswered brokers whose every replica is settled (answered, error, or given up)
 * @param replicasKnown   (partition, broker) pairs settled
 * @param partitionsKnown partitions whose every probed replica is settled
 */
public record ProbeProgress(int brokersAnswered, int brokersTotal, int replicasKnown, int replicasTotal,
                            int partitionsKnown, int partitionsTotal, Duration elapsed) {

    public boolean isComplete() {
        return replicasKnown == replicasTotal;
    }
}
