// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import dev.uncleanrecovery.cluster.ClusterSnapshot;
import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.connect.BrokerState;
import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.evidence.ReplicaEvidence;
import dev.uncleanrecovery.formats.ExpectedState;
import dev.uncleanrecovery.formats.PlanEvidence;
import dev.uncleanrecovery.formats.PlanTruncation;
import dev.uncleanrecovery.formats.PlannedElection;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

/**
 * A partition of a plan and the cluster around it, for the tests of one phase of a run: replicas [1, 3, 2] at leader
 * epoch 4, broker 1 fenced, 2 and 3 live; 2 designated unless a test says otherwise.
 */
final class PhaseFixture {

    static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);
    static final TopicPartition ORDERS_1 = new TopicPartition("orders", 1);
    static final Uuid ORDERS_ID = Uuid.fromString("m0uMP1nXQ4mAkRTb3e6u1Q");
    static final int EPOCH = 4;
    static final long BROKER_EPOCH = 7L;

    private PhaseFixture() {
    }

    static TopicPartitionState offline(TopicPartition tp) {
        return new TopicPartitionState(tp.topic(), ORDERS_ID, tp.partition(), TopicPartitionState.NO_LEADER, EPOCH,
                List.of(1, 3, 2), List.of(1), List.of(), List.of(1), List.of(1));
    }

    static TopicPartitionState ledBy(TopicPartition tp, int leader) {
        return new TopicPartitionState(tp.topic(), ORDERS_ID, tp.partition(), leader, EPOCH + 1, List.of(1, 3, 2),
                List.of(leader), List.of(), List.of(), List.of());
    }

    static ClusterSnapshot cluster(TopicPartitionState... partitions) {
        return new ClusterSnapshot("cluster", 1000, List.of(new BrokerState(1, "h", 1, null, true),
                new BrokerState(2, "h", 2, null, false), new BrokerState(3, "h", 3, null, false)), (short) 1,
                List.of(partitions), Map.of(), Set.of());
    }

    /** A live answer to the plan's probe. */
    static PlanEvidence inPlan(int broker, long logEnd, int lastWrittenEpoch) {
        return new PlanEvidence(broker, EvidenceSource.NATIVE, EvidenceStatus.OK, logEnd, lastWrittenEpoch, EPOCH,
                BROKER_EPOCH, null, Instant.EPOCH);
    }

    /** A live answer to the second look. */
    static ReplicaEvidence answer(TopicPartition tp, int broker, long logEnd, int lastWrittenEpoch) {
        return ReplicaEvidence.answered(tp, broker, EvidenceSource.NATIVE, logEnd, lastWrittenEpoch, EPOCH, BROKER_EPOCH,
                Instant.EPOCH);
    }

    static PlannedElection planned(TopicPartition tp, int designated, List<PlanEvidence> evidence,
                                   List<PlanTruncation> truncations) {
        return new PlannedElection(tp.topic(), tp.partition(), designated, new ExpectedState(EPOCH, List.of(1, 3, 2)),
                evidence, "longest log", truncations);
    }

    /** 2 designated, answered the plan with LEO 100 at epoch 4; nothing said of the others. */
    static PlannedElection planned(TopicPartition tp) {
        return planned(tp, 2, List.of(inPlan(2, 100, EPOCH)), List.of());
    }

    /** Where {@code broker} loses [from, to) as the plan states it, exactly. */
    static PlanTruncation exact(int broker, long from, long to) {
        return new PlanTruncation(broker, to - from, from, to, dev.uncleanrecovery.election.TruncationEstimate.EXACT);
    }
}
