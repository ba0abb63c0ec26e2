// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import static dev.uncleanrecovery.execute.PhaseFixture.ORDERS_0;
import static dev.uncleanrecovery.execute.PhaseFixture.ORDERS_1;
import static dev.uncleanrecovery.execute.PhaseFixture.cluster;
import static dev.uncleanrecovery.execute.PhaseFixture.inPlan;
import static dev.uncleanrecovery.execute.PhaseFixture.ledBy;
import static dev.uncleanrecovery.execute.PhaseFixture.offline;
import static dev.uncleanrecovery.execute.PhaseFixture.planned;
import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.cluster.ClusterSnapshot;
import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.formats.PlanEvidence;
import dev.uncleanrecovery.formats.PlannedElection;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The first phase of a run: each partition of the plan against the cluster as re-read, alone. */
class RevalidationTest {

    private static Map<TopicPartition, Verdict> recheck(ClusterSnapshot now, boolean allowUnprobed,
                                                        PlannedElection... entries) {
        return Revalidation.recheck(List.of(entries).stream().map(p -> Candidate.of(p, now)).toList(), now,
                allowUnprobed);
    }

    @Test
    void a_partition_still_as_planned_proceeds_and_one_gone_since_is_refused() {
        ClusterSnapshot now = cluster(offline(ORDERS_0));

        Map<TopicPartition, Verdict> verdicts = recheck(now, false, planned(ORDERS_0), planned(ORDERS_1));

        assertThat(verdicts.get(ORDERS_0)).isInstanceOfSatisfying(Verdict.Proceed.class,
                p -> assertThat(p.candidate().state()).isEqualTo(offline(ORDERS_0)));
        assertThat(verdicts.get(ORDERS_1)).isEqualTo(new Verdict.Refused("partition no longer exists"));
    }

    @Test
    void a_partition_led_by_its_designated_replica_is_done_and_one_led_by_another_is_refused() {
        ClusterSnapshot now = cluster(ledBy(ORDERS_0, 2), ledBy(ORDERS_1, 3));

        Map<TopicPartition, Verdict> verdicts = recheck(now, false, planned(ORDERS_0), planned(ORDERS_1));

        assertThat(verdicts.get(ORDERS_0)).isInstanceOfSatisfying(Verdict.Done.class, d -> {
            assertThat(d.outcome().outcome()).isEqualTo(Outcome.ALREADY_RECOVERED);
            assertThat(d.outcome().detail()).isEqualTo("already led by designated replica 2 (leader epoch 5); nothing to do");
            assertThat(d.outcome().before()).isEqualTo(d.outcome().after()).isEqualTo(ledBy(ORDERS_0, 2));
        });
        assertThat(verdicts.get(ORDERS_1)).isEqualTo(new Verdict.Refused("has a leader again (3, leader epoch 5); not touched"));
    }

    @Test
    void a_designation_without_live_evidence_is_refused_unless_allowed() {
        ClusterSnapshot now = cluster(offline(ORDERS_0));
        PlannedElection unprobed = planned(ORDERS_0, 3, List.of(new PlanEvidence(3, EvidenceSource.NATIVE,
                EvidenceStatus.UNREACHABLE, null, null, null, null, "timed out", Instant.EPOCH)), List.of());

        assertThat(recheck(now, false, unprobed).get(ORDERS_0)).isEqualTo(new Verdict.Refused("designated leader 3 has"
                + " no live evidence in the plan (was it edited?); pass --allow-unprobed-leader to elect it anyway"));
        assertThat(recheck(now, true, unprobed).get(ORDERS_0)).isInstanceOf(Verdict.Proceed.class);
    }

    @Test
    void the_clusters_own_reason_comes_before_the_missing_evidence() {
        // designated 1 has no evidence in the plan, and its broker is fenced: the fence is what the operator must know
        ClusterSnapshot now = cluster(offline(ORDERS_0));
        PlannedElection onFenced = planned(ORDERS_0, 1, List.of(inPlan(2, 100, 4)), List.of());

        assertThat(recheck(now, false, onFenced).get(ORDERS_0))
                .isEqualTo(new Verdict.Refused("designated broker 1 is fenced; it cannot lead now"));
    }
}
