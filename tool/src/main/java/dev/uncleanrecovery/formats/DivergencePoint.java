// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.formats;

import dev.uncleanrecovery.election.TruncationEstimate;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import java.util.Comparator;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Where the new leader's log parts from the history a consumer group read: the first offset at which the group, read
 * on from its committed offset, would get a record it never saw where it had seen another, or skip one.
 *
 * @param offset         the first offset of the new history the group has not read
 * @param basis          how it was found
 * @param historyReplica the replica whose log holds what the group read, when {@code basis} is REPLICA_CUT
 */
public record DivergencePoint(long offset, Basis basis, Integer historyReplica) {

    /** How the divergence point was found. */
    public enum Basis {
        /** Where the replica holding what the group read is cut under the new leader, as measured or planned. */
        REPLICA_CUT,
        /** No replica holding what the group read was probed: the new leader's log end before the election. */
        NEW_LOG_END,
        /**
         * No replica holding what the group read was probed, and the new leader's end of the epoch the group last read
         * (its commit's, KIP-320) lies below its log end: where Kafka's consumer itself finds its log truncated.
         */
        COMMITTED_EPOCH_END,
        /**
         * No replica holding what the group read was probed, and its commit names an epoch the new leader never held:
         * its history parted from the new leader's somewhere past the high watermark the new leader had (the records
         * its epoch had committed, which the group's later leader held too), where is not known. The group reads from
         * there, again what it may have read, rather than skip records of the new history it never saw.
         */
        LEADER_HIGH_WATERMARK
    }

    /**
     * The divergence point for a group that committed {@code committedOffset} on a partition {@code elected} says was
     * elected as {@code planned} planned; empty when the plan has no log end for the new leader.
     *
     * <p>The group read below the high watermark of the leader of its time, whose log the replica with the latest
     * epoch that holds offset {@code committedOffset - 1} still carries; a replica led by the new leader truncates to
     * the first offset where their epochs part (KIP-101/279: the leader's end offset for the follower's last epoch),
     * so that replica's cut under the new leader is where the group's history and the new one part.
     *
     * @param committedLeaderEpoch the epoch of the last record the group read, as its commit carries it (KIP-320); -1
     *                             when it carries none
     */
    public static Optional<DivergencePoint> of(PlannedElection planned, ResultFile.Partition elected,
                                               long committedOffset, int committedLeaderEpoch) {
        return of(planned, elected, committedOffset, committedLeaderEpoch, OptionalLong.empty());
    }

    /**
     * {@link #of(PlannedElection, ResultFile.Partition, long, int)}, and where no probed replica holds what the group
     * read, the new leader's answer for the epoch the group last read: its end offset for that epoch after the
     * election (OffsetsForLeaderEpoch, as Kafka's consumer asks it to detect a truncated log, KIP-320). Records of
     * one epoch at one offset are the same on every replica, so below that end the new log is what the group read;
     * from it on, or from the new log end if that is lower, it is not.
     *
     * @param committedEpochEnd the new leader's end offset for {@code committedLeaderEpoch}; empty when not asked
     */
    public static Optional<DivergencePoint> of(PlannedElection planned, ResultFile.Partition elected,
                                               long committedOffset, int committedLeaderEpoch,
                                               OptionalLong committedEpochEnd) {
        int leader = elected.after() != null && elected.after().leader() >= 0 ? elected.after().leader()
                : elected.designatedLeader();
        Optional<PlanEvidence> leaderLog = planned.evidence().stream()
                .filter(e -> e.broker() == leader && e.status() == EvidenceStatus.OK).findFirst();
        if (leaderLog.isEmpty()) {
            return Optional.empty();
        }
        int leaderEpoch = leaderLog.get().lastWrittenLeaderEpoch();
        Optional<PlanEvidence> history = planned.evidence().stream()
                .filter(e -> e.broker() != leader && e.status() == EvidenceStatus.OK)
                .filter(e -> e.logEndOffset() >= committedOffset)
                // a replica whose log ends in an older epoch than the new leader's, or than the one the group last
                // read, holds a history the group's leader had already cut
                .filter(e -> e.lastWrittenLeaderEpoch() >= Math.max(leaderEpoch, committedLeaderEpoch))
                .max(Comparator.comparingInt(PlanEvidence::lastWrittenLeaderEpoch)
                        .thenComparingLong(PlanEvidence::logEndOffset));
        Optional<Long> cut = history.flatMap(h -> cutUnder(planned, elected, leaderLog.get(), h));
        if (cut.isPresent()) {
            return Optional.of(new DivergencePoint(Math.min(committedOffset, cut.get()), Basis.REPLICA_CUT,
                    history.get().broker()));
        }
        long newLogEnd = Math.min(committedOffset, leaderLog.get().logEndOffset());
        if (committedEpochEnd.isPresent() && committedEpochEnd.getAsLong() < newLogEnd) {
            return Optional.of(new DivergencePoint(committedEpochEnd.getAsLong(), Basis.COMMITTED_EPOCH_END, null));
        }
        Long highWatermark = leaderLog.get().highWatermark();
        if (committedLeaderEpoch > leaderEpoch && highWatermark != null && highWatermark < newLogEnd) {
            return Optional.of(new DivergencePoint(highWatermark, Basis.LEADER_HIGH_WATERMARK, null));
        }
        return Optional.of(new DivergencePoint(newLogEnd, Basis.NEW_LOG_END, null));
    }

    /**
     * Where {@code replica} is cut under the new leader: as the brokers answered after the election, else as the plan
     * knew it exactly, else, in the leader's own last epoch, at the shorter log end (records of one epoch at one offset
     * are the same on every replica); empty when none of these says.
     */
    private static Optional<Long> cutUnder(PlannedElection planned, ResultFile.Partition elected, PlanEvidence leader,
                                           PlanEvidence replica) {
        if (elected.truncations() != null) {
            for (ResultFile.Truncation t : elected.truncations()) {
                if (t.broker() == replica.broker() && (t.measuredFromOffset() != null || t.plannedFromOffset() != null)) {
                    return Optional.of(t.measuredFromOffset() != null ? t.measuredFromOffset() : t.plannedFromOffset());
                }
            }
        }
        Optional<PlanTruncation> plannedCut = planned.truncationsUnder(leader.broker()).orElse(java.util.List.of())
                .stream().filter(t -> t.broker() == replica.broker() && t.estimate() == TruncationEstimate.EXACT)
                .findFirst();
        if (plannedCut.isPresent()) {
            return Optional.of(plannedCut.get().fromOffset());
        }
        if (replica.lastWrittenLeaderEpoch().equals(leader.lastWrittenLeaderEpoch())) {
            return Optional.of(Math.min(replica.logEndOffset(), leader.logEndOffset()));
        }
        return Optional.empty();
    }
}
