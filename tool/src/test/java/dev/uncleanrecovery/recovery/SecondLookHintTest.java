// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.formats.ExpectedState;
import dev.uncleanrecovery.formats.PlanEvidence;
import dev.uncleanrecovery.formats.PlannedElection;
import dev.uncleanrecovery.probe.PartitionToProbe;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

/**
 * What execute tells the second look about each designated replica: what the plan saw of its log, so that a stock
 * broker is asked one Fetch (StockLogInfoSourceClusterTest shows that on real Kafka) — and nothing when the plan has
 * no answer from that replica to compare with.
 */
class SecondLookHintTest {

    private static final TopicPartitionState ORDERS_0 = new TopicPartitionState("orders", Uuid.randomUuid(), 0,
            TopicPartitionState.NO_LEADER, 4, List.of(1, 3, 2), List.of(1), List.of(), List.of(1), List.of(1));

    private static PlannedElection planned(PlanEvidence... evidence) {
        return new PlannedElection("orders", 0, 2, new ExpectedState(4, List.of(1, 3, 2)),
                List.of(evidence), "longest log", List.of());
    }

    private static PlanEvidence answered(int broker, long logEndOffset, int epoch) {
        return new PlanEvidence(broker, EvidenceSource.STOCK, EvidenceStatus.OK, logEndOffset, epoch, 4, null, null,
                Instant.EPOCH);
    }

    @Test
    void the_designated_replica_is_asked_about_the_log_the_plan_saw_on_it() {
        PartitionToProbe probe = PlanReprobe.asPlanned(planned(answered(3, 50, 2), answered(2, 100, 3)), ORDERS_0, 2);

        assertThat(probe.asPlanned()).isEqualTo(new PartitionToProbe.AsPlanned(3, 100));
        assertThat(probe.topicPartition()).isEqualTo(ORDERS_0.topicPartition());
        assertThat(probe.topicId()).isEqualTo(ORDERS_0.topicId());
        assertThat(probe.metadataLeaderEpoch()).isEqualTo(4);
    }

    @Test
    void without_an_answer_of_that_replica_in_the_plan_it_is_probed_the_full_way() {
        PlanEvidence unreachable = new PlanEvidence(2, EvidenceSource.STOCK, EvidenceStatus.UNREACHABLE, null, null,
                null, null, "did not answer", Instant.EPOCH);

        assertThat(PlanReprobe.asPlanned(planned(answered(3, 50, 2)), ORDERS_0, 2).asPlanned()).isNull();
        assertThat(PlanReprobe.asPlanned(planned(unreachable), ORDERS_0, 2).asPlanned()).isNull();
        assertThat(PlanReprobe.asPlanned(planned(answered(2, 0, -1)), ORDERS_0, 2).asPlanned())
                .as("an empty epoch cache: no epoch to ask about").isNull();
        assertThat(PlanReprobe.asPlanned(null, ORDERS_0, 2)).isEqualTo(PartitionToProbe.of(ORDERS_0));
    }
}
