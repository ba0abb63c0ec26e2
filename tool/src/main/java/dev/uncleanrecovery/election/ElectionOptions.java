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
 * @param allowUnknownTruncation with a limit, a replica whose log is unknown counts as over it unless this is set
 *                            ({@code --allow-unknown-truncation}): an unknown loss is not a zero loss
 * @param maxCommittedLoss    when present, a choice expected to destroy more committed offsets than this is skipped
 *                            ({@code --max-committed-loss}); a loss with no known high watermark counts as over it
 *                            unless unknown truncation is allowed
 */
public record ElectionOptions(Strategy strategy, Set<Integer> excludedBrokers, OptionalLong maxTruncatedRecords,
                              boolean allowUnknownTruncation, OptionalLong maxCommittedLoss) {

    public ElectionOptions {
        if (strategy == null) {
            throw new IllegalArgumentException("strategy is required");
        }
        excludedBrokers = Set.copyOf(excludedBrokers);
        if (maxTruncatedRecords.isPresent() && maxTruncatedRecords.getAsLong() < 0) {
            throw new IllegalArgumentException("maxTruncatedRecords must be >= 0, got " + maxTruncatedRecords.getAsLong());
        }
        if (maxCommittedLoss.isPresent() && maxCommittedLoss.getAsLong() < 0) {
            throw new IllegalArgumentException("maxCommittedLoss must be >= 0, got " + maxCommittedLoss.getAsLong());
        }
    }

    public ElectionOptions(Strategy strategy, Set<Integer> excludedBrokers, OptionalLong maxTruncatedRecords,
                           boolean allowUnknownTruncation) {
        this(strategy, excludedBrokers, maxTruncatedRecords, allowUnknownTruncation, OptionalLong.empty());
    }

    /** Unknown truncations count as over any limit. */
    public ElectionOptions(Strategy strategy, Set<Integer> excludedBrokers, OptionalLong maxTruncatedRecords) {
        this(strategy, excludedBrokers, maxTruncatedRecords, false);
    }

    /** Balanced, nobody excluded, no truncation limit. */
    public static ElectionOptions defaults() {
        return new ElectionOptions(Strategy.DEFAULT, Set.of(), OptionalLong.empty());
    }

    public ElectionOptions withStrategy(Strategy newStrategy) {
        return new ElectionOptions(newStrategy, excludedBrokers, maxTruncatedRecords, allowUnknownTruncation,
                maxCommittedLoss);
    }

    public ElectionOptions withExcludedBrokers(Set<Integer> brokers) {
        return new ElectionOptions(strategy, brokers, maxTruncatedRecords, allowUnknownTruncation, maxCommittedLoss);
    }

    public ElectionOptions withMaxTruncatedRecords(long max) {
        return new ElectionOptions(strategy, excludedBrokers, OptionalLong.of(max), allowUnknownTruncation,
                maxCommittedLoss);
    }

    public ElectionOptions withUnknownTruncationAllowed(boolean allowed) {
        return new ElectionOptions(strategy, excludedBrokers, maxTruncatedRecords, allowed, maxCommittedLoss);
    }

    public ElectionOptions withMaxCommittedLoss(long max) {
        return new ElectionOptions(strategy, excludedBrokers, maxTruncatedRecords, allowUnknownTruncation,
                OptionalLong.of(max));
    }
}
