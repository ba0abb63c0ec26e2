// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import dev.uncleanrecovery.election.TruncationEstimate;
import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.plan.PlanEvidence;
import dev.uncleanrecovery.plan.PlanTruncation;
import dev.uncleanrecovery.plan.PlannedElection;
import dev.uncleanrecovery.salvage.DoomedRange;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.Uuid;

/**
 * What electing a partition's leader will truncate on its other replicas, as the plan states it for that leader.
 *
 * @param ranges        EXACT losses of at least one offset: to copy
 * @param inexact       brokers whose loss is only known as a lower bound (AT_LEAST): its start is not known
 * @param unknown       brokers whose log is not known (UNKNOWN): nothing can be read of them online
 * @param stated        false when the plan states nothing for that leader (designated by hand, not an alternative)
 */
record DoomedRanges(List<DoomedRange> ranges, List<Integer> inexact, List<Integer> unknown, boolean stated) {

    static DoomedRanges of(PlannedElection p, int leader, Uuid topicId) {
        Optional<List<PlanTruncation>> cuts = p.truncationsUnder(leader);
        List<DoomedRange> ranges = new ArrayList<>();
        List<Integer> inexact = new ArrayList<>();
        List<Integer> unknown = new ArrayList<>();
        for (PlanTruncation t : cuts.orElse(List.of())) {
            if (t.broker() == leader) {
                continue;
            }
            if (t.estimate() == TruncationEstimate.UNKNOWN) {
                unknown.add(t.broker());
            } else if (t.estimate() == TruncationEstimate.AT_LEAST) {
                inexact.add(t.broker());
            } else if (t.records() > 0 && t.toOffset() > t.fromOffset()) {
                ranges.add(new DoomedRange(p.topicPartition(), topicId == null ? Uuid.ZERO_UUID : topicId, t.broker(),
                        t.fromOffset(), t.toOffset(), lastWrittenEpoch(p, t.broker())));
            }
        }
        return new DoomedRanges(List.copyOf(ranges), List.copyOf(inexact), List.copyOf(unknown), cuts.isPresent());
    }

    /** The epoch of the replica's last batch as probed (a live answer first); -1 when not known. */
    private static int lastWrittenEpoch(PlannedElection p, int broker) {
        Integer fromDisk = null;
        for (PlanEvidence e : p.evidence()) {
            if (e.broker() != broker || e.status() != EvidenceStatus.OK || e.lastWrittenLeaderEpoch() == null) {
                continue;
            }
            if (e.source() != EvidenceSource.DISK) {
                return e.lastWrittenLeaderEpoch();
            }
            fromDisk = fromDisk == null ? e.lastWrittenLeaderEpoch() : fromDisk;
        }
        return fromDisk == null ? -1 : fromDisk;
    }

    long records() {
        return ranges.stream().mapToLong(DoomedRange::offsets).sum();
    }
}
