// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.formats;

import static dev.uncleanrecovery.formats.SamplePlan.ORDERS_3;
import static dev.uncleanrecovery.formats.SamplePlan.ORDERS_3_EVIDENCE;
import static dev.uncleanrecovery.formats.SamplePlan.ORDERS_3_STATE;
import static dev.uncleanrecovery.formats.SamplePlan.ORDERS_5_STATE;
import static dev.uncleanrecovery.formats.SamplePlan.PROBED_AT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.uncleanrecovery.election.Decision;
import dev.uncleanrecovery.election.ElectionOptions;
import dev.uncleanrecovery.election.LeaderChoice;
import dev.uncleanrecovery.election.Strategy;
import dev.uncleanrecovery.election.TruncationEstimate;
import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.evidence.ReplicaEvidence;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class PlanBuilderTest {

    private static PlanBuilder builder() {
        return new PlanBuilder(SamplePlan.CREATED_AT, "cluster", "kafka-unclean-recovery 0.1.0", Strategy.PROACTIVE);
    }

    private static Decision proactive(List<ReplicaEvidence> evidence) {
        return LeaderChoice.decide(ORDERS_3_STATE, evidence, Set.of(),
                ElectionOptions.defaults().withStrategy(Strategy.PROACTIVE));
    }

    @Test
    void an_election_carries_the_expected_state_the_evidence_and_the_truncations() {
        // when
        Plan plan = builder().add(ORDERS_3_STATE, ORDERS_3_EVIDENCE, proactive(ORDERS_3_EVIDENCE)).build();

        // then
        assertThat(plan.skipped()).isEmpty();
        PlannedElection election = plan.partitions().get(0);
        assertThat(election.topicPartition()).isEqualTo(ORDERS_3);
        assertThat(election.designatedLeader()).isEqualTo(2);
        // with what the controller recorded of its replicas: no ISR, ELR or LastKnownELR member left
        assertThat(election.expected()).isEqualTo(new ExpectedState(7, List.of(1, 2, 3), List.of(), List.of(),
                List.of()));
        assertThat(election.evidence()).extracting(PlanEvidence::broker).containsExactly(1, 2, 3);
        assertThat(election.expectedTruncation()).containsExactly(
                new PlanTruncation(1, null, null, null, TruncationEstimate.UNKNOWN),
                new PlanTruncation(3, 17L, 1042L, 1059L, TruncationEstimate.AT_LEAST));
        assertThat(election.reason()).startsWith("electing 2 loses at least 17 records").contains("; highest last written epoch (6)");
        assertThat(election.alternatives()).extracting(PlanAlternative::broker).containsExactly(3);
    }

    @Test
    void a_skip_goes_to_skipped_with_its_reason_and_never_to_partitions() {
        Decision skip = LeaderChoice.decide(ORDERS_5_STATE, SamplePlan.ORDERS_5_EVIDENCE, Set.of(), ElectionOptions.defaults());

        Plan plan = builder().add(ORDERS_5_STATE, SamplePlan.ORDERS_5_EVIDENCE, skip).build();

        assertThat(plan.partitions()).isEmpty();
        // the evidence the skip rests on goes with it, as an election's would
        assertThat(plan.skipped()).containsExactly(new SkippedPartition("orders", 5, skip.reason(),
                SamplePlan.ORDERS_5_EVIDENCE.stream().map(PlanEvidence::from).toList()));
        assertThat(plan.skipped().get(0).evidence()).first().satisfies(e -> {
            assertThat(e.status()).isEqualTo(EvidenceStatus.UNREACHABLE);
            assertThat(e.error()).isEqualTo("connection refused");
        });
    }

    @Test
    void evidence_of_brokers_outside_the_replica_set_is_left_out() {
        List<ReplicaEvidence> evidence = new ArrayList<>(ORDERS_3_EVIDENCE);
        evidence.add(ReplicaEvidence.answered(ORDERS_3, 9, EvidenceSource.DISK, 5, 5, -1, -1, PROBED_AT));

        Plan plan = builder().add(ORDERS_3_STATE, evidence, proactive(evidence)).build();

        assertThat(plan.partitions().get(0).evidence()).extracting(PlanEvidence::broker).containsExactly(1, 2, 3);
    }

    @Test
    void a_decision_for_another_partition_is_a_programming_error() {
        Decision other = new Decision.Skip(new TopicPartition("orders", 4), dev.uncleanrecovery.election.SkipCause.HAS_LEADER, "x");

        assertThatThrownBy(() -> builder().add(ORDERS_3_STATE, ORDERS_3_EVIDENCE, other))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("orders-4");
    }

    @Test
    void the_same_partition_twice_is_refused() {
        PlanBuilder builder = builder().add(ORDERS_3_STATE, ORDERS_3_EVIDENCE, proactive(ORDERS_3_EVIDENCE))
                .add(ORDERS_3_STATE, ORDERS_3_EVIDENCE, proactive(ORDERS_3_EVIDENCE));

        assertThatThrownBy(builder::build).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("partitions[1] is orders-3 again (already partitions[0]); keep one of them");
    }

    @Test
    void evidence_converts_back_to_the_probes_value_with_minus_one_for_the_unknown() {
        for (ReplicaEvidence evidence : ORDERS_3_EVIDENCE) {
            assertThat(PlanEvidence.from(evidence).toReplicaEvidence(ORDERS_3)).isEqualTo(evidence);
        }
    }

    @Test
    void an_operator_may_designate_another_replica_of_the_partition() {
        String edited = PlanFileTest.GOLDEN.replace("\"designatedLeader\" : 2", "\"designatedLeader\" : 3");

        Plan plan = PlanFile.parse("plan.json", edited.getBytes(StandardCharsets.UTF_8));

        assertThat(plan.partitions().get(0).designatedLeader()).isEqualTo(3);
    }
}
