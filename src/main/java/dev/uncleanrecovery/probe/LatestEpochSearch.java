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
 * Cost: about log2(metadata leader epoch + 3) Fetch round trips.
 */
final class LatestEpochSearch {

    private final int metadataLeaderEpoch;
    /** Largest E known to diverge; -1 until one does. */
    private int highestDiverging = -1;
    /** Smallest E known to be out of range; every E at or above it is. */
    private int lowestOutOfRange;
    private long endOffsetAtHighestDiverging = -1;

    /** @param metadataLeaderEpoch the partition's leader epoch in the metadata; must be at least 0 */
    LatestEpochSearch(int metadataLeaderEpoch) {
        if (metadataLeaderEpoch < 0) {
            throw new IllegalArgumentException("the epoch search needs a known metadata leader epoch");
        }
        this.metadataLeaderEpoch = metadataLeaderEpoch;
        this.lowestOutOfRange = metadataLeaderEpoch + 2;
    }

    boolean isDone() {
        return lowestOutOfRange - highestDiverging <= 1;
    }

    /** The LastFetchedEpoch to send next; only while not {@link #isDone()}. */
    int nextProbe() {
        return highestDiverging + (lowestOutOfRange - highestDiverging) / 2;
    }

    void diverged(int probedEpoch, long endOffset) {
        if (probedEpoch > highestDiverging) {
            highestDiverging = probedEpoch;
            endOffsetAtHighestDiverging = endOffset;
        }
    }

    void outOfRange(int probedEpoch) {
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

    /** True when the replica's cache holds an epoch above the caller's metadata leader epoch. */
    boolean isAheadOfMetadata() {
        return highestDiverging > metadataLeaderEpoch;
    }
}
