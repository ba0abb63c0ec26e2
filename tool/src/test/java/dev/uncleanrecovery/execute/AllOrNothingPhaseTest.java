// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import static dev.uncleanrecovery.execute.PhaseFixture.ORDERS_0;
import static dev.uncleanrecovery.execute.PhaseFixture.ORDERS_1;
import static dev.uncleanrecovery.execute.PhaseFixture.cluster;
import static dev.uncleanrecovery.execute.PhaseFixture.offline;
import static dev.uncleanrecovery.execute.PhaseFixture.planned;
import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.cluster.ClusterSnapshot;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AllOrNothingPhaseTest {

    private final ClusterSnapshot now = cluster(offline(ORDERS_0), offline(ORDERS_1));
    private final List<Candidate> going = List.of(Candidate.of(planned(ORDERS_0), now),
            Candidate.of(planned(ORDERS_1), now));

    @Test
    void with_no_partition_refused_every_one_goes_on() {
        assertThat(AllOrNothingPhase.judge(going, 0)).isEqualTo(Map.of(ORDERS_0, new Verdict.Proceed(going.get(0)),
                ORDERS_1, new Verdict.Proceed(going.get(1))));
    }

    @Test
    void one_refusal_refuses_every_partition_still_going() {
        Verdict refused = new Verdict.Refused("not elected: --all-or-nothing, and 2 partition(s) of the plan were refused");

        assertThat(AllOrNothingPhase.judge(going, 2)).isEqualTo(Map.of(ORDERS_0, refused, ORDERS_1, refused));
    }
}
