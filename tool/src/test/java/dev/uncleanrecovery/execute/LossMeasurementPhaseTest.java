// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import static dev.uncleanrecovery.execute.PhaseFixture.EPOCH;
import static dev.uncleanrecovery.execute.PhaseFixture.ORDERS_0;
import static dev.uncleanrecovery.execute.PhaseFixture.ORDERS_ID;
import static dev.uncleanrecovery.execute.PhaseFixture.answer;
import static dev.uncleanrecovery.execute.PhaseFixture.cluster;
import static dev.uncleanrecovery.execute.PhaseFixture.exact;
import static dev.uncleanrecovery.execute.PhaseFixture.inPlan;
import static dev.uncleanrecovery.execute.PhaseFixture.offline;
import static dev.uncleanrecovery.execute.PhaseFixture.planned;
import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.cluster.ClusterSnapshot;
import dev.uncleanrecovery.evidence.ReplicaEvidence;
import dev.uncleanrecovery.formats.PlanTruncation;
import dev.uncleanrecovery.salvage.DoomedRange;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** What each election truncates, measured from the second look, alone: against the plan's figures. */
class LossMeasurementPhaseTest {

    private final ClusterSnapshot now = cluster(offline(ORDERS_0));
    private final List<Map<TopicPartition, CutLookUp.Ask>> asked = new ArrayList<>();

    /** Broker 3 cuts at 90 wherever it is asked. */
    private final CutLookUp lookUp = asks -> {
        asked.add(asks);
        return Map.of(ORDERS_0, Map.of(3, 90L));
    };

    /** 2 designated (LEO 100, epoch 4), the plan stating {@code onThree}; 3 answers the second look with {@code three}. */
    private Verdict measure(PlanTruncation onThree, ReplicaEvidence three) {
        Candidate c = Candidate.of(planned(ORDERS_0, 2, List.of(inPlan(2, 100, EPOCH)), List.of(onThree)), now)
                .withSecondLook(List.of(answer(ORDERS_0, 2, 100, EPOCH), three));
        return new LossMeasurementPhase(lookUp).measure(List.of(c), now).get(ORDERS_0);
    }

    @Test
    void a_follower_of_the_leaders_epoch_loses_its_log_past_the_leaders_end_and_no_broker_is_asked() {
        Verdict verdict = measure(exact(3, 100, 120), answer(ORDERS_0, 3, 120, EPOCH));

        assertThat(asked).isEmpty();
        assertThat(verdict).isInstanceOfSatisfying(Verdict.Proceed.class, p -> {
            assertThat(p.notes()).isEmpty();
            assertThat(p.candidate().doomed().ranges())
                    .containsExactly(new DoomedRange(ORDERS_0, ORDERS_ID, 3, 100, 120, EPOCH));
            // broker 1 is fenced and the plan says nothing of it
            assertThat(p.candidate().doomed().unknown())
                    .isEqualTo(Map.of(1, "down, and no evidence says what its log holds"));
        });
    }

    @Test
    void a_follower_of_another_epoch_cuts_where_its_broker_says() {
        ReplicaEvidence three = answer(ORDERS_0, 3, 120, EPOCH - 1);

        Verdict verdict = measure(exact(3, 90, 120), three);

        assertThat(asked).singleElement().isEqualTo(Map.of(ORDERS_0, new CutLookUp.Ask(offline(ORDERS_0),
                answer(ORDERS_0, 2, 100, EPOCH), List.of(three))));
        assertThat(verdict).isInstanceOfSatisfying(Verdict.Proceed.class, p -> assertThat(p.candidate().doomed()
                .ranges()).containsExactly(new DoomedRange(ORDERS_0, ORDERS_ID, 3, 90, 120, EPOCH - 1)));
    }

    @Test
    void a_replica_that_loses_more_than_the_plan_states_refuses_the_partition() {
        Verdict verdict = measure(exact(3, 100, 110), answer(ORDERS_0, 3, 120, EPOCH));

        assertThat(verdict).isEqualTo(new Verdict.Refused("broker 3 loses 20 [100..120) as measured now, the plan says"
                + " 10 [100..110): the logs changed since the plan, or the plan was edited; plan again"));
    }

    @Test
    void a_replica_that_loses_less_than_the_plan_states_is_noted() {
        Verdict verdict = measure(exact(3, 100, 120), answer(ORDERS_0, 3, 110, EPOCH));

        assertThat(verdict).isInstanceOfSatisfying(Verdict.Proceed.class, p -> assertThat(p.notes())
                .containsExactly("broker 3 loses 10 [100..110) as measured now; the plan said 20 [100..120)"));
    }
}
