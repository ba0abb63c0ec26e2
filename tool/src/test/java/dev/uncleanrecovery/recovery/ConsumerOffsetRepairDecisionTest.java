// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.cluster.ConsumerGroupOffsets;
import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.formats.ConsumerOffsetReset.Outcome;
import dev.uncleanrecovery.formats.DivergencePoint;
import dev.uncleanrecovery.formats.ExpectedState;
import dev.uncleanrecovery.formats.PlanEvidence;
import dev.uncleanrecovery.formats.PlannedElection;
import dev.uncleanrecovery.formats.ResultFile;
import dev.uncleanrecovery.probe.TruncationPoints.EpochEnd;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * Which group the repair sets back, run after run. ledger-0 on [1, 2, 3]: broker 2, which led epoch 1 from offset 20
 * to 35, is down for good; broker 1, elected in epoch 3, holds 0..30 in epoch 0. Where 2 is cut under 1 (20) is the
 * divergence point of a group that read 2's history; 1's records 20..29, of epoch 0, are the new history from there.
 */
class ConsumerOffsetRepairDecisionTest {

    private static final Instant AT = Instant.parse("2026-12-04T03:00:00Z");
    private static final TopicPartition LEDGER_0 = new TopicPartition("ledger", 0);
    private static final int NEW_LEADER = 1;
    private static final int ELECTED_EPOCH = 3;
    private static final PlannedElection PLANNED = new PlannedElection("ledger", 0, NEW_LEADER,
            new ExpectedState(1, List.of(1, 2, 3)), List.of(live(1, 30, 0), live(2, 35, 1), down(3)), "test",
            List.of());
    private static final ResultFile.Partition ELECTED = new ResultFile.Partition("ledger", 0, NEW_LEADER, "ELECTED",
            null, null, new ResultFile.State(NEW_LEADER, ELECTED_EPOCH, List.of(1, 2, 3), List.of(1), List.of(),
            List.of()), List.of(new ResultFile.Truncation(2, 20L, 20L, 35)), null, null);
    /** What 1 answers for epoch 0 after the election: its epoch 0 ends at 30, where its epoch 3 begins. */
    private static final Optional<EpochEnd> EPOCH_0_ENDS_AT_30 = Optional.of(new EpochEnd(0, 30));
    /** What 1 answers for epoch 1, which it never held: its floor entry, epoch 0, and where that ends. */
    private static final Optional<EpochEnd> NO_EPOCH_1 = Optional.of(new EpochEnd(0, 30));

    @Test
    void a_group_that_read_the_dead_leaders_epoch_is_set_back_to_where_that_history_parts() {
        ConsumerOffsetRepair.Decision decision = decide(committed(35, 1), NO_EPOCH_1, null);

        assertThat(decision.row().divergenceOffset()).isEqualTo(20);
        assertThat(decision.row().basis()).isEqualTo(DivergencePoint.Basis.REPLICA_CUT);
        assertThat(decision.row().outcome()).isEqualTo(Outcome.RESET);
    }

    @Test
    void a_group_that_has_read_on_in_an_older_epoch_of_the_new_log_is_left_alone_with_or_without_a_record() {
        // set back to 20 and read 1's records 20..29, whose epoch (0) its commit carries: 1 holds offset 29 in epoch 0
        assertThat(decide(committed(30, 0), EPOCH_0_ENDS_AT_30, null))
                .isEqualTo(ConsumerOffsetRepair.Decision.NOT_PAST);
        assertThat(decide(committed(30, 0), EPOCH_0_ENDS_AT_30, earlier(20)))
                .isEqualTo(ConsumerOffsetRepair.Decision.NOT_PAST);
        // without the new leader's answer, the plan alone would set it back again
        assertThat(decide(committed(30, 0), null, null).row().divergenceOffset()).isEqualTo(20);
    }

    @Test
    void a_group_set_back_before_that_commits_without_an_epoch_is_left_as_it_is_only_on_the_record() {
        ConsumerOffsetRepair.Decision recorded = decide(committed(30, -1), null, earlier(20));
        ConsumerOffsetRepair.Decision unrecorded = decide(committed(30, -1), null, null);

        assertThat(recorded.row().outcome()).isEqualTo(Outcome.ALREADY_RESET);
        assertThat(recorded.row().detail()).startsWith("set back to 20 at").contains("without a leader epoch");
        assertThat(unrecorded.row().outcome()).isEqualTo(Outcome.RESET);
        // at the very offset it was set to it is not past anything it did not see
        assertThat(decide(committed(20, -1), null, earlier(20))).isEqualTo(ConsumerOffsetRepair.Decision.NOT_PAST);
    }

    @Test
    void a_commit_whose_epoch_the_new_leader_does_not_hold_there_is_set_back_whatever_the_record_says() {
        // a consumer that still stood in 2's history committed it after the earlier reset
        ConsumerOffsetRepair.Decision decision = decide(committed(33, 1), NO_EPOCH_1, earlier(20));

        assertThat(decision.row().outcome()).isEqualTo(Outcome.RESET);
        assertThat(decision.row().divergenceOffset()).isEqualTo(20);
    }

    @Test
    void a_commit_in_the_new_leaders_epoch_is_new_history() {
        assertThat(decide(committed(40, ELECTED_EPOCH), null, null)).isEqualTo(ConsumerOffsetRepair.Decision.NOT_PAST);
    }

    private static ConsumerOffsetRepair.Decision decide(ConsumerGroupOffsets.Committed c, Optional<EpochEnd> answer,
                                                        ConsumerOffsetRepair.EarlierReset earlier) {
        return ConsumerOffsetRepair.decide(c, PLANNED, ELECTED, answer, earlier, Outcome.RESET);
    }

    private static ConsumerGroupOffsets.Committed committed(long offset, int epoch) {
        return new ConsumerGroupOffsets.Committed("ledger-readers", LEDGER_0, offset, epoch);
    }

    private static ConsumerOffsetRepair.EarlierReset earlier(long resetTo) {
        return new ConsumerOffsetRepair.EarlierReset(resetTo, "at " + AT + " (consumer-offset-resets.jsonl)");
    }

    private static PlanEvidence live(int broker, long logEnd, int lastEpoch) {
        return new PlanEvidence(broker, EvidenceSource.STOCK, EvidenceStatus.OK, logEnd, lastEpoch, 1, null, null, AT);
    }

    private static PlanEvidence down(int broker) {
        return new PlanEvidence(broker, EvidenceSource.STOCK, EvidenceStatus.UNREACHABLE, null, null, null, null,
                "broker down", AT);
    }
}
