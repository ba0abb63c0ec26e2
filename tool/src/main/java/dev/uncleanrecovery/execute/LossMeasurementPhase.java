// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import dev.uncleanrecovery.cluster.ClusterSnapshot;
import dev.uncleanrecovery.evidence.ReplicaEvidence;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * What each election will truncate, measured from the replicas' answers to the second look (see {@link DoomedRanges}):
 * never the plan's figures, which a reviewer may have edited. A replica that loses more than the plan states refuses
 * its partition; other differences are noted; a replica whose loss cannot be known is kept with the measurement, for
 * the run's warning.
 */
final class LossMeasurementPhase {

    private final CutLookUp cutLookUp;

    LossMeasurementPhase(CutLookUp cutLookUp) {
        this.cutLookUp = cutLookUp;
    }

    /** @param going partitions with their second look; each goes on measured, or is refused */
    Map<TopicPartition, Verdict> measure(List<Candidate> going, ClusterSnapshot now) {
        Map<TopicPartition, Map<Integer, Long>> cuts = cuts(going);
        return Verdict.each(going, c -> {
            DoomedRanges d = DoomedRanges.measure(c.entry(), c.target().designatedLeader(), c.state(), now,
                    c.secondLook(), cuts.getOrDefault(c.topicPartition(), Map.of()));
            return d.refusal().isPresent() ? new Verdict.Refused(d.refusal().get())
                    : new Verdict.Proceed(c.measured(d), d.differences());
        });
    }

    /** Followers of another last written epoch than the leader's: only their brokers' look-ups say where they cut. */
    private Map<TopicPartition, Map<Integer, Long>> cuts(List<Candidate> going) {
        Map<TopicPartition, CutLookUp.Ask> asks = new LinkedHashMap<>();
        for (Candidate c : going) {
            int designated = c.target().designatedLeader();
            ReplicaEvidence leader = c.secondLook().stream().filter(e -> e.broker() == designated && e.isAnswered())
                    .findFirst().orElse(null);
            if (leader == null || c.state() == null) {
                continue;
            }
            List<ReplicaEvidence> diverging = c.secondLook().stream().filter(e -> e.broker() != designated
                    && e.isAnswered() && e.lastWrittenLeaderEpoch() != leader.lastWrittenLeaderEpoch()
                    && e.logEndOffset() > 0).toList();
            if (!diverging.isEmpty()) {
                asks.put(c.topicPartition(), new CutLookUp.Ask(c.state(), leader, diverging));
            }
        }
        return asks.isEmpty() ? Map.of() : cutLookUp.cuts(asks);
    }
}
