// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.evidence.ReplicaEvidence;
import dev.uncleanrecovery.formats.ExpectedState;
import dev.uncleanrecovery.formats.PlanEvidence;
import dev.uncleanrecovery.formats.PlannedElection;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** A changed BrokerEpoch between plan and re-probe means the designated broker restarted; the outcome says so. */
class NativeBrokerRestartTest {

    private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);

    private static PlannedElection planned(Long brokerEpoch) {
        return new PlannedElection("orders", 0, 2, new ExpectedState(4, List.of(1, 3, 2)),
                List.of(new PlanEvidence(2, EvidenceSource.NATIVE, EvidenceStatus.OK, 100L, 0, 4, brokerEpoch, null,
                        Instant.EPOCH)), "longest log", List.of());
    }

    private static ReplicaEvidence reprobed(long brokerEpoch, long logEndOffset) {
        return ReplicaEvidence.answered(ORDERS_0, 2, EvidenceSource.NATIVE, logEndOffset, 0, 4, brokerEpoch, Instant.now());
    }

    @Test
    void a_new_broker_epoch_is_noted_and_a_shrunk_log_still_refused() {
        PlannedElection plan = planned(311L);
        ReplicaEvidence after = reprobed(420, 90);

        assertThat(BrokerRestart.note(plan, after)).contains("broker 2 restarted since the plan (broker epoch 311 -> 420)");
        ElectionTarget target = new ElectionTarget(ORDERS_0, 2, 4, List.of(1, 3, 2), List.of(2, 3, 1), 100, 0);
        assertThat(Revalidation.logShrank(target, after)).hasValueSatisfying(r -> assertThat(r).contains("log shrank"));
    }

    @Test
    void the_same_broker_epoch_or_an_unknown_one_says_nothing() {
        assertThat(BrokerRestart.note(planned(311L), reprobed(311, 100))).isEmpty();
        assertThat(BrokerRestart.note(planned(null), reprobed(420, 100))).isEqualTo(Optional.empty());
        assertThat(BrokerRestart.note(planned(311L), reprobed(-1, 100))).isEmpty();
        assertThat(BrokerRestart.note(planned(311L), null)).isEmpty();
    }
}
