// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import static dev.uncleanrecovery.execute.PhaseFixture.EPOCH;
import static dev.uncleanrecovery.execute.PhaseFixture.ORDERS_0;
import static dev.uncleanrecovery.execute.PhaseFixture.answer;
import static dev.uncleanrecovery.execute.PhaseFixture.cluster;
import static dev.uncleanrecovery.execute.PhaseFixture.inPlan;
import static dev.uncleanrecovery.execute.PhaseFixture.offline;
import static dev.uncleanrecovery.execute.PhaseFixture.planned;
import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.cluster.ClusterSnapshot;
import dev.uncleanrecovery.evidence.ReplicaEvidence;
import dev.uncleanrecovery.formats.PlanEvidence;
import dev.uncleanrecovery.formats.PlannedElection;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The answers of replicas that had none in the plan, alone: noted, refusing, or decided again. */
class LateAnswersPhaseTest {

    private final ClusterSnapshot now = cluster(offline(ORDERS_0));
    private final List<List<ReplicaEvidence>> redecided = new ArrayList<>();

    /** 2 designated (LEO 100 in the plan and now); {@code others} answer the second look. */
    private Candidate looked(PlannedElection p, ReplicaEvidence... others) {
        List<ReplicaEvidence> answers = new ArrayList<>(List.of(answer(ORDERS_0, 2, 100, EPOCH)));
        answers.addAll(List.of(others));
        return Candidate.of(p, now).withSecondLook(answers);
    }

    private Verdict judge(Redecision redecision, Candidate c) {
        return new LateAnswersPhase(redecision).judge(List.of(c), now).get(ORDERS_0);
    }

    /** Decides again for {@code leader}, with the late answers as its evidence. */
    private Redecision electing(int leader) {
        return (p, state, cluster, late) -> {
            redecided.add(late);
            return new Redecision.Outcome.Elect(planned(ORDERS_0, leader,
                    late.stream().map(PlanEvidence::from).toList(), List.of()));
        };
    }

    @Test
    void without_late_answers_the_partition_goes_on_unchanged_and_unsaid() {
        Candidate c = looked(planned(ORDERS_0));

        assertThat(judge(null, c)).isEqualTo(new Verdict.Proceed(c));
    }

    @Test
    void a_replica_that_answered_the_plan_too_is_not_late() {
        Candidate c = looked(planned(ORDERS_0, 2, List.of(inPlan(2, 100, EPOCH), inPlan(3, 150, EPOCH)), List.of()),
                answer(ORDERS_0, 3, 150, EPOCH));

        assertThat(judge(null, c)).isEqualTo(new Verdict.Proceed(c));
    }

    @Test
    void a_late_answer_with_less_is_noted() {
        Candidate c = looked(planned(ORDERS_0), answer(ORDERS_0, 3, 60, EPOCH));

        assertThat(judge(electing(3), c)).isEqualTo(new Verdict.Proceed(c, List.of("broker 3 answered after the plan:"
                + " epoch 4, LEO 60 (not more than designated 2: epoch 4, LEO 100)")));
        assertThat(redecided).as("nothing to decide again").isEmpty();
    }

    @Test
    void a_late_answer_with_more_refuses_a_reviewed_plan() {
        Candidate c = looked(planned(ORDERS_0), answer(ORDERS_0, 3, 150, EPOCH));

        assertThat(judge(null, c)).isEqualTo(new Verdict.Refused("broker 3 answered after the plan and holds more:"
                + " epoch 4, LEO 150 against epoch 4, LEO 100 on designated 2; plan again"));
    }

    @Test
    void recover_decides_again_and_the_new_designation_goes_on() {
        ReplicaEvidence three = answer(ORDERS_0, 3, 150, EPOCH);
        Candidate c = looked(planned(ORDERS_0), three);

        Verdict verdict = judge(electing(3), c);

        assertThat(redecided).containsExactly(List.of(three));
        assertThat(verdict).isInstanceOfSatisfying(Verdict.Proceed.class, p -> {
            assertThat(p.candidate().target().designatedLeader()).isEqualTo(3);
            assertThat(p.candidate().target().plannedLogEndOffset()).isEqualTo(150);
            assertThat(p.candidate().secondLook()).isEqualTo(c.secondLook());
            assertThat(p.notes()).containsExactly("decided again: broker 3 answered after the plan and holds more:"
                    + " epoch 4, LEO 150 against epoch 4, LEO 100 on designated 2; designated 3 instead");
        });
    }

    @Test
    void a_new_designation_that_cannot_lead_now_refuses_the_partition() {
        // the redecision names 1, whose broker is fenced
        Candidate c = looked(planned(ORDERS_0), answer(ORDERS_0, 3, 150, EPOCH));

        assertThat(judge(electing(1), c)).isEqualTo(new Verdict.Refused("broker 3 answered after the plan and holds"
                + " more: epoch 4, LEO 150 against epoch 4, LEO 100 on designated 2; decided again, 1 cannot lead now;"
                + " plan again"));
    }
}
