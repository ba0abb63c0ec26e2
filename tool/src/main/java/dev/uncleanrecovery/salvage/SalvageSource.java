// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.salvage;

/** Where the salvaged record batches were read. */
public enum SalvageSource {
    /** Fetch with ReplicaId -2: a follower or leaderless replica serves it up to its own high watermark. */
    FETCH_DEBUG_REPLICA,
    /**
     * Fetch with ReplicaId -3, the id a broker's own future replica fetches with: served by any replica up to its log
     * end offset with topic READ. Undocumented, so the tool says when it relies on it.
     */
    FETCH_FUTURE_REPLICA,
    /** The segment files of a stopped broker's log directory, read by {@code inspect}. */
    DISK
}
