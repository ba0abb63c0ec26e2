// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.election;

import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.evidence.ReplicaEvidence;

/**
 * One replica as {@link LeaderChoice} saw it.
 *
 * @param evidence the evidence that counted for this replica (a live answer beats a log read from disk,
 *                 which beats a failed answer); null when nothing was said about it
 */
public record RankedReplica(int broker, Candidacy candidacy, ReplicaEvidence evidence) {

    /** Its log end offset and last written epoch are known (live or from disk). */
    public boolean hasKnownLog() {
        return evidence != null && evidence.isAnswered();
    }

    public boolean isCandidate() {
        return candidacy == Candidacy.CANDIDATE;
    }

    /** For people: "3 (epoch 6, LEO 1025)", "4 (fenced; from disk: epoch 7, LEO 1100)", "1 (UNREACHABLE: timed out)". */
    public String describe() {
        return describe(true);
    }

    /**
     * The same, but an unreachable broker without its error, "1 (unknown: its broker did not answer)": for a plan's
     * reasons. That error is the broker's, not the partition's (a broker that is down would repeat it in every
     * partition's reason); the evidence and the plan's unansweredBrokers keep it. Per-partition errors stay:
     * "2 (ERROR: KAFKA_STORAGE_ERROR)".
     */
    public String describeBriefly() {
        return describe(evidence == null || !isUnreachable());
    }

    /** Its broker did not answer for it (down, hung, given up): the replica's log is unknown. */
    public boolean isUnreachable() {
        return evidence != null && evidence.status() == EvidenceStatus.UNREACHABLE;
    }

    /** Why an unreachable replica is unknown, without the broker's error (see {@link #describeBriefly()}). */
    static final String UNKNOWN_BROKER_SILENT = "unknown: its broker did not answer";

    /** Why a replica on a failed log directory is unknown, and where its log can still be read. */
    static final String ON_A_FAILED_LOG_DIR = "log on a failed log directory of its live broker: 'inspect' on that"
            + " directory, if it can be read, gives its log";

    private String describe(boolean withError) {
        String log = describeEvidence(withError);
        return switch (candidacy) {
            case CANDIDATE -> broker + " (" + log + ")";
            case EXCLUDED -> broker + " (excluded; " + log + ")";
            case FENCED -> broker + " (fenced; " + log + ")";
            case LOG_DIR_OFFLINE -> hasKnownLog() ? broker + " (its log directory failed; " + log + ")"
                    : broker + " (" + ON_A_FAILED_LOG_DIR + ")";
            case OFFLINE -> broker + " (offline in metadata; " + log + ")";
            case NOT_ANSWERED -> hasKnownLog() ? broker + " (no live answer; " + log + ")" : broker + " (" + log + ")";
        };
    }

    private String describeEvidence(boolean withError) {
        if (evidence == null) {
            return "not probed";
        }
        if (evidence.isAnswered()) {
            String where = evidence.source() == EvidenceSource.DISK ? "from disk: " : "";
            return where + "epoch " + evidence.lastWrittenLeaderEpoch() + ", LEO " + evidence.logEndOffset();
        }
        if (!withError && isUnreachable()) {
            return UNKNOWN_BROKER_SILENT;
        }
        return evidence.error() == null || !withError ? evidence.status().name() : evidence.status() + ": " + evidence.error();
    }
}
