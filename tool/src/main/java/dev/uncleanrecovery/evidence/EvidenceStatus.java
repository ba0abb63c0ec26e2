// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.evidence;

/** Whether a replica's log facts are known. Only {@link #OK} evidence can make a replica a candidate. */
public enum EvidenceStatus {
    /** The replica answered; log end offset and last written epoch are known. */
    OK,
    /** The broker did not answer within the probe deadline. */
    UNREACHABLE,
    /** The broker answered with a per-partition error (see the evidence's error text). */
    ERROR,
    /** The answer was for another leader epoch than the metadata's, so it may be stale. */
    STALE,
    /**
     * The broker is up but the log directory holding the replica has failed (KAFKA_STORAGE_ERROR): the replica is
     * offline until the broker restarts with that directory working, and its log can only be read off the directory.
     */
    LOG_DIR_OFFLINE
}
