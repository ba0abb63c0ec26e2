// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import static dev.uncleanrecovery.execute.PhaseFixture.ORDERS_0;
import static dev.uncleanrecovery.execute.PhaseFixture.cluster;
import static dev.uncleanrecovery.execute.PhaseFixture.offline;
import static dev.uncleanrecovery.execute.PhaseFixture.planned;
import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.cluster.ClusterSnapshot;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The last phase, alone: the elector, a dry run, or nothing to elect. */
class ElectPhaseTest {

    private final ClusterSnapshot now = cluster(offline(ORDERS_0));
    private final List<String> events = new CopyOnWriteArrayList<>();
    private final ElectingElector elector = new ElectingElector(events::add);
    /** The fake elector, telling when it is asked to prepare. */
    private final DesignatedElector preparing = new DesignatedElector() {
        @Override
        public String describe() {
            return elector.describe();
        }

        @Override
        public List<PartitionOutcome> elect(List<ElectionTarget> targets, ClusterSnapshot validated, Runnable gate) {
            return elector.elect(targets, validated, gate);
        }

        @Override
        public Duration leadersShownAfter() {
            return elector.leadersShownAfter();
        }

        @Override
        public void prepare() {
            events.add("prepare");
        }
    };
    private final List<Candidate> going = List.of(Candidate.of(planned(ORDERS_0), now));

    @Test
    void the_elector_is_given_every_partition_still_going_and_runs_the_gate_before_its_first_change() {
        ElectPhase phase = new ElectPhase(preparing, false, events::add);

        phase.prepare(going);
        ElectPhase.Election election = phase.elect(going, now, () -> events.add("gate"));

        assertThat(events).containsExactly("prepare", "fake elector", "gate", "elect");
        assertThat(elector.elected).containsExactly(going.get(0).target());
        assertThat(election.electedBy()).isEqualTo("fake elector");
        assertThat(election.leadersShownAfter()).isEqualTo(Duration.ZERO);
        assertThat(election.verdicts().get(ORDERS_0)).isEqualTo(new Verdict.Done(new PartitionOutcome(ORDERS_0, 2,
                Outcome.ELECTED, "elected", null, null)));
    }

    @Test
    void a_dry_run_prepares_nothing_elects_nothing_and_says_what_it_would_elect() {
        ElectPhase phase = new ElectPhase(preparing, true, events::add);

        phase.prepare(going);
        ElectPhase.Election election = phase.elect(going, now, () -> events.add("gate"));

        assertThat(events).isEmpty();
        assertThat(election.electedBy()).isEqualTo("none (dry run)");
        assertThat(election.leadersShownAfter()).isNull();
        assertThat(election.verdicts().get(ORDERS_0)).isEqualTo(new Verdict.Done(new PartitionOutcome(ORDERS_0, 2,
                Outcome.WOULD_ELECT, "would elect 2 (epoch 4, LEO 100); nothing changed", offline(ORDERS_0), null)));
    }

    @Test
    void with_nothing_to_elect_the_gate_still_runs_and_the_elector_is_not_asked() {
        ElectPhase phase = new ElectPhase(preparing, false, events::add);

        phase.prepare(List.of());
        ElectPhase.Election election = phase.elect(List.of(), now, () -> events.add("gate"));

        assertThat(events).containsExactly("gate");
        assertThat(election.electedBy()).isEqualTo("none (nothing to elect)");
        assertThat(election.verdicts()).isEmpty();
    }
}
