// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.election;

import java.util.OptionalLong;
import java.util.Set;

/**
 * The operator's guard rails for {@link LeaderChoice}.
 *
 * @param excludedBrokers     brokers never to elect ({@code --exclude-broker}), e.g. a host with a failing disk
 * @param maxTruncatedRecords when present, a choice expected to truncate more offsets than this is skipped
 *                            ({@code --max-truncated-records})
 */
public record ElectionOptions(Strategy strategy, Set<Integer> excludedBrokers, OptionalLong maxTruncatedRecords) {

    public ElectionOptions {
        if (strategy == null) {
            throw new IllegalArgumentException("strategy is required");
        }
        excludedBrokers = Set.copyOf(excludedBrokers);
        if (maxTruncatedRecords.isPresent() && maxTruncatedRecords.getAsLong() < 0) {
            throw new IllegalArgumentException("maxTruncatedRecords must be >= 0, got " + maxTruncatedRecords.getAsLong());
        }
    }

    /** Balanced, nobody excluded, no truncation limit. */
    public static ElectionOptions defaults() {
        return new ElectionOptions(Strategy.DEFAULT, Set.of(), OptionalLong.empty());
    }

    public ElectionOptions withStrategy(Strategy newStrategy) {
        return new ElectionOptions(newStrategy, excludedBrokers, maxTruncatedRecords);
    }

    public ElectionOptions withExcludedBrokers(Set<Integer> brokers) {
        return new ElectionOptions(strategy, brokers, maxTruncatedRecords);
    }

    public ElectionOptions withMaxTruncatedRecords(long max) {
        return new ElectionOptions(strategy, excludedBrokers, OptionalLong.of(max));
    }
}
