// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.view;

import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.election.ElectionOptions;
import dev.uncleanrecovery.election.KnownCuts;
import dev.uncleanrecovery.election.LeaderChoice;
import dev.uncleanrecovery.election.Strategy;
import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.evidence.ReplicaEvidence;
import dev.uncleanrecovery.formats.Plan;
import dev.uncleanrecovery.formats.PlanBuilder;
import dev.uncleanrecovery.formats.PlanConsumerGroup;
import dev.uncleanrecovery.formats.PlanFile;
import dev.uncleanrecovery.formats.PlanUnansweredBroker;
import dev.uncleanrecovery.formats.ResultFile;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

/** Plans the page is tested with: the README's example, and plans the policy decides from evidence, as 'plan' does. */
public final class PagePlans {

    static final Instant AT = Instant.parse("2026-12-04T03:12:00Z");
    /** A consumer group name is the user's: anything, markup included. */
    static final String HOSTILE_GROUP = "<img src=x onerror=alert(1)>&\"billing\"";
    private static final String DOWN = "broker 1 (10.0.0.1:9092) did not answer within 30 s: connection refused";

    private PagePlans() {
    }

    public static Plan example() throws IOException {
        return PlanFile.read(Path.of("examples", "plan.json"));
    }

    /**
     * Groups of every kind: four alike partitions of 'orders' (one section, one consumer group that read all four,
     * their last leader fenced and unanswered), a partition where the longer log is of an older epoch (its suffix never committed), one whose choice cuts committed records that two consumer groups
     * had read, and one skipped (no replica answered).
     */
    public static Plan severalGroups() {
        PlanBuilder plan = new PlanBuilder(AT, "GlDPZ_7eTkKnqAzMze75aQ", "kafka-unclean-recovery test", Strategy.PROACTIVE);
        for (int partition = 0; partition < 4; partition++) {
            TopicPartition tp = new TopicPartition("orders", partition);
            // broker 1 led them when it failed: KIP-966 keeps it as the only LastKnownELR member
            elect(plan, state("orders", partition, 4, List.of(1, 3, 2), List.of(1)), List.of(
                    ReplicaEvidence.failed(tp, 1, EvidenceSource.STOCK, EvidenceStatus.UNREACHABLE, DOWN, AT),
                    answered(tp, 3, 2_000, 3, 1_500),
                    answered(tp, 2, 4_000, 3, 1_500)), KnownCuts.NONE);
            // one group had read them all past what 2 holds: it read from broker 1
            plan.consumerGroupsAhead(tp, List.of(PlanConsumerGroup.of("billing", 4_100, 4_000)));
        }
        // broker 2 led epoch 6 from offset 700 on; broker 3 kept writing epoch 5 past it, never committed
        TopicPartition payments = new TopicPartition("payments", 0);
        elect(plan, state("payments", 0, 6, List.of(2, 3, 4)), List.of(
                answered(payments, 2, 900, 6, 850),
                answered(payments, 3, 1_000, 5, 690),
                answered(payments, 4, 880, 6, 850)), KnownCuts.under(2, Map.of(3, 700L, 4, 880L)));
        // the longer log is of the older epoch and its high watermark proves records past the new end committed
        TopicPartition audit = new TopicPartition("audit.log", 2);
        elect(plan, state("audit.log", 2, 9, List.of(5, 6)), List.of(
                answered(audit, 5, 3_000, 9, 2_400),
                answered(audit, 6, 3_600, 8, 3_300)), KnownCuts.under(5, Map.of(6, 2_600L)));
        plan.consumerGroupsAhead(audit, List.of(PlanConsumerGroup.of("fraud-detector", 3_250, 3_000),
                PlanConsumerGroup.of(HOSTILE_GROUP, 3_100, 3_000)));
        TopicPartition lost = new TopicPartition("metrics", 7);
        TopicPartitionState lostState = state("metrics", 7, 2, List.of(1, 7));
        List<ReplicaEvidence> none = List.of(
                ReplicaEvidence.failed(lost, 1, EvidenceSource.STOCK, EvidenceStatus.UNREACHABLE, DOWN, AT),
                ReplicaEvidence.failed(lost, 7, EvidenceSource.STOCK, EvidenceStatus.UNREACHABLE, "broker 7 timed out", AT));
        plan.add(lostState, none, LeaderChoice.decide(lostState, none, Set.of(), ElectionOptions.defaults()
                .withStrategy(Strategy.PROACTIVE)));
        plan.unansweredBrokers(List.of(new PlanUnansweredBroker(1, "10.0.0.1:9092", 5, 5, DOWN, true)));
        plan.note("consumer group offsets of 'audit.log' were read at " + AT);
        return plan.bootstrapServer("10.0.0.2:9092").build();
    }

    /**
     * {@code partitions} partitions of one topic in {@code kinds} kinds of evidence (partition i of kind i % kinds):
     * the page has one section per kind.
     */
    public static Plan large(int partitions, int kinds) {
        // broker 1 (down) is not among these replicas: all answer
        PlanBuilder plan = new PlanBuilder(AT, "GlDPZ_7eTkKnqAzMze75aQ", "kafka-unclean-recovery test", Strategy.PROACTIVE);
        for (int partition = 0; partition < partitions; partition++) {
            TopicPartition tp = new TopicPartition("bench", partition);
            long kind = partition % kinds;
            elect(plan, state("bench", partition, 1, List.of(4, 2, 3)), List.of(
                    answered(tp, 4, 1_000 + kind, 1, 900),
                    answered(tp, 2, 800, 1, 700),
                    answered(tp, 3, 1_200 + 10 * kind, 0, 600)), KnownCuts.under(4, Map.of(3, 1_000L)));
        }
        return plan.build();
    }

    /** What a real execute of {@link #severalGroups} could have written: all elected but one refused. */
    public static ResultFile resultOf(Plan plan) {
        List<ResultFile.Partition> partitions = new ArrayList<>();
        for (var p : plan.partitions()) {
            boolean refused = p.topic().equals("payments");
            List<ResultFile.Truncation> truncations = refused ? null : p.expectedTruncation().stream()
                    .filter(t -> t.fromOffset() != null)
                    .map(t -> new ResultFile.Truncation(t.broker(), t.fromOffset(), t.fromOffset(), t.toOffset())).toList();
            List<ResultFile.Salvaged> salvaged = refused ? null : p.expectedTruncation().stream()
                    .filter(t -> t.records() != null && t.records() > 0)
                    .map(t -> new ResultFile.Salvaged(t.broker(), t.fromOffset(), t.toOffset(), t.records(), 3, 4096,
                            List.of("FETCH_DEBUG_REPLICA"), p.topicPartition() + "/" + t.broker() + "/00000000000000000000.log",
                            p.topicPartition() + "/" + t.broker() + "/manifest.json", "00")).toList();
            partitions.add(new ResultFile.Partition(p.topic(), p.partition(), p.designatedLeader(),
                    refused ? "REFUSED" : "ELECTED", refused ? "leader epoch is 7, the plan says 6: plan again"
                            : "broker " + p.designatedLeader() + " leads, epoch " + (p.expected().leaderEpoch() + 1),
                    null, null, truncations, salvaged, null));
        }
        long elected = partitions.stream().filter(p -> p.outcome().equals("ELECTED")).count();
        return new ResultFile(ResultFile.VERSION, plan.clusterId(), "plan-20261204-031200.json", "kafka-unclean-recovery test",
                AT.plusSeconds(600), 4_200, "native ElectLeaders v3 (DesignatedLeaders)",
                new ResultFile.Summary(elected, 0, partitions.size() - elected, 0, 0, 0L), partitions,
                List.of("Unclean elections happened: check for hanging transactions"), List.of(),
                "plan-20261204-031200-salvage", null, 800L);
    }

    /** How often {@code part} occurs in {@code text}: the drawings, rows and sections of a page. */
    static int occurrences(String text, String part) {
        int n = 0;
        for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
            n++;
        }
        return n;
    }

    private static void elect(PlanBuilder plan, TopicPartitionState state, List<ReplicaEvidence> evidence, KnownCuts cuts) {
        plan.add(state, evidence, LeaderChoice.decide(state, evidence, Set.of(), ElectionOptions.defaults()
                .withStrategy(Strategy.PROACTIVE), cuts));
    }

    /** An offline partition whose brokers are all up but broker 1 and 7 (down in these plans), with ELR on. */
    private static TopicPartitionState state(String topic, int partition, int leaderEpoch, List<Integer> replicas) {
        return state(topic, partition, leaderEpoch, replicas, List.of());
    }

    private static TopicPartitionState state(String topic, int partition, int leaderEpoch, List<Integer> replicas,
                                             List<Integer> lastKnownElr) {
        return new TopicPartitionState(topic, new Uuid(42, topic.hashCode()), partition, TopicPartitionState.NO_LEADER,
                leaderEpoch, replicas, List.of(), List.of(), lastKnownElr,
                replicas.stream().filter(b -> b == 1 || b == 7).toList());
    }

    private static ReplicaEvidence answered(TopicPartition tp, int broker, long logEnd, int epoch, long highWatermark) {
        return ReplicaEvidence.answered(tp, broker, EvidenceSource.STOCK, logEnd, epoch, epoch, -1, AT)
                .withHighWatermark(highWatermark);
    }
}
