// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.election;

import static dev.uncleanrecovery.election.OfflinePartition.ORDERS_3;
import static dev.uncleanrecovery.election.OfflinePartition.disk;
import static dev.uncleanrecovery.election.OfflinePartition.failed;
import static dev.uncleanrecovery.election.OfflinePartition.live;
import static dev.uncleanrecovery.election.OfflinePartition.orders3;
import static dev.uncleanrecovery.election.OfflinePartition.unreachable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.evidence.ReplicaEvidence;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LeaderChoiceTest {

    private static final ElectionOptions BALANCED = ElectionOptions.defaults();
    private static final ElectionOptions PROACTIVE = ElectionOptions.defaults().withStrategy(Strategy.PROACTIVE);

    private static Decision decide(TopicPartitionState partition, ElectionOptions options, ReplicaEvidence... evidence) {
        return LeaderChoice.decide(partition, List.of(evidence), Set.of(), options);
    }

    private static Decision.Elect elected(Decision decision) {
        assertThat(decision).isInstanceOf(Decision.Elect.class);
        return (Decision.Elect) decision;
    }

    private static Decision.Skip skipped(Decision decision, SkipCause cause) {
        assertThat(decision).isInstanceOf(Decision.Skip.class);
        Decision.Skip skip = (Decision.Skip) decision;
        assertThat(skip.cause()).isEqualTo(cause);
        return skip;
    }

    @Nested
    class Ranking {

        @Test
        void shorter_log_from_later_epoch_beats_longer_log_from_earlier_epoch() {
            // given: 1 wrote 5000 offsets up to epoch 5; 2 wrote fewer, but as leader of epoch 6
            TopicPartitionState partition = orders3().state();

            // when
            Decision decision = decide(partition, BALANCED, live(1, 5, 5000), live(2, 6, 1042), live(3, 4, 9000));

            // then: 1 and 3 would have to truncate to epoch 6's boundaries anyway
            Decision.Elect elect = elected(decision);
            assertThat(elect.designatedLeader()).isEqualTo(2);
            assertThat(elect.reason()).contains("; highest last written epoch (6), LEO 1042; beats 1 (epoch 5, LEO 5000)");
        }

        @Test
        void longest_log_wins_within_the_same_epoch() {
            // given
            TopicPartitionState partition = orders3().state();

            // when
            Decision decision = decide(partition, PROACTIVE, live(2, 6, 1042), live(3, 6, 1025), unreachable(1, "timed out"));

            // then
            Decision.Elect elect = elected(decision);
            assertThat(elect.designatedLeader()).isEqualTo(2);
            // The broker's error is in the evidence; every partition of a dead broker would repeat it in its reason.
            assertThat(elect.reason()).isEqualTo("electing 2 loses an unknown amount on 1; electing 3 would lose"
                    + " 17 records: 0 committed, 17 of unknown commitment, and an unknown amount on 1;"
                    + " highest last written epoch (6), then longest log (1042);"
                    + " beats 3 (epoch 6, LEO 1025) and 1 (unknown: its broker did not answer)");
            assertThat(elect.ranking()).extracting(RankedReplica::broker).containsExactly(2, 3, 1);
        }

        @Test
        void a_single_live_replica_is_elected_and_the_reason_says_it_was_the_only_one() {
            Decision decision = decide(orders3().state(), PROACTIVE, live(3, 6, 100), unreachable(1, "timed out"));

            Decision.Elect elect = elected(decision);
            assertThat(elect.designatedLeader()).isEqualTo(3);
            assertThat(elect.reason()).contains("; the only live replica that answered (epoch 6, LEO 100)");
        }

        @Test
        void tie_prefers_the_last_known_elr_member() {
            TopicPartitionState partition = orders3().elr(2).lastKnownElr(3).state();

            Decision decision = decide(partition, BALANCED, live(1, 6, 500), live(2, 6, 500), live(3, 6, 500));

            Decision.Elect elect = elected(decision);
            assertThat(elect.designatedLeader()).isEqualTo(3);
            assertThat(elect.reason()).contains("; same log as 2 (epoch 6, LEO 500), preferred because it is a LastKnownELR member");
        }

        @Test
        void tie_prefers_an_elr_member_over_assignment_order() {
            TopicPartitionState partition = orders3().elr(3).state();

            Decision decision = decide(partition, BALANCED, live(1, 6, 500), live(2, 6, 500), live(3, 6, 500));

            assertThat(elected(decision).designatedLeader()).isEqualTo(3);
            assertThat(decision.reason()).contains("preferred because it is an ELR member");
        }

        @Test
        void tie_follows_assignment_order_not_broker_id() {
            TopicPartitionState partition = orders3().replicas(3, 1, 2).state();

            Decision decision = decide(partition, BALANCED, live(1, 6, 500), live(2, 6, 500), live(3, 6, 500));

            assertThat(elected(decision).designatedLeader()).isEqualTo(3);
            assertThat(decision.reason()).contains("preferred because it comes first in the replica list");
        }

        @Test
        void a_live_answer_counts_over_older_disk_evidence_of_the_same_replica() {
            // given: 2's disk was read while it was down; it has since restarted and truncated its unflushed tail
            Decision decision = decide(orders3().state(), PROACTIVE, disk(2, 6, 2000), live(2, 6, 900), live(3, 6, 1000));

            // then: the live log is the one that would lead
            Decision.Elect elect = elected(decision);
            assertThat(elect.designatedLeader()).isEqualTo(3);
            assertThat(elect.ranking().get(1).evidence()).isEqualTo(live(2, 6, 900));
        }
    }

    @Nested
    class Candidates {

        @Test
        void partition_with_a_leader_is_left_alone() {
            Decision decision = decide(orders3().ledBy(2).state(), BALANCED, live(1, 6, 5000));

            assertThat(skipped(decision, SkipCause.HAS_LEADER).reason()).isEqualTo("has leader 2, nothing to do");
        }

        @Test
        void a_replica_known_only_from_disk_is_never_elected() {
            // given: broker 1 is down; 'inspect' read its log; only 3 answered live
            Decision decision = decide(orders3().state(), PROACTIVE, disk(1, 6, 1500), live(3, 6, 1000));

            // then: 3 leads, and the reason says what 1 loses
            Decision.Elect elect = elected(decision);
            assertThat(elect.designatedLeader()).isEqualTo(3);
            assertThat(elect.reason()).contains("1 (no live answer; from disk: epoch 6, LEO 1500) has a better log but cannot lead:"
                    + " it loses 500 records (1000..1500)");
        }

        @Test
        void fenced_broker_is_never_elected_even_with_the_best_log() {
            Decision decision = LeaderChoice.decide(orders3().state(), List.of(live(1, 7, 1), live(2, 6, 1000)),
                    Set.of(1), PROACTIVE);

            Decision.Elect elect = elected(decision);
            assertThat(elect.designatedLeader()).isEqualTo(2);
            assertThat(elect.reason()).contains("1 (fenced; epoch 7, LEO 1) has a better log but cannot lead");
        }

        @Test
        void balanced_waits_for_a_fenced_broker_that_answered_with_a_better_log() {
            // given: the tool reaches broker 1, the controller does not (fenced): 1 holds 500 records 2 lacks
            Decision decision = LeaderChoice.decide(orders3().state(), List.of(live(1, 6, 1500), live(2, 6, 1000)),
                    Set.of(1), BALANCED);

            // then: nothing is elected in its place; the skip says what electing 2 now would cost
            Decision.Skip skip = skipped(decision, SkipCause.WAITING_FOR_FENCED);
            assertThat(skip.reason()).startsWith("1 (fenced; epoch 6, LEO 1500) answered with a better log but cannot"
                    + " be elected while the controller fences it; electing 2 now, it loses 500 records (1000..1500), 0"
                    + " committed, 500 of unknown commitment, which waiting for it saves — the balanced strategy waits"
                    + " for it: restore its link to the controller");
        }

        @Test
        void a_fenced_broker_whose_metadata_lags_answers_with_its_log_and_is_waited_for() {
            // given: broker 1 is cut off from the controller: it still knows leader epoch 6, the controller 7
            ReplicaEvidence lagging = new ReplicaEvidence(ORDERS_3, 1, EvidenceSource.STOCK, EvidenceStatus.STALE,
                    1500, 6, 6, -1L, "broker 1 knows leader epoch 6 but the controller's metadata says 7",
                    OfflinePartition.PROBED_AT);
            TopicPartitionState state = orders3().state(); // leader epoch 7

            Decision balanced = LeaderChoice.decide(state, List.of(lagging, live(2, 6, 1000)), Set.of(1), BALANCED);
            Decision proactive = LeaderChoice.decide(state, List.of(lagging, live(2, 6, 1000)), Set.of(1), PROACTIVE);
            Decision unfenced = LeaderChoice.decide(state, List.of(lagging, live(2, 6, 1000)), Set.of(), PROACTIVE);

            assertThat(skipped(balanced, SkipCause.WAITING_FOR_FENCED).reason())
                    .contains("1 (fenced; epoch 6, LEO 1500) answered with a better log");
            assertThat(elected(proactive).reason()).contains("1 (fenced; epoch 6, LEO 1500) has a better log but"
                    + " cannot lead while fenced: it loses 500 records (1000..1500)");
            // an unfenced broker's stale answer is no answer: its log may be moving under the metadata
            assertThat(elected(unfenced).reason()).doesNotContain("LEO 1500");
        }

        @Test
        void balanced_does_not_wait_for_a_fenced_broker_known_only_from_disk_or_with_a_worse_log() {
            Decision fromDisk = LeaderChoice.decide(orders3().state(), List.of(disk(1, 6, 1500), live(2, 6, 1000)),
                    Set.of(1), BALANCED);
            Decision worse = LeaderChoice.decide(orders3().state(), List.of(live(1, 6, 900), live(2, 6, 1000)),
                    Set.of(1), BALANCED);

            assertThat(elected(fromDisk).designatedLeader()).isEqualTo(2);
            assertThat(elected(worse).designatedLeader()).isEqualTo(2);
        }

        @Test
        void excluded_broker_is_never_elected() {
            Decision decision = decide(orders3().state(), PROACTIVE.withExcludedBrokers(Set.of(2)),
                    live(1, 6, 100), live(2, 6, 1000), live(3, 6, 200));

            Decision.Elect elect = elected(decision);
            assertThat(elect.designatedLeader()).isEqualTo(3);
            assertThat(elect.ranking()).filteredOn(r -> r.broker() == 2).first()
                    .extracting(RankedReplica::candidacy).isEqualTo(Candidacy.EXCLUDED);
        }

        @Test
        void replica_listed_offline_in_metadata_is_never_elected() {
            // a broker that answers but whose log directory the controller saw go offline
            Decision decision = decide(orders3().offlineReplicas(2).state(), PROACTIVE, live(2, 6, 1000), live(3, 6, 10));

            assertThat(elected(decision).designatedLeader()).isEqualTo(3);
        }

        @Test
        void replicas_that_answered_with_an_error_or_a_stale_epoch_are_not_candidates() {
            Decision decision = decide(orders3().state(), PROACTIVE,
                    failed(1, EvidenceStatus.ERROR, "KAFKA_STORAGE_ERROR"), failed(2, EvidenceStatus.STALE, "epoch 6 != 7"),
                    live(3, 1, 1));

            assertThat(elected(decision).designatedLeader()).isEqualTo(3);
            assertThat(decision.reason()).contains("1 (ERROR: KAFKA_STORAGE_ERROR)").contains("2 (STALE: epoch 6 != 7)");
        }

        @Test
        void no_candidate_skip_lists_every_replica_state() {
            Decision decision = LeaderChoice.decide(orders3().state(),
                    List.of(disk(1, 6, 1500), unreachable(2, "connection refused")), Set.of(1),
                    PROACTIVE.withExcludedBrokers(Set.of(3)));

            assertThat(skipped(decision, SkipCause.NO_CANDIDATE).reason()).isEqualTo("no replica can lead:"
                    + " 1 (fenced; from disk: epoch 6, LEO 1500), 2 (unknown: its broker did not answer), 3 (excluded; not probed)"
                    + " — bring a broker back, or check --exclude-broker");
        }

        @Test
        void evidence_of_another_partition_is_a_programming_error() {
            ReplicaEvidence other = ReplicaEvidence.answered(new TopicPartition("orders", 4), 1,
                    dev.uncleanrecovery.evidence.EvidenceSource.STOCK, 1, 1, 1, -1, OfflinePartition.PROBED_AT);

            assertThatThrownBy(() -> decide(orders3().state(), PROACTIVE, other))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("orders-4");
        }

        @Test
        void evidence_of_a_broker_outside_the_replica_set_is_ignored() {
            // e.g. disk evidence from a broker the partition was reassigned away from
            Decision decision = decide(orders3().state(), PROACTIVE, live(9, 9, 9999), live(2, 6, 10));

            Decision.Elect elect = elected(decision);
            assertThat(elect.designatedLeader()).isEqualTo(2);
            assertThat(elect.ranking()).extracting(RankedReplica::broker).containsExactly(2, 1, 3);
        }
    }

    @Nested
    class FailedLogDirectory {

        private static final String STORAGE_ERROR =
                "broker 1 answered ListOffsets for orders-3 with KAFKA_STORAGE_ERROR";

        @Test
        void a_replica_on_a_failed_log_directory_is_never_designated_and_its_loss_is_unknown() {
            // given: broker 1 is up, its directory failed; it was the last ELR member
            TopicPartitionState partition = orders3().lastKnownElr(1).elr(1).offlineReplicas(1).state();

            // when
            Decision decision = decide(partition, PROACTIVE, failed(1, EvidenceStatus.LOG_DIR_OFFLINE, STORAGE_ERROR),
                    live(2, 6, 30), live(3, 6, 20));

            // then: the best of the others, with what it costs on 1 said as unknown
            Decision.Elect elect = elected(decision);
            assertThat(elect.designatedLeader()).isEqualTo(2);
            assertThat(elect.ranking()).filteredOn(r -> r.broker() == 1).extracting(RankedReplica::candidacy)
                    .containsExactly(Candidacy.LOG_DIR_OFFLINE);
            assertThat(elect.reason()).startsWith("electing 2 loses an unknown amount on 1;")
                    .contains("1 (log on a failed log directory of its live broker: 'inspect' on that directory, if it"
                            + " can be read, gives its log)");
        }

        @Test
        void its_log_read_off_the_directory_states_the_loss_but_does_not_make_it_a_candidate() {
            // given: 'inspect' read 45 offsets off the failed directory, more than any live replica holds
            TopicPartitionState partition = orders3().lastKnownElr(1).elr(1).offlineReplicas(1).state();

            // when
            Decision decision = decide(partition, BALANCED, failed(1, EvidenceStatus.LOG_DIR_OFFLINE, STORAGE_ERROR),
                    disk(1, 6, 45), live(2, 6, 30), live(3, 6, 20));

            // then: balanced has its log and goes ahead; the better log cannot lead (LeaderAcceptor refuses it)
            Decision.Elect elect = elected(decision);
            assertThat(elect.designatedLeader()).isEqualTo(2);
            assertThat(elect.truncations()).filteredOn(t -> t.broker() == 1)
                    .extracting(ExpectedTruncation::records).containsExactly(15L);
            assertThat(elect.reason()).contains("1 (its log directory failed; from disk: epoch 6, LEO 45) has a better"
                    + " log but cannot lead");
        }

        @Test
        void balanced_waits_for_the_log_of_an_elr_member_on_a_failed_directory() {
            // given
            TopicPartitionState partition = orders3().lastKnownElr(1).elr(1).offlineReplicas(1).state();

            // when
            Decision decision = decide(partition, BALANCED, failed(1, EvidenceStatus.LOG_DIR_OFFLINE, STORAGE_ERROR),
                    live(2, 6, 30), live(3, 6, 20));

            // then
            assertThat(skipped(decision, SkipCause.WAITING_FOR_ELR).reason()).startsWith("LastKnownELR member 1 has its"
                    + " log on a failed log directory of its live broker: 'inspect' on that directory, if it can be"
                    + " read, gives its log (pass it with --evidence)");
        }
    }

    @Nested
    class Strategies {

        /** With ELR, the last leader is a LastKnownELR member; without (3.x, 4.0), it stays in the leaderless ISR. */
        @ParameterizedTest
        @CsvSource({"LastKnownELR, true", "leaderless-ISR, false"})
        void balanced_waits_for_the_last_leader_that_did_not_answer(String role, boolean elrEnabled) {
            TopicPartitionState partition = elrEnabled ? orders3().lastKnownElr(1).state() : orders3().isr(1).state();

            Decision decision = decide(partition, BALANCED, unreachable(1, "timed out after 30000 ms"), live(2, 6, 1042));

            assertThat(skipped(decision, SkipCause.WAITING_FOR_ELR).reason())
                    .startsWith(role + " member 1 is unknown: its broker did not answer —")
                    .contains("--strategy proactive");
        }

        @Test
        void waiting_for_a_leaderless_isr_member_warns_that_restarting_it_elects_it() {
            // without ELR the controller elects the ISR member the moment it is unfenced, whatever the others hold
            Decision isr = decide(orders3().isr(1).state(), BALANCED, unreachable(1, "timed out"), live(2, 6, 1042));
            Decision lastKnown = decide(orders3().lastKnownElr(1).state(), BALANCED, unreachable(1, "timed out"),
                    live(2, 6, 1042));

            assertThat(skipped(isr, SkipCause.WAITING_FOR_ELR).reason())
                    .contains("--evidence from 'inspect' on its host (restarting it makes Kafka elect it at once")
                    .doesNotContain("bring it back");
            assertThat(skipped(lastKnown, SkipCause.WAITING_FOR_ELR).reason()).contains("bring it back")
                    .doesNotContain("elect it at once");
        }

        @Test
        void balanced_names_a_last_known_elr_member_that_was_not_probed() {
            Decision decision = decide(orders3().lastKnownElr(3).state(), BALANCED, live(2, 6, 1042));

            assertThat(skipped(decision, SkipCause.WAITING_FOR_ELR).reason())
                    .startsWith("LastKnownELR member 3 did not answer (not probed)");
        }

        @Test
        void balanced_waits_for_a_fenced_elr_member_too() {
            // KIP-966: with fenced ELR members, only Proactive elects uncleanly
            Decision decision = LeaderChoice.decide(orders3().elr(1).state(), List.of(live(2, 6, 1042)), Set.of(1), BALANCED);

            assertThat(skipped(decision, SkipCause.WAITING_FOR_ELR).reason()).startsWith("ELR member 1 did not answer (not probed)");
        }

        @Test
        void balanced_elects_once_the_leaderless_isr_member_is_known_from_disk() {
            Decision decision = decide(orders3().isr(1).state(), BALANCED, disk(1, 6, 1042), live(2, 6, 1042));

            assertThat(elected(decision).designatedLeader()).isEqualTo(2);
        }

        @Test
        void balanced_counts_a_last_known_elr_log_read_from_disk_as_an_answer() {
            // given: 1 is down, but 'inspect' read its log: we know what electing 2 costs it
            TopicPartitionState partition = orders3().lastKnownElr(1).state();

            Decision decision = decide(partition, BALANCED, disk(1, 6, 1100), live(2, 6, 1042), live(3, 6, 1025));

            Decision.Elect elect = elected(decision);
            assertThat(elect.designatedLeader()).isEqualTo(2);
            assertThat(elect.reason()).contains("1 (no live answer; from disk: epoch 6, LEO 1100) has a better log but cannot lead:"
                    + " it loses 58 records (1042..1100)");
        }

        @Test
        void proactive_elects_from_whoever_answered() {
            TopicPartitionState partition = orders3().lastKnownElr(1).state();

            Decision decision = decide(partition, PROACTIVE, unreachable(1, "timed out"), live(2, 6, 1042));

            assertThat(elected(decision).designatedLeader()).isEqualTo(2);
        }
    }

    @Nested
    class Truncation {

        @Test
        void replica_of_the_same_epoch_truncates_exactly_to_the_leaders_log_end() {
            // when
            Decision decision = decide(orders3().state(), PROACTIVE, live(1, 6, 1059), live(2, 6, 1042), live(3, 6, 1025));

            // then: 1 has the longest log of the epoch; 2 and 3 are prefixes of it and lose nothing
            Decision.Elect elect = elected(decision);
            assertThat(elect.designatedLeader()).isEqualTo(1);
            assertThat(elect.truncations()).containsExactly(
                    new ExpectedTruncation(2, 0, 1042, 1042, TruncationEstimate.EXACT),
                    new ExpectedTruncation(3, 0, 1025, 1025, TruncationEstimate.EXACT));
            assertThat(elect.totalTruncatedRecords()).isZero();
            assertThat(elect.totalIsLowerBound()).isFalse();
        }

        @Test
        void excluded_replica_of_the_same_epoch_loses_its_longer_tail_exactly() {
            Decision decision = decide(orders3().state(), PROACTIVE.withExcludedBrokers(Set.of(3)),
                    live(2, 6, 1042), live(3, 6, 1059));

            Decision.Elect elect = elected(decision);
            assertThat(elect.truncations()).containsExactly(
                    ExpectedTruncation.unknown(1),
                    new ExpectedTruncation(3, 17, 1042, 1059, TruncationEstimate.EXACT));
        }

        @Test
        void replica_of_an_earlier_epoch_loses_at_least_its_tail_beyond_the_leaders_log_end() {
            // the leader's epoch 6 may have started below 1042, so 1 may lose more than 5000 - 1042
            Decision decision = decide(orders3().state(), PROACTIVE, live(1, 5, 5000), live(2, 6, 1042), live(3, 4, 10));

            Decision.Elect elect = elected(decision);
            assertThat(elect.truncations()).containsExactly(
                    new ExpectedTruncation(1, 3958, 1042, 5000, TruncationEstimate.AT_LEAST),
                    new ExpectedTruncation(3, 0, 10, 10, TruncationEstimate.AT_LEAST));
            assertThat(elect.totalTruncatedRecords()).isEqualTo(3958);
            assertThat(elect.totalIsLowerBound()).isTrue();
        }

        @Test
        void where_the_brokers_said_where_a_replica_truncates_its_loss_is_exact_and_counts_against_the_limit() {
            // the leader's epoch 6 started at 900: replica 1's epoch 5 ends there, so it loses 5000 - 900
            List<ReplicaEvidence> evidence = List.of(live(1, 5, 5000), live(2, 6, 1042), live(3, 4, 10));
            Decision decision = LeaderChoice.decide(orders3().state(), evidence, Set.of(), PROACTIVE, KnownCuts.under(2, Map.of(1, 900L)));

            Decision.Elect elect = elected(decision);
            assertThat(elect.truncations()).containsExactly(
                    new ExpectedTruncation(1, 4100, 900, 5000, TruncationEstimate.EXACT, 0, 4100),
                    new ExpectedTruncation(3, 0, 10, 10, TruncationEstimate.AT_LEAST));
            assertThat(LeaderChoice.decide(orders3().state(), evidence, Set.of(),
                    PROACTIVE.withMaxTruncatedRecords(4000), KnownCuts.under(2, Map.of(1, 900L)))).isInstanceOf(Decision.Skip.class);
        }

        @Test
        void the_committed_part_of_a_loss_is_what_lies_below_a_high_watermark_of_the_same_log() {
            // 1 and 3 both hold epoch 5 (copies of its leader up to the shorter end): 3's high watermark 3000 vouches
            // for 1's offsets below it too; the new leader 2's log differs from 900 on, its high watermark says nothing
            List<ReplicaEvidence> evidence = List.of(live(1, 5, 5000).withHighWatermark(950),
                    live(2, 6, 1042).withHighWatermark(1042), live(3, 5, 4000).withHighWatermark(3000));

            Decision.Elect elect = elected(LeaderChoice.decide(orders3().state(), evidence, Set.of(), PROACTIVE,
                    KnownCuts.under(2, Map.of(1, 900L, 3, 900L))));

            assertThat(elect.truncations()).containsExactly(
                    new ExpectedTruncation(1, 4100, 900, 5000, TruncationEstimate.EXACT, 2100),
                    new ExpectedTruncation(3, 3100, 900, 4000, TruncationEstimate.EXACT, 2100));
            // committed records past the divergence: epoch 6 came from an unclean election, so nothing is inferred
            assertThat(elect.truncations().get(0).describe())
                    .isEqualTo("loses 4100 records (900..5000), 2100 committed, 2000 of unknown commitment");
            assertThat(LeaderChoice.decide(orders3().state(), evidence, Set.of(),
                    PROACTIVE.withMaxCommittedLoss(4000).withUnknownTruncationAllowed(true),
                    KnownCuts.under(2, Map.of(1, 900L, 3, 900L)))).isInstanceOf(Decision.Skip.class)
                    .extracting(d -> ((Decision.Skip) d).reason()).asString()
                    .startsWith("electing 2 would destroy 4200 committed records, more than --max-committed-loss 4000");
        }

        @Test
        void a_loss_whose_high_watermark_is_unknown_counts_as_over_the_committed_limit() {
            // fenced 1 holds more of epoch 6 than the leader, and no high watermark says whether it was committed
            List<ReplicaEvidence> evidence = List.of(live(1, 6, 5000), live(2, 6, 1042), live(3, 6, 1042));

            Decision decision = LeaderChoice.decide(orders3().state(), evidence, Set.of(1),
                    PROACTIVE.withMaxCommittedLoss(1_000_000));

            assertThat(decision).isInstanceOf(Decision.Skip.class);
            assertThat(((Decision.Skip) decision).reason()).contains("records of unknown commitment on 1");
            assertThat(LeaderChoice.decide(orders3().state(), evidence, Set.of(1),
                    PROACTIVE.withMaxCommittedLoss(1_000_000).withUnknownTruncationAllowed(true)))
                    .isInstanceOf(Decision.Elect.class);
        }

        @Test
        void records_past_where_their_epoch_ends_on_a_later_leader_were_never_committed() {
            // 1's epoch 5 ends at 900 on leader 2 (epoch 6): a leader elected from the ISR holds every committed record
            List<ReplicaEvidence> evidence = List.of(live(1, 5, 5000), live(2, 6, 1042), live(3, 6, 1042));

            Decision.Elect elect = elected(LeaderChoice.decide(orders3().state(), evidence, Set.of(),
                    PROACTIVE.withMaxCommittedLoss(0), KnownCuts.under(2, Map.of(1, 900L))));

            assertThat(elect.truncations().get(0)).isEqualTo(
                    new ExpectedTruncation(1, 4100, 900, 5000, TruncationEstimate.EXACT, 0, 4100));
            assertThat(elect.reason()).startsWith("electing 2 loses 0 committed and 4100 never committed records;");
        }

        @Test
        void replica_that_did_not_answer_has_unknown_truncation() {
            Decision decision = decide(orders3().state(), PROACTIVE, live(2, 6, 1042), unreachable(1, "timed out"));

            Decision.Elect elect = elected(decision);
            assertThat(elect.truncations()).containsExactly(ExpectedTruncation.unknown(1), ExpectedTruncation.unknown(3));
            assertThat(elect.totalIsLowerBound()).isTrue();
        }

        @Test
        void choice_over_the_truncation_limit_is_skipped() {
            Decision decision = decide(orders3().state(), PROACTIVE.withMaxTruncatedRecords(16).withExcludedBrokers(Set.of(3)),
                    live(1, 6, 1000), live(2, 6, 1042), live(3, 6, 1059));

            assertThat(skipped(decision, SkipCause.OVER_TRUNCATION_LIMIT).reason())
                    .startsWith("electing 2 would truncate 17 records (3 loses 17 records (1042..1059), 0 committed, 17 of"
                            + " unknown commitment),"
                            + " more than --max-truncated-records 16; ");
        }

        @Test
        void an_unknown_truncation_counts_as_over_any_limit() {
            // given: 1 did not answer: electing 2 may cut any amount of 1's log
            Decision decision = decide(orders3().state(), PROACTIVE.withMaxTruncatedRecords(1000),
                    live(2, 6, 1042), live(3, 6, 1042), unreachable(1, "did not answer ListOffsets within 3 s"));

            assertThat(skipped(decision, SkipCause.OVER_TRUNCATION_LIMIT).reason())
                    .startsWith("electing 2 would truncate an unknown number of records on"
                            + " 1 (unknown: its broker did not answer): an unknown loss counts as over"
                            + " --max-truncated-records 1000 (pass --allow-unknown-truncation");
        }

        @Test
        void an_unknown_truncation_passes_the_limit_only_when_allowed() {
            // given: 1 did not answer; 2 and 3 hold the same log, so electing 2 cuts nothing that is known
            ReplicaEvidence[] answers = {live(2, 6, 1042), live(3, 6, 1042), unreachable(1, "timed out")};
            ElectionOptions limit = PROACTIVE.withMaxTruncatedRecords(0);

            Decision notAllowed = decide(orders3().state(), limit, answers);
            Decision allowed = decide(orders3().state(), limit.withUnknownTruncationAllowed(true), answers);

            skipped(notAllowed, SkipCause.OVER_TRUNCATION_LIMIT);
            assertThat(elected(allowed).totalIsLowerBound()).isTrue();
        }

        @Test
        void choice_at_exactly_the_truncation_limit_is_elected() {
            Decision decision = decide(orders3().state(), PROACTIVE.withMaxTruncatedRecords(17).withExcludedBrokers(Set.of(3)),
                    live(1, 6, 1000), live(2, 6, 1042), live(3, 6, 1059));

            assertThat(elected(decision).totalTruncatedRecords()).isEqualTo(17);
        }
    }
}
