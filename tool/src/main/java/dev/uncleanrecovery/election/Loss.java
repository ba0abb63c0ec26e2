// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.election;

import java.util.ArrayList;
import java.util.List;

/**
 * What one election destroys over all the other replicas, split into committed (below a high watermark of the same
 * log: acknowledged to acks=all producers, visible to consumers), never committed (a suffix a later epoch's leader
 * superseded), and of unknown commitment (past every high watermark known, in the leader's own epoch).
 *
 * @param records           offsets known to be lost
 * @param committed         of those, known to be committed
 * @param neverCommitted    of those, known never to have been committed
 * @param lowerBound        some replica may lose more than counted (its epoch differs and its brokers were not asked)
 * @param uncertainOn       replicas whose loss is unknown, or only known to be at least nothing
 */
public record Loss(long records, long committed, long neverCommitted, boolean lowerBound, List<Integer> uncertainOn) {

    public Loss {
        uncertainOn = List.copyOf(uncertainOn);
    }

    public static Loss of(List<ExpectedTruncation> truncations) {
        long records = 0;
        long committed = 0;
        long never = 0;
        boolean lowerBound = false;
        List<Integer> uncertain = new ArrayList<>();
        for (ExpectedTruncation t : truncations) {
            if (!t.isKnown() || (t.estimate() == TruncationEstimate.AT_LEAST && t.records() == 0)) {
                uncertain.add(t.broker());
                continue;
            }
            records += t.records();
            committed += Math.max(0, t.committed());
            never += t.neverCommitted();
            lowerBound |= t.estimate() != TruncationEstimate.EXACT;
        }
        return new Loss(records, committed, never, lowerBound, uncertain);
    }

    /** Offsets lost whose commitment is not known either way. */
    public long unknownCommitment() {
        return records - committed - neverCommitted;
    }

    /**
     * "0 committed and 17 never committed records", "nothing", "200 records: 0 committed, 200 of unknown commitment",
     * "at least 17 records: at least 3 committed" — plus "an unknown amount on 1" for replicas whose loss is not known.
     */
    public String describe() {
        // built in one pass: a plan of thousands of partitions describes several losses for each
        StringBuilder text = new StringBuilder(64);
        if (records > 0 && !lowerBound && unknownCommitment() == 0) {
            text.append(committed).append(" committed and ").append(neverCommitted).append(" never committed records");
        } else if (records > 0) {
            text.append(lowerBound ? "at least " : "").append(records).append(" records: ")
                    .append(lowerBound ? "at least " : "").append(committed).append(" committed");
            if (neverCommitted > 0) {
                text.append(", ").append(neverCommitted).append(" never committed");
            }
            if (unknownCommitment() > 0) {
                text.append(", ").append(unknownCommitment()).append(" of unknown commitment");
            }
        }
        if (!uncertainOn.isEmpty()) {
            text.append(text.length() > 0 ? ", and " : "").append("an unknown amount on ");
            for (int i = 0; i < uncertainOn.size(); i++) {
                text.append(i > 0 ? ", " : "").append(uncertainOn.get(i));
            }
        }
        return text.length() == 0 ? "nothing" : text.toString();
    }
}
