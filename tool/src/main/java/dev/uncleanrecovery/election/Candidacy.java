// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.election;

/**
 * Whether a replica may be the designated leader, and if not, the first reason why not.
 *
 * <p>The checks mirror what the controller's {@code LeaderAcceptor} enforces (broker active, log directory
 * online) plus what only this tool asks for: a live answer, so that we know the log we elect.
 */
public enum Candidacy {
    /** Its broker answered live without error, is unfenced, not excluded, and the replica is not offline. */
    CANDIDATE,
    /** The operator excluded its broker. */
    EXCLUDED,
    /** Its broker is fenced: the controller would refuse it (and stock UNCLEAN would silently pick another). */
    FENCED,
    /**
     * Its broker is up, but answered that the log directory holding the replica has failed (KAFKA_STORAGE_ERROR):
     * the controller's LeaderAcceptor refuses a replica on an offline directory, and its log can only be read off
     * that directory ({@code inspect}).
     */
    LOG_DIR_OFFLINE,
    /** The metadata lists the replica as offline: broker not registered, or its log directory is offline. */
    OFFLINE,
    /** No live answer without error. A log read from disk still counts as evidence, but its broker is down. */
    NOT_ANSWERED
}
