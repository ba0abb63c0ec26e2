// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.election;

/** Why {@link LeaderChoice} did not elect, for scripts and exit codes; the skip's reason says it to people. */
public enum SkipCause {
    /** The partition has a leader: nothing to recover. */
    HAS_LEADER,
    /** No replica is a {@link Candidacy#CANDIDATE}. */
    NO_CANDIDATE,
    /** Balanced strategy: an ELR or LastKnownELR member has not answered yet. */
    WAITING_FOR_ELR,
    /**
     * Balanced strategy: a broker the controller fenced answered the tool with a better log than any candidate (the
     * tool reaches it, the controller does not): once unfenced it leads or can be elected, losing less.
     */
    WAITING_FOR_FENCED,
    /** The best choice would truncate more than the operator's {@code --max-truncated-records}. */
    OVER_TRUNCATION_LIMIT,
    /** A reassignment is in progress: its target replicas would change the outcome; the tool never touches it. */
    REASSIGNMENT_IN_PROGRESS
}
