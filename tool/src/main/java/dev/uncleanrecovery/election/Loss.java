// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.election;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * What one election destroys over all the other replicas, split into committed (below a high watermark of the same
 * log: acknowledged to acks=all producers, visible to consumers) and never committed.
 *
 * @param records        offsets known to be lost
 * @param committed      of those, known to be committed
 * @param lowerBound     some replica may lose more than counted (its epoch differs and its brokers were not asked)
 * @param committedKnown every counted loss has a known committed part
 * @param uncertainOn    replicas whose loss is unknown, or only known to be at least nothing
 */
public record Loss(long records, long committed, boolean lowerBound, boolean committedKnown, List<Integer> uncertainOn) {

    public Loss {
        uncertainOn = List.copyOf(uncertainOn);
    }

    public static Loss of(List<ExpectedTruncation> truncations) {
        long records = 0;
        long committed = 0;
        boolean lowerBound = false;
        boolean committedKnown = true;
        List<Integer> uncertain = new ArrayList<>();
        for (ExpectedTruncation t : truncations) {
            if (!t.isKnown() || (t.estimate() == TruncationEstimate.AT_LEAST && t.records() == 0)) {
                uncertain.add(t.broker());
                continue;
            }
            records += t.records();
            lowerBound |= t.estimate() != TruncationEstimate.EXACT;
            if (t.committed() >= 0) {
                committed += t.committed();
            } else {
                committedKnown = false;
            }
        }
        return new Loss(records, committed, lowerBound, committedKnown, uncertain);
    }

    /** Every replica's loss is exact and split: the counts are what the election destroys. */
    public boolean isExact() {
        return !lowerBound && committedKnown && uncertainOn.isEmpty();
    }

    /** Offsets lost that were never committed (a lower bound unless {@link #isExact()}). */
    public long uncommitted() {
        return records - committed;
    }

    /**
     * "0 committed and 17 uncommitted records", "nothing", "at least 17 records (at least 3 committed)",
     * "17 records (committed unknown)" — plus "an unknown amount on 1" for replicas whose loss is not known.
     */
    public String describe() {
        if (isExact()) {
            return records == 0 ? "nothing" : committed + " committed and " + uncommitted() + " uncommitted records";
        }
        List<String> parts = new ArrayList<>();
        if (records > 0 && !lowerBound && committedKnown) {
            parts.add(committed + " committed and " + uncommitted() + " uncommitted records");
        } else if (records > 0) {
            parts.add((lowerBound ? "at least " : "") + records + " records ("
                    + (committedKnown ? (lowerBound ? "at least " : "") + committed + " committed" : "committed unknown")
                    + ")");
        }
        if (!uncertainOn.isEmpty()) {
            parts.add("an unknown amount on " + uncertainOn.stream().map(String::valueOf).collect(Collectors.joining(", ")));
        }
        return parts.isEmpty() ? "nothing" : String.join(", and ", parts);
    }
}
