// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.formats;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.election.TruncationEstimate;
import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import java.time.Instant;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * Where the new leader's log parts from what a group read. Partition orders-0 on [1, 2, 3]: broker 1 led epoch 7 and
 * wrote offsets 90..120 of it; broker 2, elected, wrote 90..100 in epoch 6 as a leader that was cut off, so its log
 * parts from 1's at 90 (where epoch 7 began).
 */
class DivergencePointTest {

    private static final Instant AT = Instant.parse("2026-12-04T03:00:00Z");
    private static final int LEADER = 2;

    @Test
    void a_group_that_read_the_cut_replica_is_set_back_to_where_that_replica_is_cut_even_inside_the_new_log() {
        PlannedElection planned = election(live(1, 120, 7), live(2, 100, 6), down(3));

        // 95 < the new log end 100: the group read 1's epoch-7 records at 90..94, which 2 holds other records at
        DivergencePoint d = DivergencePoint.of(planned, elected(cut(1, null, 90L, 120)), 95, 7).orElseThrow();

        assertThat(d).isEqualTo(new DivergencePoint(90, DivergencePoint.Basis.REPLICA_CUT, 1));
    }

    @Test
    void the_cut_the_brokers_answered_after_the_election_wins_over_the_plans() {
        PlannedElection planned = election(live(1, 120, 7), live(2, 100, 6), down(3));

        DivergencePoint d = DivergencePoint.of(planned, elected(cut(1, 90L, 88L, 120)), 110, -1).orElseThrow();

        assertThat(d.offset()).isEqualTo(88);
    }

    @Test
    void a_group_before_the_divergence_point_keeps_its_offset() {
        PlannedElection planned = election(live(1, 120, 7), live(2, 100, 6), down(3));

        DivergencePoint d = DivergencePoint.of(planned, elected(cut(1, 90L, 90L, 120)), 80, -1).orElseThrow();

        assertThat(d.offset()).isEqualTo(80); // C <= D: nothing to do
    }

    @Test
    void without_a_probed_replica_the_new_leaders_end_of_the_epoch_the_group_read_is_the_point_when_lower() {
        // seed 27: the group read epoch 5 to 115 from 3, which is down (its disk lost); 2's epoch 5 ends at 97, where
        // it began leading epoch 6: Kafka's consumer would find its log truncated there (KIP-320), and so does the
        // repair
        PlannedElection planned = election(live(1, 60, 5), live(2, 100, 6), down(3));

        DivergencePoint d = DivergencePoint.of(planned, elected(), 115, 5, OptionalLong.of(97)).orElseThrow();

        assertThat(d).isEqualTo(new DivergencePoint(97, DivergencePoint.Basis.COMMITTED_EPOCH_END, null));
        // an end at or past the new log end says nothing more than the log end
        assertThat(DivergencePoint.of(planned, elected(), 115, 5, OptionalLong.of(100)).orElseThrow())
                .isEqualTo(new DivergencePoint(100, DivergencePoint.Basis.NEW_LOG_END, null));
        // nor does it where a probed replica holds what the group read: its cut is exact
        PlannedElection withHistory = election(live(1, 120, 7), live(2, 100, 6), down(3));
        assertThat(DivergencePoint.of(withHistory, elected(cut(1, null, 90L, 120)), 95, 7, OptionalLong.of(10))
                .orElseThrow()).isEqualTo(new DivergencePoint(90, DivergencePoint.Basis.REPLICA_CUT, 1));
    }

    @Test
    void without_a_probed_replica_that_holds_what_the_group_read_the_new_log_end_is_the_point() {
        // what the group read to 115 was only on 3, which is down: nothing says where 2's log parts from it
        PlannedElection planned = election(live(1, 60, 5), live(2, 100, 6), down(3));

        DivergencePoint d = DivergencePoint.of(planned, elected(), 115, -1).orElseThrow();

        assertThat(d).isEqualTo(new DivergencePoint(100, DivergencePoint.Basis.NEW_LOG_END, null));
    }

    @Test
    void a_group_that_read_an_epoch_the_new_leader_never_held_reads_again_from_its_high_watermark_rather_than_skip() {
        // seed 6: the group read epoch 8 to 3954 from 3, whose disk is lost; 2 led epoch 6 to 3771 and never held
        // epoch 8, and its records past what epoch 6 had committed (3700) may not be those 3 had there
        PlanEvidence leader = new PlanEvidence(LEADER, EvidenceSource.STOCK, EvidenceStatus.OK, 3771L, 6, 7, null,
                null, AT, 3700L);
        PlannedElection planned = election(live(1, 60, 5), leader, down(3));

        assertThat(DivergencePoint.of(planned, elected(), 3954, 8, OptionalLong.of(3771)).orElseThrow())
                .isEqualTo(new DivergencePoint(3700, DivergencePoint.Basis.LEADER_HIGH_WATERMARK, null));
        // a group that last read an epoch the new leader holds parts from it where that epoch ends there
        assertThat(DivergencePoint.of(planned, elected(), 3954, 6, OptionalLong.of(3771)).orElseThrow())
                .isEqualTo(new DivergencePoint(3771, DivergencePoint.Basis.NEW_LOG_END, null));
        // without the leader's high watermark (the native probe does not give it) the log end is all there is
        assertThat(DivergencePoint.of(election(live(1, 60, 5), live(2, 3771, 6), down(3)), elected(), 3954, 8,
                OptionalLong.of(3771)).orElseThrow())
                .isEqualTo(new DivergencePoint(3771, DivergencePoint.Basis.NEW_LOG_END, null));
    }

    @Test
    void a_longer_replica_of_an_older_epoch_than_the_new_leaders_is_not_the_history_the_group_read() {
        // 1 holds 130 records, but ends in epoch 4: the leader of epoch 6 had cut them before the group read
        PlannedElection planned = election(live(1, 130, 4), live(2, 100, 6), down(3));

        DivergencePoint d = DivergencePoint.of(planned, elected(cut(1, 70L, 70L, 130)), 110, -1).orElseThrow();

        assertThat(d).isEqualTo(new DivergencePoint(100, DivergencePoint.Basis.NEW_LOG_END, null));
    }

    @Test
    void a_replica_of_the_leaders_own_epoch_parts_at_the_shorter_log_end_when_no_cut_was_measured() {
        PlannedElection planned = election(live(1, 120, 6), live(2, 100, 6), down(3));

        DivergencePoint d = DivergencePoint.of(planned, elected(), 118, 6).orElseThrow();

        assertThat(d).isEqualTo(new DivergencePoint(100, DivergencePoint.Basis.REPLICA_CUT, 1));
    }

    @Test
    void the_plans_exact_cut_serves_when_the_run_measured_none() {
        PlannedElection planned = new PlannedElection("orders", 0, LEADER, new ExpectedState(7, List.of(1, 2, 3)),
                List.of(live(1, 120, 7), live(2, 100, 6), down(3)), "test",
                List.of(new PlanTruncation(1, 30L, 90L, 120L, TruncationEstimate.EXACT),
                        new PlanTruncation(3, null, null, null, TruncationEstimate.UNKNOWN)));

        DivergencePoint d = DivergencePoint.of(planned, elected(), 119, -1).orElseThrow();

        assertThat(d).isEqualTo(new DivergencePoint(90, DivergencePoint.Basis.REPLICA_CUT, 1));
    }

    @Test
    void no_point_without_the_new_leaders_log_end() {
        PlannedElection planned = election(live(1, 120, 7), down(2), down(3));

        assertThat(DivergencePoint.of(planned, elected(), 110, -1)).isEmpty();
    }

    private static PlannedElection election(PlanEvidence... evidence) {
        return new PlannedElection("orders", 0, LEADER, new ExpectedState(7, List.of(1, 2, 3)), List.of(evidence),
                "test", List.of());
    }

    private static PlanEvidence live(int broker, long logEnd, int lastEpoch) {
        return new PlanEvidence(broker, EvidenceSource.STOCK, EvidenceStatus.OK, logEnd, lastEpoch, 7, null, null, AT);
    }

    private static PlanEvidence down(int broker) {
        return new PlanEvidence(broker, EvidenceSource.STOCK, EvidenceStatus.UNREACHABLE, null, null, null, null,
                "broker down", AT);
    }

    private static ResultFile.Truncation cut(int broker, Long planned, Long measured, long logEnd) {
        return new ResultFile.Truncation(broker, planned, measured, logEnd);
    }

    private static ResultFile.Partition elected(ResultFile.Truncation... cuts) {
        return new ResultFile.Partition("orders", 0, LEADER, "ELECTED", null, null,
                new ResultFile.State(LEADER, 8, List.of(1, 2, 3), List.of(LEADER), List.of(), List.of()),
                cuts.length == 0 ? null : List.of(cuts), null, null);
    }
}
