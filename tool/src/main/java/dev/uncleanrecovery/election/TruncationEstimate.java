// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.election;

/** How much an {@link ExpectedTruncation} is worth. */
public enum TruncationEstimate {
    /**
     * The offset the replica truncates to is known: its broker answered the follower's look-ups, or it has the new
     * leader's last written epoch (it then truncates exactly to the leader's log end offset).
     */
    EXACT,
    /** Different last written epoch: it loses at least this much, and may lose more (see {@link ExpectedTruncation}). */
    AT_LEAST,
    /** The replica's log is not known (it did not answer and no disk evidence exists). */
    UNKNOWN
}
