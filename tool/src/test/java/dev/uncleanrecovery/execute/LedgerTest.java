// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import static dev.uncleanrecovery.execute.PhaseFixture.ORDERS_0;
import static dev.uncleanrecovery.execute.PhaseFixture.ORDERS_1;
import static dev.uncleanrecovery.execute.PhaseFixture.cluster;
import static dev.uncleanrecovery.execute.PhaseFixture.inPlan;
import static dev.uncleanrecovery.execute.PhaseFixture.offline;
import static dev.uncleanrecovery.execute.PhaseFixture.planned;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.uncleanrecovery.cluster.ClusterSnapshot;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How the phases' verdicts add up to the outcomes of a run. */
class LedgerTest {

    private final ClusterSnapshot now = cluster(offline(ORDERS_0), offline(ORDERS_1));
    private final Candidate orders0 = Candidate.of(planned(ORDERS_0), now);
    private final Candidate orders1 = Candidate.of(planned(ORDERS_1), now);
    private final Ledger ledger = new Ledger(List.of(orders0, orders1),
            Map.of(ORDERS_0, "the interrupted run's order was put back"));

    @Test
    void a_refused_partition_goes_no_further_and_its_outcome_says_why_after_its_notes() {
        Candidate redecided = orders0.decidedAgain(planned(ORDERS_0, 3, List.of(inPlan(3, 150, 4)), List.of()));

        List<Candidate> going = ledger.settle(Map.of(ORDERS_0, new Verdict.Proceed(redecided, List.of("decided again")),
                ORDERS_1, new Verdict.Proceed(orders1)));
        going = ledger.settle(Map.of(ORDERS_0, new Verdict.Refused("salvage failed", List.of("broker 1 is down")),
                ORDERS_1, new Verdict.Done(new PartitionOutcome(ORDERS_1, 2, Outcome.ELECTED, "elected", null, null))));

        assertThat(going).isEmpty();
        assertThat(ledger.count(Outcome.REFUSED)).isEqualTo(1);
        // refused as the phase before left it: with the leader decided again
        assertThat(ledger.outcomes(List.of(ORDERS_0, ORDERS_1))).containsExactly(
                new PartitionOutcome(ORDERS_0, 3, Outcome.REFUSED, "salvage failed; the interrupted run's order was put"
                        + " back; decided again; broker 1 is down", offline(ORDERS_0), null),
                new PartitionOutcome(ORDERS_1, 2, Outcome.ELECTED, "elected", null, null));
    }

    @Test
    void a_partition_a_phase_gives_no_verdict_stops_the_run_after_the_others_are_entered() {
        PartitionOutcome elected = new PartitionOutcome(ORDERS_1, 2, Outcome.ELECTED, "elected", null, null);

        assertThatThrownBy(() -> ledger.settle(Map.of(ORDERS_1, new Verdict.Done(elected))))
                .isInstanceOf(IllegalStateException.class).hasMessage("no verdict for [orders-0]");
        assertThat(ledger.outcome(ORDERS_1)).isEqualTo(elected);
        assertThat(ledger.outcome(ORDERS_0)).isNull();
    }
}
