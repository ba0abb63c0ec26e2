// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.election;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.evidence.ReplicaEvidence;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

/**
 * The policy's invariants over thousands of generated offline partitions. Seeded: a failure prints the seed and
 * the case, and replays. Epochs and offsets come from small ranges so that ties are common.
 */
class LeaderChoicePropertiesTest {

    private static final long SEED = 0x5eed_966L;
    private static final int CASES = 5_000;
    private static final TopicPartition TP = new TopicPartition("orders", 3);
    private static final Instant T0 = Instant.parse("2026-11-29T03:00:00Z");

    /** One generated situation: the inputs of {@link LeaderChoice#decide}. */
    private record Case(TopicPartitionState partition, List<ReplicaEvidence> evidence, Set<Integer> fenced,
                        ElectionOptions options) {
        Decision decide() {
            return LeaderChoice.decide(partition, evidence, fenced, options);
        }

        Decision decideWith(ElectionOptions other) {
            return LeaderChoice.decide(partition, evidence, fenced, other);
        }
    }

    @Test
    void the_chosen_replica_is_a_live_unfenced_not_excluded_replica_that_answered() {
        forEachCase(c -> {
            if (c.decide() instanceof Decision.Elect elect) {
                int leader = elect.designatedLeader();
                assertThat(c.partition().replicas()).contains(leader);
                assertThat(c.fenced()).doesNotContain(leader);
                assertThat(c.options().excludedBrokers()).doesNotContain(leader);
                assertThat(c.partition().offlineReplicas()).doesNotContain(leader);
                assertThat(c.evidence()).anyMatch(e -> e.broker() == leader && e.isAnswered() && e.source() != EvidenceSource.DISK);
            }
        });
    }

    @Test
    void the_chosen_replica_is_never_behind_another_candidate_in_epoch_then_log_end_offset() {
        forEachCase(c -> {
            if (c.decide() instanceof Decision.Elect elect) {
                RankedReplica leader = elect.ranking().stream()
                        .filter(r -> r.broker() == elect.designatedLeader()).findFirst().orElseThrow();
                for (RankedReplica other : elect.ranking()) {
                    if (other.isCandidate()) {
                        assertThat(compareLogs(leader.evidence(), other.evidence())).isGreaterThanOrEqualTo(0);
                    }
                }
            }
        });
    }

    @Test
    void the_decision_does_not_depend_on_the_order_of_the_evidence() {
        Random shuffler = new Random(SEED + 1);
        forEachCase(c -> {
            List<ReplicaEvidence> shuffled = new ArrayList<>(c.evidence());
            Collections.shuffle(shuffled, shuffler);
            assertThat(LeaderChoice.decide(c.partition(), shuffled, c.fenced(), c.options())).isEqualTo(c.decide());
        });
    }

    @Test
    void balanced_never_decides_while_an_elr_or_last_known_elr_member_has_not_answered() {
        forEachCase(c -> {
            Decision balanced = c.decideWith(c.options().withStrategy(Strategy.BALANCED));
            Set<Integer> members = new HashSet<>(c.partition().lastKnownElr());
            members.addAll(c.partition().eligibleLeaderReplicas());
            members.addAll(c.partition().isr());
            boolean someoneMissing = members.stream()
                    .anyMatch(m -> c.evidence().stream().noneMatch(e -> e.broker() == m && e.isAnswered()));
            if (someoneMissing) {
                assertThat(balanced).isInstanceOf(Decision.Skip.class);
            }
        });
    }

    @Test
    void both_strategies_elect_the_same_replica_when_both_decide() {
        forEachCase(c -> {
            Decision balanced = c.decideWith(c.options().withStrategy(Strategy.BALANCED));
            Decision proactive = c.decideWith(c.options().withStrategy(Strategy.PROACTIVE));
            if (balanced instanceof Decision.Elect b) {
                assertThat(proactive).isEqualTo(b);
            }
        });
    }

    @Test
    void proactive_elects_whenever_an_offline_partition_has_a_candidate_and_no_limit_applies() {
        forEachCase(c -> {
            ElectionOptions proactive = new ElectionOptions(Strategy.PROACTIVE, c.options().excludedBrokers(), OptionalLong.empty());
            Decision decision = c.decideWith(proactive);
            boolean hasCandidate = c.partition().replicas().stream().anyMatch(b -> !c.fenced().contains(b)
                    && !proactive.excludedBrokers().contains(b) && !c.partition().offlineReplicas().contains(b)
                    && c.evidence().stream().anyMatch(e -> e.broker() == b && e.isAnswered() && e.source() != EvidenceSource.DISK));
            assertThat(decision instanceof Decision.Elect).isEqualTo(c.partition().isOffline() && hasCandidate);
        });
    }

    @Test
    void truncation_totals_are_consistent_with_max_truncated_records() {
        forEachCase(c -> {
            Decision unlimited = c.decideWith(new ElectionOptions(c.options().strategy(), c.options().excludedBrokers(),
                    OptionalLong.empty()));
            Decision limited = c.decide();
            if (c.options().maxTruncatedRecords().isEmpty()) {
                assertThat(limited).isEqualTo(unlimited);
                return;
            }
            long max = c.options().maxTruncatedRecords().getAsLong();
            if (limited instanceof Decision.Elect elect) {
                assertThat(elect.totalTruncatedRecords()).isLessThanOrEqualTo(max);
                assertThat(elect).isEqualTo(unlimited);
                assertThat(elect.truncations()).allMatch(ExpectedTruncation::isKnown);
            } else if (((Decision.Skip) limited).cause() == SkipCause.OVER_TRUNCATION_LIMIT) {
                assertThat(unlimited).isInstanceOf(Decision.Elect.class);
                Decision.Elect over = (Decision.Elect) unlimited;
                assertThat(over.totalTruncatedRecords() > max || over.truncations().stream().anyMatch(t -> !t.isKnown()))
                        .as("over the limit, or some truncation unknown").isTrue();
            } else {
                assertThat(limited).isEqualTo(unlimited);
            }
        });
    }

    @Test
    void every_other_replica_gets_exactly_one_honest_truncation_estimate() {
        forEachCase(c -> {
            if (!(c.decide() instanceof Decision.Elect elect)) {
                return;
            }
            ReplicaEvidence leader = elect.ranking().stream().filter(r -> r.broker() == elect.designatedLeader())
                    .findFirst().orElseThrow().evidence();
            assertThat(elect.truncations()).extracting(ExpectedTruncation::broker)
                    .containsExactlyElementsOf(c.partition().replicas().stream().filter(b -> b != elect.designatedLeader()).toList());
            for (ExpectedTruncation t : elect.truncations()) {
                RankedReplica replica = elect.ranking().stream().filter(r -> r.broker() == t.broker()).findFirst().orElseThrow();
                if (!replica.hasKnownLog()) {
                    assertThat(t.estimate()).isEqualTo(TruncationEstimate.UNKNOWN);
                    continue;
                }
                ReplicaEvidence follower = replica.evidence();
                // a replica never keeps offsets past the new leader's log end, whatever its epoch
                assertThat(t.records()).isEqualTo(Math.max(0, follower.logEndOffset() - leader.logEndOffset()));
                assertThat(t.toOffset() - t.fromOffset()).isEqualTo(t.records());
                assertThat(t.estimate()).isEqualTo(follower.lastWrittenLeaderEpoch() == leader.lastWrittenLeaderEpoch()
                        ? TruncationEstimate.EXACT : TruncationEstimate.AT_LEAST);
            }
        });
    }

    private static int compareLogs(ReplicaEvidence a, ReplicaEvidence b) {
        int byEpoch = Integer.compare(a.lastWrittenLeaderEpoch(), b.lastWrittenLeaderEpoch());
        return byEpoch != 0 ? byEpoch : Long.compare(a.logEndOffset(), b.logEndOffset());
    }

    private static void forEachCase(Consumer<Case> property) {
        Random random = new Random(SEED);
        for (int i = 0; i < CASES; i++) {
            Case c = generate(random);
            try {
                property.accept(c);
            } catch (AssertionError e) {
                throw new AssertionError("case " + i + " (seed " + SEED + "): " + c + "\n" + e.getMessage(), e);
            }
        }
    }

    private static Case generate(Random random) {
        List<Integer> brokers = new ArrayList<>(List.of(1, 2, 3, 4, 5, 6));
        Collections.shuffle(brokers, random);
        List<Integer> replicas = List.copyOf(brokers.subList(0, 1 + random.nextInt(5)));
        int leader = random.nextInt(10) == 0 ? replicas.get(0) : TopicPartitionState.NO_LEADER;
        TopicPartitionState partition = new TopicPartitionState(TP.topic(), new Uuid(1, 2), TP.partition(), leader, 7,
                replicas, List.of(), someOf(replicas, random, 5), someOf(replicas, random, 3), someOf(replicas, random, 6));

        List<ReplicaEvidence> evidence = new ArrayList<>();
        for (int broker : replicas) {
            switch (random.nextInt(6)) {
                case 0 -> { } // not probed
                case 1 -> evidence.add(ReplicaEvidence.failed(TP, broker, EvidenceSource.STOCK,
                        EvidenceStatus.values()[1 + random.nextInt(3)], "no luck", T0));
                case 2 -> evidence.add(answered(TP, broker, EvidenceSource.DISK, random));
                case 3 -> {
                    evidence.add(ReplicaEvidence.failed(TP, broker, EvidenceSource.NATIVE, EvidenceStatus.UNREACHABLE, "down", T0));
                    evidence.add(answered(TP, broker, EvidenceSource.DISK, random));
                }
                case 4 -> {
                    evidence.add(answered(TP, broker, EvidenceSource.DISK, random));
                    evidence.add(answered(TP, broker, EvidenceSource.NATIVE, random));
                }
                default -> evidence.add(answered(TP, broker, EvidenceSource.STOCK, random));
            }
        }
        Set<Integer> fenced = Set.copyOf(someOf(List.of(1, 2, 3, 4, 5, 6), random, 5));
        Set<Integer> excluded = random.nextInt(4) == 0 ? Set.of(1 + random.nextInt(6)) : Set.of();
        OptionalLong max = random.nextBoolean() ? OptionalLong.of(random.nextInt(40)) : OptionalLong.empty();
        Strategy strategy = random.nextBoolean() ? Strategy.BALANCED : Strategy.PROACTIVE;
        return new Case(partition, evidence, fenced, new ElectionOptions(strategy, excluded, max));
    }

    private static ReplicaEvidence answered(TopicPartition tp, int broker, EvidenceSource source, Random random) {
        return ReplicaEvidence.answered(tp, broker, source, random.nextInt(30), random.nextInt(4) - 1, 7, -1,
                T0.minusSeconds(source == EvidenceSource.DISK ? 600 : 0));
    }

    /** Each element with probability 1/oneIn. */
    private static List<Integer> someOf(List<Integer> from, Random random, int oneIn) {
        return from.stream().filter(b -> random.nextInt(oneIn) == 0).toList();
    }
}
