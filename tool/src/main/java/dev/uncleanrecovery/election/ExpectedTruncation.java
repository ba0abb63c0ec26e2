// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.election;

import dev.uncleanrecovery.evidence.ReplicaEvidence;
import java.util.List;

/**
 * What one replica is expected to lose when it follows the designated leader: the offsets
 * {@code [fromOffset, toOffset)} of its log.
 *
 * <p>How a follower truncates (KIP-101/KIP-320): it fetches with {@code LastFetchedEpoch} = its last written
 * epoch E; the leader answers with the end offset of E in <em>its</em> epoch cache (the start offset of the
 * leader's next epoch after E, or its log end offset when E is its latest epoch), and the follower truncates
 * to that offset when its own log is longer. From the evidence we know each replica's last written epoch and
 * log end offset (LEO), not the leader's epoch start offsets, so:
 * Where the brokers were asked (the probe's truncation points: the follower's own look-ups, one Fetch each), the
 * loss is {@link TruncationEstimate#EXACT} whatever the epochs. Otherwise:
 * <ul>
 *   <li>same last written epoch E as the leader: the leader's end offset for E is its LEO, so the replica
 *       loses exactly {@code max(0, LEO_replica - LEO_leader)} offsets from {@code LEO_leader} — {@link TruncationEstimate#EXACT};
 *   <li>another epoch: the leader's end offset for the replica's epoch is at most the leader's LEO, so the
 *       replica loses <em>at least</em> {@code max(0, LEO_replica - LEO_leader)}, starting at {@code LEO_leader}
 *       or earlier — {@link TruncationEstimate#AT_LEAST};
 *   <li>no known log: {@link TruncationEstimate#UNKNOWN}, with {@code records}, {@code fromOffset} and
 *       {@code toOffset} all -1.
 * </ul>
 * Counts are offsets, not messages: compaction gaps and transaction markers make the message count lower.
 *
 * @param records    offsets lost; -1 when unknown
 * @param fromOffset first lost offset (or, for {@code AT_LEAST}, the latest it can be); -1 when unknown
 * @param toOffset   the replica's log end offset (exclusive end of the lost range); -1 when unknown
 * @param committed  how many of the lost offsets lie below the high watermark of a replica whose log holds those
 *                   same records (the replica itself, or one with its last written epoch); -1 when no such high
 *                   watermark is known. A high watermark is what its replica last knew (a follower's lags), so
 *                   this is a lower bound.
 * @param neverCommitted how many of the lost offsets were certainly never committed: they lie past where the
 *                   replica's epoch ends on a leader of a later epoch, and a leader elected from the ISR holds every
 *                   committed record. The rest, neither, is of unknown commitment.
 */
public record ExpectedTruncation(int broker, long records, long fromOffset, long toOffset, TruncationEstimate estimate,
                                 long committed, long neverCommitted) {

    /** Without anything known about high watermarks: nothing lost is nothing committed, a loss is unknown. */
    public ExpectedTruncation(int broker, long records, long fromOffset, long toOffset, TruncationEstimate estimate) {
        this(broker, records, fromOffset, toOffset, estimate, records == 0 ? 0 : -1);
    }

    /** Nothing known to be never committed. */
    public ExpectedTruncation(int broker, long records, long fromOffset, long toOffset, TruncationEstimate estimate,
                              long committed) {
        this(broker, records, fromOffset, toOffset, estimate, committed, 0);
    }

    public ExpectedTruncation {
        if (estimate == null) {
            throw new IllegalArgumentException("estimate is required");
        }
        boolean unknown = estimate == TruncationEstimate.UNKNOWN;
        if (unknown != (records < 0)) {
            throw new IllegalArgumentException("records must be -1 exactly when the estimate is UNKNOWN, got " + records + " " + estimate);
        }
    }

    public static ExpectedTruncation unknown(int broker) {
        return new ExpectedTruncation(broker, -1, -1, -1, TruncationEstimate.UNKNOWN);
    }

    /**
     * What {@code follower} loses under {@code leader}; {@code follower} may be null or not answered (unknown).
     *
     * @param leader answered evidence of the designated leader
     */
    public static ExpectedTruncation of(ReplicaEvidence leader, int followerBroker, ReplicaEvidence follower) {
        if (!leader.isAnswered()) {
            throw new IllegalArgumentException("the leader's evidence must be answered: " + leader);
        }
        if (follower == null || !follower.isAnswered()) {
            return unknown(followerBroker);
        }
        long lost = Math.max(0, follower.logEndOffset() - leader.logEndOffset());
        long from = lost > 0 ? leader.logEndOffset() : follower.logEndOffset();
        TruncationEstimate estimate = follower.lastWrittenLeaderEpoch() == leader.lastWrittenLeaderEpoch()
                ? TruncationEstimate.EXACT
                : TruncationEstimate.AT_LEAST;
        return new ExpectedTruncation(followerBroker, lost, from, follower.logEndOffset(), estimate);
    }

    /** A replica whose broker answered where it truncates: it loses exactly {@code [truncateTo, logEnd)}. */
    public static ExpectedTruncation exact(int broker, long truncateTo, long logEnd) {
        long from = Math.min(truncateTo, logEnd);
        return new ExpectedTruncation(broker, logEnd - from, from, logEnd, TruncationEstimate.EXACT);
    }

    /**
     * The same loss, split by the high watermarks of {@code sameLog}: replicas whose logs hold the lost records too
     * (this one, and those with its last written epoch: up to the shorter log end they are copies of one leader's).
     */
    public ExpectedTruncation withCommittedBelow(List<ReplicaEvidence> sameLog) {
        if (!isKnown() || records == 0) {
            return this;
        }
        long highest = -1;
        for (ReplicaEvidence e : sameLog) {
            if (e.isAnswered() && e.highWatermark() >= 0) {
                highest = Math.max(highest, Math.min(e.highWatermark(), toOffset));
            }
        }
        long committedRecords = highest < 0 ? -1 : Math.max(0, highest - fromOffset);
        return new ExpectedTruncation(broker, records, fromOffset, toOffset, estimate, committedRecords, neverCommitted);
    }

    /**
     * The same loss, its records never committed when {@code superseded}: the replica's last written epoch is older
     * than the leader's, and it is cut exactly where that epoch ends on the leader. Unless a high watermark says some
     * of them were committed after all: then the later epoch came from an unclean election, and nothing is inferred.
     */
    public ExpectedTruncation withSuperseded(boolean superseded) {
        if (!superseded || estimate != TruncationEstimate.EXACT || records == 0 || committed > 0) {
            return this;
        }
        return new ExpectedTruncation(broker, records, fromOffset, toOffset, estimate, Math.max(0, committed), records);
    }

    /** Lost offsets neither known committed nor known never committed; -1 when the loss is unknown. */
    public long unknownCommitment() {
        return isKnown() ? records - Math.max(0, committed) - neverCommitted : -1;
    }

    public boolean isKnown() {
        return estimate != TruncationEstimate.UNKNOWN;
    }

    /** For people: "loses 17 records (1042..1059)", "loses at least 17 records (1042..1059)", "loses nothing". */
    public String describe() {
        return switch (estimate) {
            case UNKNOWN -> "loses an unknown amount (its log is not known)";
            case EXACT -> records == 0 ? "loses nothing"
                    : "loses " + records + " records (" + fromOffset + ".." + toOffset + ")" + committedNote();
            case AT_LEAST -> records == 0
                    ? "may lose records below offset " + toOffset + " (its last written epoch differs from the leader's)"
                    : "loses at least " + records + " records (" + fromOffset + ".." + toOffset + ")" + committedNote();
        };
    }

    /** ", 3 committed, 14 of unknown commitment": the parts that are not zero, always the committed one. */
    private String committedNote() {
        StringBuilder note = new StringBuilder(", ").append(Math.max(0, committed)).append(" committed");
        if (neverCommitted > 0) {
            note.append(", ").append(neverCommitted).append(" never committed");
        }
        if (unknownCommitment() > 0) {
            note.append(", ").append(unknownCommitment()).append(" of unknown commitment");
        }
        return note.toString();
    }
}
