// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import dev.uncleanrecovery.support.Durations;
import java.time.Duration;

/**
 * A live broker whose metadata still showed no leader for some elected partitions when the wait for the new leaders
 * ran out: a client that asks it for metadata (a producer, a consumer, kafka-topics.sh) still sees them offline.
 *
 * @param broker    the broker's id
 * @param notShown  how many of the elected partitions it still showed without a leader (or did not answer for)
 * @param elected   how many partitions were waited for
 * @param waited    how long they were waited for after the controller's answer
 * @param lastError why its last read failed (it did not answer, say); null when it answered
 */
public record MetadataLag(int broker, int notShown, int elected, Duration waited, String lastError) {

    public String describe() {
        return String.format("Broker %d's metadata still showed no leader for %,d of the %,d elected partition(s) %s"
                        + " after the election%s: clients asking it see them offline until it catches up (check with"
                        + " kafka-topics.sh --describe --unavailable-partitions --bootstrap-server <broker %d>)",
                broker, notShown, elected, Durations.human(waited),
                lastError == null ? "" : " (its last answer: " + lastError + ")", broker);
    }
}
