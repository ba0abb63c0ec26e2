// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.probe;

import java.time.Duration;
import java.util.List;

/**
 * How far a fan-out has come, for a progress line on stderr.
 *
 * @param brokersAnswered   brokers that answered for every replica asked (an answer may be a per-partition error);
 *                          a broker given up or still silent at the deadline is not one of them
 * @param replicasKnown     (partition, broker) pairs their broker answered for
 * @param replicasSettled   (partition, broker) pairs done with, answered or given up (UNREACHABLE)
 * @param partitionsKnown   partitions whose every probed replica is settled
 * @param unansweredBrokers brokers given up so far, in broker id order
 */
public record ProbeProgress(int brokersAnswered, int brokersTotal, int replicasKnown, int replicasSettled,
                            int replicasTotal, int partitionsKnown, int partitionsTotal, Duration elapsed,
                            List<UnansweredBroker> unansweredBrokers) {

    public ProbeProgress {
        unansweredBrokers = List.copyOf(unansweredBrokers);
    }

    public boolean isComplete() {
        return replicasSettled == replicasTotal;
    }
}
