// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.cluster.ClusterSnapshot;
import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.connect.BrokerState;
import dev.uncleanrecovery.election.Strategy;
import dev.uncleanrecovery.election.TruncationEstimate;
import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.evidence.ReplicaEvidence;
import dev.uncleanrecovery.formats.ExpectedState;
import dev.uncleanrecovery.formats.Plan;
import dev.uncleanrecovery.formats.PlanAlternative;
import dev.uncleanrecovery.formats.PlanEvidence;
import dev.uncleanrecovery.formats.PlanTruncation;
import dev.uncleanrecovery.formats.PlannedElection;
import dev.uncleanrecovery.formats.ResultFile;
import dev.uncleanrecovery.salvage.DoomedRange;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

/**
 * Which ranges {@code execute} copies before the first change to the cluster, and what it does with the partitions
 * whose copy fails or cannot be made whole. The copy itself is exercised on real brokers (SalvageClusterTest); here
 * a recording {@link Salvage} plays it, as the fakes of {@link PlanExecutionTest} play the cluster.
 */
class SalvageBeforeElectingTest {

    private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);
    private static final TopicPartition ORDERS_1 = new TopicPartition("orders", 1);
    private static final Uuid ORDERS_ID = Uuid.fromString("m0uMP1nXQ4mAkRTb3e6u1Q");
    private static final int EPOCH = 4;

    private final List<String> steps = new CopyOnWriteArrayList<>();
    private final RecordingSalvage salvage = new RecordingSalvage(steps::add);
    private final List<DoomedRange> asked = salvage.asked;
    private final Set<TopicPartition> failing = salvage.failing;
    /** Ranges a stopped broker's disk already gave (inspect --salvage-beyond). */
    private final Set<DoomedRange> onDisk = salvage.onDisk;
    /** Why the copies found by name in the directory are not of the plan's log. */
    private final List<String> notUsed = salvage.notUsed;

    private final ElectingElector elector = new ElectingElector(steps::add);
    private final List<ElectionTarget> elected = elector.elected;

    private static TopicPartitionState offline(TopicPartition tp) {
        return new TopicPartitionState(tp.topic(), ORDERS_ID, tp.partition(), TopicPartitionState.NO_LEADER, EPOCH,
                List.of(2, 3, 1), List.of(1), List.of(), List.of(1), List.of(1));
    }

    private static ClusterSnapshot cluster(TopicPartitionState... partitions) {
        return new ClusterSnapshot("cluster", 1000, List.of(new BrokerState(1, "h", 1, null, true),
                new BrokerState(2, "h", 2, null, false), new BrokerState(3, "h", 3, null, false)), (short) 1,
                List.of(partitions), Map.of(), Set.of());
    }

    private static PlanEvidence answered(int broker, long logEnd, int epoch) {
        return new PlanEvidence(broker, EvidenceSource.NATIVE, EvidenceStatus.OK, logEnd, epoch, EPOCH, 7L, null,
                Instant.EPOCH);
    }

    /** 2 (epoch 3, LEO 15) designated; 3 holds 30 of epoch 0 and loses [10, 30) as {@code onThree} says. */
    private static PlannedElection planned(TopicPartition tp, PlanTruncation onThree, PlanAlternative... alternatives) {
        return new PlannedElection(tp.topic(), tp.partition(), 2, new ExpectedState(EPOCH, List.of(2, 3, 1)), List.of(answered(2, 15, 3), answered(3, 30, 0)), "newest epoch",
                List.of(onThree),
                List.of(alternatives), null, null);
    }

    private static PlanTruncation exact(int broker, long from, long to) {
        return new PlanTruncation(broker, to - from, from, to, TruncationEstimate.EXACT);
    }

    private static Plan plan(PlannedElection... partitions) {
        return new Plan(Plan.VERSION, Instant.EPOCH, "cluster", "test", Strategy.PROACTIVE, List.of(), List.of(partitions),
                List.of());
    }

    /** What each live replica answers the second look: log end offset and last written epoch; absent: silent. */
    private final Map<Integer, long[]> logs = new HashMap<>(Map.of(2, new long[] {15, 3}, 3, new long[] {30, 0}));
    /** Where a follower cuts under a leader, as the brokers' look-ups answer: "leader>follower" to offset. */
    private final Map<String, Long> cuts = new HashMap<>(Map.of("2>3", 10L, "3>2", 10L));

    private ReplicaReprobe reprobe() {
        return replicas -> {
            Map<TopicPartition, List<ReplicaEvidence>> answers = new HashMap<>();
            replicas.forEach((state, brokers) -> answers.put(state.topicPartition(), brokers.stream()
                    .filter(logs::containsKey).map(b -> ReplicaEvidence.answered(state.topicPartition(), b,
                            EvidenceSource.NATIVE, logs.get(b)[0], (int) logs.get(b)[1], EPOCH, 7L, Instant.now()))
                    .toList()));
            return answers;
        };
    }

    private final CutLookUp lookUp = asks -> {
        Map<TopicPartition, Map<Integer, Long>> answered = new HashMap<>();
        asks.forEach((tp, ask) -> ask.followers().forEach(f -> {
            Long cut = cuts.get(ask.leader().broker() + ">" + f.broker());
            if (cut != null) {
                answered.computeIfAbsent(tp, k -> new HashMap<>()).put(f.broker(), cut);
            }
        }));
        return answered;
    };

    private PlanExecution execution(ClusterSnapshot now) {
        return new PlanExecution(partitions -> now, reprobe(), elector, false, steps::add).withCutLookUp(lookUp);
    }

    @Test
    void an_exact_loss_is_copied_before_the_first_change_and_the_result_lists_it() {
        ClusterSnapshot now = cluster(offline(ORDERS_0));

        ExecutionResult result = execution(now).withSalvage(salvage).run(plan(planned(ORDERS_0, exact(3, 10, 30))),
                "plan.json");

        assertThat(asked).containsExactly(new DoomedRange(ORDERS_0, ORDERS_ID, 3, 10, 30, 0));
        assertThat(steps).containsSubsequence("salvage", "elect");
        assertThat(result.partitions()).extracting(PartitionOutcome::outcome).containsExactly(Outcome.ELECTED);
        ResultFile file = result.toResultFile("test", "b:9092");
        assertThat(file.version()).isEqualTo(ResultFile.VERSION);
        assertThat(file.salvageDir()).isEqualTo("plan-salvage");
        assertThat(file.salvage()).isNull();
        assertThat(file.partitions().get(0).salvaged()).containsExactly(new ResultFile.Salvaged(3, 10, 30, 20, 3, 1234,
                List.of("FETCH_DEBUG_REPLICA"), Path.of("plan-salvage", "orders-0-3.log").toString(),
                Path.of("plan-salvage", "manifest.json").toString(), "manifest-sha"));
    }

    @Test
    void a_partition_whose_copy_fails_is_refused_and_the_others_are_elected() {
        failing.add(ORDERS_0);
        ClusterSnapshot now = cluster(offline(ORDERS_0), offline(ORDERS_1));

        ExecutionResult result = execution(now).withSalvage(salvage).run(plan(planned(ORDERS_0, exact(3, 10, 30)),
                planned(ORDERS_1, exact(3, 10, 30))), "plan.json");

        assertThat(elected).extracting(ElectionTarget::topicPartition).containsExactly(ORDERS_1);
        assertThat(result.partitions().get(0).outcome()).isEqualTo(Outcome.REFUSED);
        assertThat(result.partitions().get(0).detail()).startsWith("salvage failed: broker 3 did not serve orders-0");
        ResultFile file = result.toResultFile("test", "b:9092");
        assertThat(file.partitions().get(0).salvaged()).isNull();
        assertThat(file.partitions().get(1).salvaged()).hasSize(1);
    }

    @Test
    void a_loss_known_only_as_a_lower_bound_refuses_the_partition_unless_no_salvage() {
        PlanTruncation atLeast = new PlanTruncation(3, 20L, 10L, 30L, TruncationEstimate.AT_LEAST);
        cuts.clear(); // broker 3's look-ups go unanswered: its cut under 2 (another epoch) is only bounded

        ExecutionResult refused = execution(cluster(offline(ORDERS_0))).withSalvage(salvage)
                .run(plan(planned(ORDERS_0, atLeast)), "plan.json");
        assertThat(refused.partitions().get(0).outcome()).isEqualTo(Outcome.REFUSED);
        assertThat(refused.partitions().get(0).detail())
                .contains("is not known exactly; cannot salvage it whole");
        assertThat(asked).isEmpty();
        assertThat(elected).isEmpty();

        ExecutionResult elected = execution(cluster(offline(ORDERS_0))).withoutSalvage()
                .run(plan(planned(ORDERS_0, atLeast)), "plan.json");
        assertThat(elected.partitions().get(0).outcome()).isEqualTo(Outcome.ELECTED);
        ResultFile file = elected.toResultFile("test", "b:9092");
        assertThat(file.salvageDir()).isNull();
        assertThat(file.salvage()).isEqualTo("--no-salvage: nothing was kept");
    }

    @Test
    void no_salvage_elects_and_says_what_was_not_kept() {
        ExecutionResult result = execution(cluster(offline(ORDERS_0))).withoutSalvage()
                .run(plan(planned(ORDERS_0, exact(3, 10, 30))), "plan.json");

        assertThat(asked).isEmpty();
        assertThat(result.partitions().get(0).outcome()).isEqualTo(Outcome.ELECTED);
        assertThat(result.partitions().get(0).detail()).contains("--no-salvage: not kept broker 3 [10..30) (20 offsets)");
    }

    @Test
    void a_live_replica_whose_loss_cannot_be_known_refuses_the_partition_unless_the_unknown_loss_is_accepted() {
        PlanTruncation unknown = new PlanTruncation(3, null, null, null, TruncationEstimate.UNKNOWN);
        logs.remove(3); // broker 3 is live but does not answer the second look: nothing measures its log

        ExecutionResult result = execution(cluster(offline(ORDERS_0))).withSalvage(salvage)
                .run(plan(planned(ORDERS_0, unknown)), "plan.json");

        // electing would make 3 truncate at once, before anything could copy what it loses
        assertThat(result.partitions().get(0).outcome()).isEqualTo(Outcome.REFUSED);
        assertThat(result.partitions().get(0).detail()).startsWith("broker(s) 3 did not answer this host but the"
                + " controller sees them unfenced");
        assertThat(elected).isEmpty();
        assertThat(result.needsAttention()).as("exit 3").isTrue();

        ExecutionResult accepted = execution(cluster(offline(ORDERS_0))).withSalvage(salvage).acceptingUnknownLoss(true)
                .run(plan(planned(ORDERS_0, unknown)), "plan.json");
        assertThat(accepted.partitions().get(0).outcome()).isEqualTo(Outcome.ELECTED);
        assertThat(accepted.partitions().get(0).detail()).contains("broker 3: loss NOT KNOWN (it did not answer the"
                + " second look)");
        assertThat(asked).isEmpty();
        assertThat(accepted.electedWithUnknownLoss()).containsExactly(ORDERS_0);
        assertThat(accepted.needsAttention()).as("exit 0").isFalse();
        ResultFile file = accepted.toResultFile("test", "b:9092");
        assertThat(file.warnings()).anySatisfy(w -> assertThat(w).startsWith("1 partition(s) were elected while what"
                + " some replica loses is NOT KNOWN: orders-0 (broker(s) 1, 3)").endsWith("(--accept-unknown-loss)"));
        assertThat(file.partitions().get(0).unknownLoss()).containsExactly(1, 3);
    }

    @Test
    void the_loss_is_measured_at_execute_and_a_plan_that_states_less_is_refused() {
        // the plan file edited: "records": 0 for the range broker 3 really loses, or its end lowered
        for (PlanTruncation edited : List.of(new PlanTruncation(3, 0L, 10L, 30L, TruncationEstimate.EXACT),
                exact(3, 10, 20))) {
            asked.clear();
            elected.clear();

            ExecutionResult result = execution(cluster(offline(ORDERS_0))).withSalvage(salvage)
                    .run(plan(planned(ORDERS_0, edited)), "plan.json");

            assertThat(result.partitions().get(0).outcome()).isEqualTo(Outcome.REFUSED);
            assertThat(result.partitions().get(0).detail()).startsWith("broker 3 loses 20 [10..30) as measured now, the"
                    + " plan says " + edited.records() + " [10.." + edited.toOffset() + ")").endsWith("the logs changed"
                    + " since the plan, or the plan was edited; plan again");
            assertThat(asked).isEmpty();
            assertThat(elected).isEmpty();
        }
    }

    @Test
    void a_designated_leader_the_plan_states_no_loss_for_is_measured_and_salvaged() {
        // edited to designate 3, which the plan lists as no alternative
        PlannedElection asPlanned = planned(ORDERS_0, exact(3, 10, 30));
        PlannedElection edited = new PlannedElection(asPlanned.topic(), asPlanned.partition(), 3, asPlanned.expected(),
                asPlanned.evidence(), asPlanned.reason(), asPlanned.expectedTruncation(), List.of(), null, null);

        ExecutionResult result = execution(cluster(offline(ORDERS_0))).withSalvage(salvage)
                .run(plan(edited), "plan.json");

        assertThat(asked).containsExactly(new DoomedRange(ORDERS_0, ORDERS_ID, 2, 10, 15, 3));
        assertThat(result.partitions().get(0).outcome()).isEqualTo(Outcome.ELECTED);
        assertThat(result.partitions().get(0).detail()).contains("the plan states no loss for leader 3",
                "broker 2 loses 5 [10..15) as measured now; the plan states nothing for it");
    }

    @Test
    void a_run_that_truncates_nothing_does_no_salvage_work() {
        logs.put(3, new long[] {15, 3}); // 3 holds what 2 holds
        Salvage untouchable = new Salvage() {
            @Override
            public Path directory() {
                return Path.of("plan-salvage");
            }

            @Override
            public List<Kept> keep(List<DoomedRange> ranges) {
                throw new AssertionError("nothing is doomed: no salvage work");
            }

            @Override
            public EarlierCopy alreadyKept(DoomedRange range) {
                throw new AssertionError("nothing is doomed: no salvage work");
            }
        };

        ExecutionResult result = execution(cluster(offline(ORDERS_0))).withSalvage(untouchable)
                .run(plan(planned(ORDERS_0, exact(3, 30, 30))), "plan.json");

        assertThat(result.partitions().get(0).outcome()).isEqualTo(Outcome.ELECTED);
        assertThat(result.toResultFile("test", "b:9092").partitions().get(0).salvaged()).isNull();
    }

    @Test
    void a_plan_edited_to_designate_an_alternative_salvages_what_electing_that_one_truncates() {
        // the reviewer designated 3: its own figures say 2 loses [10, 15); expectedTruncation still is 2's
        PlannedElection asPlanned = planned(ORDERS_0, exact(3, 10, 30),
                new PlanAlternative(3, List.of(exact(2, 10, 15), exact(3, 30, 30))));
        PlannedElection edited = new PlannedElection(asPlanned.topic(), asPlanned.partition(), 3, asPlanned.expected(),
                asPlanned.evidence(), asPlanned.reason(), asPlanned.expectedTruncation(), asPlanned.alternatives(), null,
                null);
        execution(cluster(offline(ORDERS_0))).withSalvage(salvage).run(plan(edited), "plan.json");

        assertThat(asked).containsExactly(new DoomedRange(ORDERS_0, ORDERS_ID, 2, 10, 15, 3));
    }

    @Test
    void a_dry_run_says_what_would_be_salvaged_and_reads_nothing() {
        ExecutionResult result = execution(cluster(offline(ORDERS_0))).withSalvage(salvage)
                .withMode(new PlanExecution.Mode(true, false)).run(plan(planned(ORDERS_0, exact(3, 10, 30))), "plan.json");

        assertThat(asked).isEmpty();
        assertThat(result.partitions().get(0).outcome()).isEqualTo(Outcome.WOULD_ELECT);
        assertThat(result.partitions().get(0).detail()).contains("would salvage broker 3 [10..30) (20 offsets)");
    }

    @Test
    void a_doomed_range_on_a_fenced_broker_refuses_the_partition_until_its_disk_was_copied() {
        logs.put(3, new long[] {15, 3}); // 3 holds what 2 holds: only fenced 1 loses records
        // broker 1 is fenced: no Fetch reaches it, so its records can only come off its disk
        ExecutionResult refused = execution(cluster(offline(ORDERS_0))).withSalvage(salvage)
                .run(plan(planned(ORDERS_0, exact(1, 10, 30))), "plan.json");

        assertThat(refused.partitions().get(0).outcome()).isEqualTo(Outcome.REFUSED);
        assertThat(refused.partitions().get(0).detail()).startsWith("salvage failed: broker 1 did not serve orders-0"
                + " [10..30): it is fenced, so nothing can be read from it online; copy its records off its disk with"
                + " 'inspect --salvage-beyond'");
        assertThat(asked).isEmpty();
        assertThat(elected).isEmpty();

        onDisk.add(new DoomedRange(ORDERS_0, ORDERS_ID, 1, 10, 30, 0));
        ExecutionResult after = execution(cluster(offline(ORDERS_0))).withSalvage(salvage)
                .run(plan(planned(ORDERS_0, exact(1, 10, 30))), "plan.json");

        assertThat(after.partitions().get(0).outcome()).isEqualTo(Outcome.ELECTED);
        assertThat(after.partitions().get(0).detail()).contains("broker 1 is down; its doomed records broker 1 [10..30)"
                + " (20 offsets) were copied off its disk before");
        assertThat(asked).isEmpty();
        assertThat(after.toResultFile("test", "b:9092").partitions().get(0).salvaged()).singleElement()
                .satisfies(k -> assertThat(k.sources()).containsExactly("DISK"));
    }

    @Test
    void a_copy_of_another_log_found_by_name_is_not_used_and_the_refusal_says_why() {
        // given: the directory holds a copy of orders-0 broker 1 from an earlier incident, of a topic since re-created
        notUsed.add("a copy of orders-0 broker 1 in plan-salvage/orders-0/broker-1 is of topic id OLD, this plan's topic"
                + " has " + ORDERS_ID + ": a topic deleted and re-created under its name; not used");

        // when: broker 1, fenced, is to lose [10, 30)
        ExecutionResult result = execution(cluster(offline(ORDERS_0))).withSalvage(salvage)
                .run(plan(planned(ORDERS_0, exact(1, 10, 30))), "plan.json");

        // then: refused, and the reason names the copy that was not used
        assertThat(result.partitions().get(0).outcome()).isEqualTo(Outcome.REFUSED);
        assertThat(result.partitions().get(0).detail()).startsWith("salvage failed: broker 1 did not serve orders-0"
                + " [10..30): it is fenced, so nothing can be read from it online; a copy of orders-0 broker 1 in"
                + " plan-salvage/orders-0/broker-1 is of topic id OLD, this plan's topic has " + ORDERS_ID + ": a topic"
                + " deleted and re-created under its name; not used; copy its records off its disk with 'inspect"
                + " --salvage-beyond'");
        assertThat(elected).isEmpty();
    }
}
