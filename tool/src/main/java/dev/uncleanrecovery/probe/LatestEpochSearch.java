// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.probe;

/**
 * Finds one replica's latest leader-epoch cache entry through Fetch answers, without leadership.
 *
 * <p>A Fetch (v12+, ReplicaId -2, FetchOffset past the end) with {@code LastFetchedEpoch = E} runs
 * the broker's KIP-320 divergence check against the replica's leader-epoch cache
 * ({@code LeaderEpochFileCache.endOffsetFor}, verified on 4.4.0):
 * <ul>
 *   <li>E == latest cached epoch: DivergingEpoch (E, log end offset);</li>
 *   <li>E below it: DivergingEpoch (floor entry of E, or E itself, with the start offset of the next
 *       higher epoch) — note the epoch can equal E here too, so "epoch == E" does not mean latest;</li>
 *   <li>E above it, or an empty cache: OFFSET_OUT_OF_RANGE.</li>
 * </ul>
 * "Diverging" is therefore true exactly for E ≤ latest: a binary search for the largest diverging E
 * finds the latest epoch. The range searched is [0, metadata leader epoch + 1]; the extra step
 * exposes a replica whose cache is ahead of the metadata the caller holds (stale metadata).
 * Cost: about log2(metadata leader epoch + 3) Fetch round trips. A search may start at a guess (the epoch a
 * plan saw): any probe inside the open range keeps the search correct.
 */
final class LatestEpochSearch {

    private final int metadataLeaderEpoch;
    /** Largest E known to diverge; -1 until one does. */
    private int highestDiverging = -1;
    /** Smallest E known to be out of range; every E at or above it is. */
    private int lowestOutOfRange;
    private long endOffsetAtHighestDiverging = -1;
    /** The epoch the broker named in its answer to the largest diverging E: E itself, or the cache's floor of E. */
    private int answeredAtHighestDiverging = -1;
    /** The first probe when it lies inside the range, else -1 (no guess, or already probed). */
    private int guess;
    /** The replica's high watermark as its last Fetch answer gave it; -1 until one did. */
    private long highWatermark = -1;

    /** @param metadataLeaderEpoch the partition's leader epoch in the metadata; must be at least 0 */
    LatestEpochSearch(int metadataLeaderEpoch) {
        this(metadataLeaderEpoch, -1);
    }

    /**
     * @param metadataLeaderEpoch the partition's leader epoch in the metadata; must be at least 0
     * @param firstProbe          the epoch to ask about first; ignored outside the range searched
     */
    LatestEpochSearch(int metadataLeaderEpoch, int firstProbe) {
        if (metadataLeaderEpoch < 0) {
            throw new IllegalArgumentException("the epoch search needs a known metadata leader epoch");
        }
        this.metadataLeaderEpoch = metadataLeaderEpoch;
        this.lowestOutOfRange = metadataLeaderEpoch + 2;
        this.guess = firstProbe > highestDiverging && firstProbe < lowestOutOfRange ? firstProbe : -1;
    }

    boolean isDone() {
        return lowestOutOfRange - highestDiverging <= 1;
    }

    /** The LastFetchedEpoch to send next; only while not {@link #isDone()}. */
    int nextProbe() {
        if (guess >= 0) {
            return guess;
        }
        return highestDiverging + (lowestOutOfRange - highestDiverging) / 2;
    }

    /** The broker answered DivergingEpoch ({@code answeredEpoch}, {@code endOffset}) for E = {@code probedEpoch}. */
    void diverged(int probedEpoch, int answeredEpoch, long endOffset) {
        guess = -1;
        if (probedEpoch > highestDiverging) {
            highestDiverging = probedEpoch;
            answeredAtHighestDiverging = answeredEpoch;
            endOffsetAtHighestDiverging = endOffset;
        }
    }

    /** Every Fetch answer without error carries the replica's local high watermark; the highest one counts. */
    void highWatermark(long value) {
        highWatermark = Math.max(highWatermark, value);
    }

    long highWatermark() {
        return highWatermark;
    }

    void outOfRange(int probedEpoch) {
        guess = -1;
        lowestOutOfRange = Math.min(lowestOutOfRange, probedEpoch);
    }

    /** The replica's latest cached leader epoch; -1 for an empty cache (a replica that never wrote or followed). */
    int latestEpoch() {
        return highestDiverging;
    }

    /** The end offset the broker gave with the latest epoch: the log end offset. -1 for an empty cache. */
    long logEndOffset() {
        return endOffsetAtHighestDiverging;
    }

    /**
     * True when {@code epoch} is known to be in the cache with the log reaching at least {@code endOffset} there:
     * asked about E = {@code epoch}, the broker answered DivergingEpoch ({@code epoch}, at least {@code endOffset}).
     * That end offset is the start of the next epoch when a later one is cached, else the log end offset.
     */
    boolean holdsAtLeast(int epoch, long endOffset) {
        return highestDiverging == epoch && answeredAtHighestDiverging == epoch && endOffsetAtHighestDiverging >= endOffset;
    }

    /** True when the replica's cache holds an epoch above the caller's metadata leader epoch. */
    boolean isAheadOfMetadata() {
        return highestDiverging > metadataLeaderEpoch;
    }
}
