// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import dev.uncleanrecovery.cluster.ClusterSnapshot;
import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.election.ExpectedTruncation;
import dev.uncleanrecovery.election.TruncationEstimate;
import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.evidence.ReplicaEvidence;
import dev.uncleanrecovery.formats.PlanEvidence;
import dev.uncleanrecovery.formats.PlanTruncation;
import dev.uncleanrecovery.formats.PlannedElection;
import dev.uncleanrecovery.salvage.DoomedRange;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.Uuid;

/**
 * What electing a partition's leader will truncate on its other replicas, measured at execute time: the plan is an
 * editable file, so its figures are compared with the measurement, never used in its place. A replica whose broker is
 * live is measured from its answer to the second look (its log end and last written epoch; where the epoch differs from
 * the leader's, the brokers' own look-ups say where it cuts). A replica whose broker is down, or whose log directory
 * failed under its running broker, cannot be asked: its loss
 * is what the plan states from its evidence ('inspect' on its disk, or its answer to the plan's probe), and what
 * 'inspect --salvage-beyond' copied of it must cover that.
 *
 * @param ranges      losses of at least one offset, known exactly: to copy
 * @param inexact     brokers whose loss is only known as a lower bound: its start is not known, it cannot be copied whole
 * @param unknown     brokers whose loss is not known at all, with why: nothing can be copied, nothing reported
 * @param differences where the measurement differs from the plan and the plan's figure is not exceeded, for people
 * @param refusal     why the partition must not be elected: a replica loses more than the plan states (the log changed
 *                    since the plan, or the plan was edited)
 */
record DoomedRanges(List<DoomedRange> ranges, List<Integer> inexact, Map<Integer, String> unknown,
                    List<String> differences, Optional<String> refusal) {

    /**
     * @param secondLook the answers of the replicas probed just now (the leader's among them)
     * @param cuts       per follower whose epoch differs from the leader's, where its broker says it cuts
     */
    static DoomedRanges measure(PlannedElection p, int leader, TopicPartitionState state, ClusterSnapshot now,
                                List<ReplicaEvidence> secondLook, Map<Integer, Long> cuts) {
        Uuid topicId = state == null || state.topicId() == null ? Uuid.ZERO_UUID : state.topicId();
        ReplicaEvidence leaderNow = answer(secondLook, leader);
        Optional<List<PlanTruncation>> stated = p.truncationsUnder(leader);
        List<DoomedRange> ranges = new ArrayList<>();
        List<Integer> inexact = new ArrayList<>();
        Map<Integer, String> unknown = new java.util.LinkedHashMap<>();
        List<String> differences = new ArrayList<>();
        List<String> exceeded = new ArrayList<>();
        if (stated.isEmpty()) {
            differences.add("the plan states no loss for leader " + leader + " (designated by hand?): measured now");
        }
        for (int broker : state == null ? p.expected().replicas() : state.replicas()) {
            if (broker == leader) {
                continue;
            }
            PlanTruncation planned = stated.flatMap(list -> list.stream().filter(t -> t.broker() == broker).findFirst())
                    .orElse(null);
            ReplicaEvidence answer = answer(secondLook, broker);
            // a replica on a failed log directory is as good as down: its broker answers KAFKA_STORAGE_ERROR for it
            boolean live = now.canServe(p.topicPartition(), broker);
            if (answer != null && leaderNow != null) {
                ExpectedTruncation m = cuts.containsKey(broker)
                        ? ExpectedTruncation.exact(broker, cuts.get(broker), answer.logEndOffset())
                        : ExpectedTruncation.of(leaderNow, broker, answer);
                if (m.estimate() == TruncationEstimate.AT_LEAST && m.records() > 0) {
                    inexact.add(broker);
                } else if (m.records() > 0) {
                    ranges.add(new DoomedRange(p.topicPartition(), topicId, broker, m.fromOffset(), m.toOffset(),
                            answer.lastWrittenLeaderEpoch()));
                }
                compare(broker, planned, m, stated.isPresent(), differences, exceeded);
            } else if (live) {
                unknown.put(broker, "it did not answer the second look");
                addStated(p, planned, topicId, ranges, inexact);
            } else if (planned == null || planned.estimate() == TruncationEstimate.UNKNOWN) {
                unknown.put(broker, (now.isOnFailedLogDir(p.topicPartition(), broker) ? "its log directory failed"
                        : "down") + ", and no evidence says what its log holds");
            } else {
                addStated(p, planned, topicId, ranges, inexact);
            }
        }
        Optional<String> refusal = exceeded.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", exceeded)
                + ": the logs changed since the plan, or the plan was edited; plan again");
        return new DoomedRanges(List.copyOf(ranges), List.copyOf(inexact), Map.copyOf(unknown), List.copyOf(differences),
                refusal);
    }

    /** A down replica's loss as the plan states it: the evidence it had is all there is. */
    private static void addStated(PlannedElection p, PlanTruncation planned, Uuid topicId, List<DoomedRange> ranges,
                                  List<Integer> inexact) {
        if (planned == null || planned.estimate() == TruncationEstimate.UNKNOWN) {
            return;
        }
        if (planned.estimate() == TruncationEstimate.AT_LEAST) {
            inexact.add(planned.broker());
        } else if (planned.toOffset() > planned.fromOffset()) {
            ranges.add(new DoomedRange(p.topicPartition(), topicId, planned.broker(), planned.fromOffset(),
                    planned.toOffset(), lastWrittenEpoch(p, planned.broker())));
        }
    }

    /**
     * The measurement against the plan's figure for that replica: more than the plan states (a range the plan's does
     * not contain) refuses the partition, for the reviewer approved less; anything else different is said.
     */
    private static void compare(int broker, PlanTruncation planned, ExpectedTruncation m, boolean stated,
                                List<String> differences, List<String> exceeded) {
        if (m.estimate() != TruncationEstimate.EXACT) {
            return; // a bound against the plan's figure says nothing; the partition is refused its salvage anyway
        }
        String measured = m.records() == 0 ? "loses nothing" : "loses " + m.records() + " [" + m.fromOffset() + ".."
                + m.toOffset() + ")";
        if (planned == null || planned.estimate() == TruncationEstimate.UNKNOWN) {
            if (m.records() > 0) {
                differences.add("broker " + broker + " " + measured + " as measured now; the plan "
                        + (planned == null ? "states nothing for it" : "did not know its log"));
            }
            return;
        }
        String plannedText = planned.records() + " [" + planned.fromOffset() + ".." + planned.toOffset() + ")";
        boolean same = planned.records() == m.records() && planned.fromOffset() == m.fromOffset()
                && planned.toOffset() == m.toOffset() && planned.estimate() == m.estimate();
        if (same || (m.records() == 0 && planned.records() == 0)) {
            return;
        }
        boolean within = m.fromOffset() >= planned.fromOffset() && m.toOffset() <= planned.toOffset()
                && m.records() <= planned.records();
        boolean bound = planned.estimate() == TruncationEstimate.AT_LEAST;
        if (bound ? m.records() < planned.records() : !within) {
            exceeded.add("broker " + broker + " " + measured + " as measured now, the plan says " + (bound ? "at least " : "")
                    + plannedText);
        } else {
            differences.add("broker " + broker + " " + measured + " as measured now; the plan said " + (bound ? "at least "
                    : "") + plannedText);
        }
    }

    /** A live answer of the second look (never disk evidence). */
    private static ReplicaEvidence answer(List<ReplicaEvidence> secondLook, int broker) {
        return secondLook.stream().filter(e -> e.broker() == broker && e.isAnswered() && e.source() != EvidenceSource.DISK)
                .findFirst().orElse(null);
    }

    /** The epoch of the replica's last batch as the plan has it (a live answer first); -1 when not known. */
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
