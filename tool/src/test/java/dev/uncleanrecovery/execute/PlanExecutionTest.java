// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.uncleanrecovery.cluster.ClusterSnapshot;
import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.connect.BrokerState;
import dev.uncleanrecovery.election.Strategy;
import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.evidence.ReplicaEvidence;
import dev.uncleanrecovery.formats.ExpectedState;
import dev.uncleanrecovery.formats.Plan;
import dev.uncleanrecovery.formats.PlanEvidence;
import dev.uncleanrecovery.formats.PlannedElection;
import dev.uncleanrecovery.probe.PartitionToProbe;
import java.time.Instant;
import java.util.HashMap;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

/**
 * The second look before an election: the partitions re-read, the designated replicas probed once more. With the
 * partitions as planned at hand (recover), both happen at once, and an answer counts only for a partition the re-read
 * finds as the probe saw it. The cluster is played by fakes: what is under test is the order and the bookkeeping.
 */
class PlanExecutionTest {

    private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);
    private static final TopicPartition ORDERS_1 = new TopicPartition("orders", 1);
    private static final Uuid ORDERS_ID = Uuid.fromString("m0uMP1nXQ4mAkRTb3e6u1Q");
    private static final Uuid RECREATED_ID = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ");
    private static final int EPOCH = 4;
    private static final long PLANNED_LEO = 100;

    /** One reprobe call: what it was asked. */
    private record Reprobe(List<PartitionToProbe> asked) {
    }

    private final List<Reprobe> reprobes = new CopyOnWriteArrayList<>();
    private final List<String> steps = new CopyOnWriteArrayList<>();
    /** "reprobe" and "elect", in the order they happened. */
    private final List<String> events = new CopyOnWriteArrayList<>();
    private final Map<TopicPartition, Long> reprobedLogEnd = new HashMap<>();

    private static TopicPartitionState offline(TopicPartition tp, Uuid topicId) {
        return new TopicPartitionState(tp.topic(), topicId, tp.partition(), TopicPartitionState.NO_LEADER, EPOCH,
                List.of(1, 3, 2), List.of(1), List.of(), List.of(1), List.of(1));
    }

    private static ClusterSnapshot cluster(TopicPartitionState... partitions) {
        return new ClusterSnapshot("cluster", 1000, List.of(new BrokerState(1, "h", 1, null, true),
                new BrokerState(2, "h", 2, null, false), new BrokerState(3, "h", 3, null, false)), (short) 1,
                List.of(partitions), Map.of(), Set.of());
    }

    private static PlannedElection planned(TopicPartition tp) {
        return new PlannedElection(tp.topic(), tp.partition(), 2, new ExpectedState(EPOCH, List.of(1, 3, 2)), List.of(new PlanEvidence(2, EvidenceSource.NATIVE, EvidenceStatus.OK, PLANNED_LEO, EPOCH,
                EPOCH, 7L, null, Instant.EPOCH)), "longest log", List.of());
    }

    private static Plan plan(TopicPartition... partitions) {
        return new Plan(Plan.VERSION, Instant.EPOCH, "cluster", "test", Strategy.BALANCED, List.of(),
                List.of(partitions).stream().map(PlanExecutionTest::planned).toList(), List.of());
    }

    /** Log end offsets that brokers other than the designated 2 answer with; a broker not in it stays silent. */
    private final Map<Integer, Long> lateLogEnd = new HashMap<>();
    private long reprobedBrokerEpoch = 7L;

    private ReplicaReprobe reprobe(CountDownLatch asked) {
        return replicas -> {
            reprobes.add(new Reprobe(replicas.keySet().stream().map(PartitionToProbe::of).toList()));
            events.add("reprobe");
            asked.countDown();
            Map<TopicPartition, List<ReplicaEvidence>> answers = new HashMap<>();
            replicas.forEach((state, brokers) -> answers.put(state.topicPartition(), brokers.stream()
                    .filter(broker -> broker == 2 || lateLogEnd.containsKey(broker))
                    .map(broker -> ReplicaEvidence.answered(state.topicPartition(), broker, EvidenceSource.NATIVE,
                            broker == 2 ? reprobedLogEnd.getOrDefault(state.topicPartition(), PLANNED_LEO)
                                    : lateLogEnd.get(broker), EPOCH, EPOCH, broker == 2 ? reprobedBrokerEpoch : 9L,
                            Instant.now()))
                    .toList()));
            return answers;
        };
    }

    private final ElectingElector elector = new ElectingElector(events::add);

    private static boolean awaited(CountDownLatch latch) {
        try {
            return latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
    private final List<ElectionTarget> elected = elector.elected;

    @Test
    void with_the_planned_partitions_the_designated_replicas_are_probed_while_the_partitions_are_read() throws Exception {
        CountDownLatch asked = new CountDownLatch(1);
        CountDownLatch reading = new CountDownLatch(1);
        ClusterSnapshot now = cluster(offline(ORDERS_0, ORDERS_ID), offline(ORDERS_1, ORDERS_ID));
        boolean[] probedDuringRead = new boolean[1];
        boolean[] readDuringProbe = new boolean[1];
        // Each waits for the other to have begun: were they one after the other, in either order, the first would
        // wait in vain.
        PartitionStateReader reader = partitions -> {
            reading.countDown();
            probedDuringRead[0] = awaited(asked);
            return now;
        };
        ReplicaReprobe answering = reprobe(asked);
        ReplicaReprobe probe = replicas -> {
            readDuringProbe[0] = awaited(reading);
            return answering.reprobe(replicas);
        };

        ExecutionResult result = new PlanExecution(reader, probe, elector, false, steps::add).acceptingUnknownLoss(true)
                .run(plan(ORDERS_0, ORDERS_1), "plan.json", () -> { }, now);

        assertThat(probedDuringRead[0]).as("the re-probe began while the partitions were read").isTrue();
        assertThat(readDuringProbe[0]).as("the read began while the re-probe ran").isTrue();
        assertThat(reprobes).singleElement().satisfies(r ->
                assertThat(r.asked()).extracting(PartitionToProbe::topicPartition).containsExactly(ORDERS_0, ORDERS_1));
        assertThat(steps).first().asString()
                .isEqualTo("re-reading 2 partition(s) of the plan while their 2 designated replica(s) are probed once more");
        assertThat(elected).extracting(ElectionTarget::topicPartition).containsExactly(ORDERS_0, ORDERS_1);
        assertThat(result.partitions()).extracting(PartitionOutcome::outcome).containsExactly(Outcome.ELECTED, Outcome.ELECTED);
        assertThat(result.leadersShownAfter()).as("the elector's wait for the new leaders").isEqualTo(Duration.ZERO);
    }

    @Test
    void when_the_gate_before_the_first_change_fails_nothing_is_elected_and_the_failure_propagates() {
        ClusterSnapshot now = cluster(offline(ORDERS_0, ORDERS_ID));
        CountDownLatch asked = new CountDownLatch(1);

        PlanExecution execution = new PlanExecution(partitions -> now, reprobe(asked), elector, false, steps::add)
                .acceptingUnknownLoss(true);

        assertThatThrownBy(() -> execution.run(plan(ORDERS_0), "plan.json", () -> {
            throw new IllegalStateException("the plan could not be written");
        }, now)).isInstanceOf(IllegalStateException.class).hasMessage("the plan could not be written");
        assertThat(reprobes).hasSize(1);
        assertThat(elected).isEmpty();
    }

    @Test
    void a_run_that_dies_on_an_error_after_its_first_change_still_returns_what_it_knows() {
        TopicPartitionState ledNow = new TopicPartitionState("orders", ORDERS_ID, 1, 2, EPOCH + 1, List.of(1, 3, 2),
                List.of(2), List.of(), List.of(), List.of());
        ClusterSnapshot before = cluster(offline(ORDERS_0, ORDERS_ID), offline(ORDERS_1, ORDERS_ID));
        ClusterSnapshot after = cluster(offline(ORDERS_0, ORDERS_ID), ledNow);
        int[] reads = new int[1];
        DesignatedElector dying = new DesignatedElector() {
            @Override
            public String describe() {
                return "dying elector";
            }

            @Override
            public List<PartitionOutcome> elect(List<ElectionTarget> targets, ClusterSnapshot validated,
                                                Runnable beforeFirstChange) {
                beforeFirstChange.run();
                throw new OutOfMemoryError("Java heap space");
            }

            @Override
            public java.time.Duration leadersShownAfter() {
                return null;
            }
        };

        ExecutionResult result = new PlanExecution(partitions -> reads[0]++ == 0 ? before : after,
                reprobe(new CountDownLatch(1)), dying, false, steps::add)
                        .acceptingUnknownLoss(true).run(plan(ORDERS_0, ORDERS_1), "plan.json");

        assertThat(result.partitions()).extracting(PartitionOutcome::outcome).containsExactly(Outcome.FAILED, Outcome.FAILED);
        assertThat(result.partitions().get(0).detail()).startsWith("the run stopped before it was done with this"
                + " partition (java.lang.OutOfMemoryError: Java heap space); it is still offline, replicas [1, 3, 2]");
        assertThat(result.partitions().get(1).detail()).contains("it is led by 2 at leader epoch 5");
        assertThat(result.partitions().get(1).after()).isEqualTo(ledNow);
        assertThat(steps).contains("the run stopped: java.lang.OutOfMemoryError: Java heap space");
    }

    @Test
    void a_partition_the_re_read_finds_otherwise_than_the_probe_saw_it_is_probed_again() {
        // Same name, epoch and replicas, another topic id: the topic was deleted and made again meanwhile.
        ClusterSnapshot asPlanned = cluster(offline(ORDERS_0, ORDERS_ID), offline(ORDERS_1, ORDERS_ID));
        ClusterSnapshot now = cluster(offline(ORDERS_0, ORDERS_ID), offline(ORDERS_1, RECREATED_ID));

        new PlanExecution(partitions -> now, reprobe(new CountDownLatch(1)), elector, false, steps::add)
                .acceptingUnknownLoss(true)
                .run(plan(ORDERS_0, ORDERS_1), "plan.json", () -> { }, asPlanned);

        assertThat(reprobes).hasSize(2);
        assertThat(reprobes.get(1).asked()).containsExactly(new PartitionToProbe(ORDERS_1, RECREATED_ID, EPOCH));
        // the second answers are in before anything is elected
        assertThat(events).containsExactly("reprobe", "reprobe", "elect");
        assertThat(steps).contains("probing once more the 2 live replica(s) of 1 partition(s): the designated leader, and"
                + " what each other replica will lose");
        assertThat(elected).hasSize(2);
    }

    @Test
    void an_early_answer_with_a_shorter_log_refuses_the_partition() {
        ClusterSnapshot now = cluster(offline(ORDERS_0, ORDERS_ID), offline(ORDERS_1, ORDERS_ID));
        reprobedLogEnd.put(ORDERS_1, PLANNED_LEO - 10);

        ExecutionResult result = new PlanExecution(partitions -> now, reprobe(new CountDownLatch(1)), elector, false,
                steps::add).acceptingUnknownLoss(true).run(plan(ORDERS_0, ORDERS_1), "plan.json", () -> { }, now);

        assertThat(reprobes).hasSize(1);
        assertThat(elected).extracting(ElectionTarget::topicPartition).containsExactly(ORDERS_0);
        assertThat(result.partitions().get(1)).satisfies(o -> {
            assertThat(o.outcome()).isEqualTo(Outcome.REFUSED);
            assertThat(o.detail()).contains("log shrank since the plan", "LEO 100 -> epoch 4 LEO 90");
        });
    }

    @Test
    void a_partition_refused_by_the_re_read_is_not_elected_though_it_was_probed_early() {
        ClusterSnapshot asPlanned = cluster(offline(ORDERS_0, ORDERS_ID), offline(ORDERS_1, ORDERS_ID));
        TopicPartitionState ledAgain = new TopicPartitionState("orders", ORDERS_ID, 1, 3, EPOCH + 1, List.of(1, 3, 2),
                List.of(3), List.of(), List.of(), List.of(1));
        ClusterSnapshot now = cluster(offline(ORDERS_0, ORDERS_ID), ledAgain);

        ExecutionResult result = new PlanExecution(partitions -> now, reprobe(new CountDownLatch(1)), elector, false,
                steps::add).acceptingUnknownLoss(true).run(plan(ORDERS_0, ORDERS_1), "plan.json", () -> { }, asPlanned);

        assertThat(elected).extracting(ElectionTarget::topicPartition).containsExactly(ORDERS_0);
        assertThat(result.partitions().get(1).outcome()).isEqualTo(Outcome.REFUSED);
        assertThat(result.partitions().get(1).detail()).contains("has a leader again (3, leader epoch 5)");
    }

    @Test
    void from_a_plan_file_the_partitions_are_read_first_and_then_probed() {
        ClusterSnapshot now = cluster(offline(ORDERS_0, ORDERS_ID));
        List<String> order = new CopyOnWriteArrayList<>();
        ReplicaReprobe recorded = reprobe(new CountDownLatch(1));

        new PlanExecution(partitions -> {
            order.add("read");
            return now;
        }, replicas -> {
            order.add("reprobe");
            return recorded.reprobe(replicas);
        }, elector, false, steps::add).acceptingUnknownLoss(true).run(plan(ORDERS_0), "plan.json");

        assertThat(order).containsExactly("read", "reprobe");
        assertThat(reprobes).singleElement().satisfies(r -> assertThat(r.asked())
                .containsExactly(new PartitionToProbe(ORDERS_0, ORDERS_ID, EPOCH)));
        assertThat(steps).startsWith("re-reading 1 partition(s) of the plan", "probing once more the 2 live replica(s) of"
                + " 1 partition(s): the designated leader, and what each other replica will lose");
    }

    @Test
    void a_replica_that_answers_after_the_plan_with_more_refuses_the_partition() {
        // given: 3 (live now, no answer in the plan) holds 150 offsets of the same epoch; designated 2 holds 100
        ClusterSnapshot now = cluster(offline(ORDERS_0, ORDERS_ID));
        lateLogEnd.put(3, 150L);

        ExecutionResult result = new PlanExecution(partitions -> now, reprobe(new CountDownLatch(1)), elector, false,
                steps::add).acceptingUnknownLoss(true).run(plan(ORDERS_0), "plan.json");

        assertThat(elected).isEmpty();
        assertThat(result.partitions()).singleElement().satisfies(o -> {
            assertThat(o.outcome()).isEqualTo(Outcome.REFUSED);
            assertThat(o.detail()).isEqualTo("broker 3 answered after the plan and holds more: epoch 4, LEO 150 against"
                    + " epoch 4, LEO 100 on designated 2; plan again");
        });
    }

    @Test
    void a_replica_that_answers_after_the_plan_with_less_is_noted_and_the_designated_one_elected() {
        ClusterSnapshot now = cluster(offline(ORDERS_0, ORDERS_ID));
        lateLogEnd.put(3, 60L);

        ExecutionResult result = new PlanExecution(partitions -> now, reprobe(new CountDownLatch(1)), elector, false,
                steps::add).acceptingUnknownLoss(true).run(plan(ORDERS_0), "plan.json");

        assertThat(elected).extracting(ElectionTarget::designatedLeader).containsExactly(2);
        assertThat(result.partitions().get(0).detail()).isEqualTo("elected; broker 3 answered after the plan: epoch 4,"
                + " LEO 60 (not more than designated 2: epoch 4, LEO 100); broker 1: loss NOT KNOWN (down, and no"
                + " evidence says what its log holds)");
    }

    @Test
    void with_a_redecision_the_better_late_replica_is_elected_instead() {
        ClusterSnapshot now = cluster(offline(ORDERS_0, ORDERS_ID));
        lateLogEnd.put(3, 150L);
        Redecision electThree = (p, state, cluster, late) -> new Redecision.Outcome.Elect(new PlannedElection(p.topic(),
                p.partition(), 3, p.expected(), List.of(PlanEvidence.from(late.get(0))), "longest log", List.of()));

        ExecutionResult result = new PlanExecution(partitions -> now, reprobe(new CountDownLatch(1)), elector, false,
                steps::add).acceptingUnknownLoss(true).withRedecision(electThree).run(plan(ORDERS_0), "plan.json");

        assertThat(elected).singleElement().satisfies(t -> {
            assertThat(t.designatedLeader()).isEqualTo(3);
            assertThat(t.plannedLogEndOffset()).isEqualTo(150);
        });
        assertThat(result.partitions().get(0).detail()).contains("decided again: broker 3 answered after the plan and"
                + " holds more", "designated 3 instead");
    }

    @Test
    void a_replica_whose_broker_is_fenced_now_is_not_asked_and_keeps_its_plan_status() {
        ClusterSnapshot now = cluster(offline(ORDERS_0, ORDERS_ID));
        lateLogEnd.put(1, 500L);

        new PlanExecution(partitions -> now, reprobe(new CountDownLatch(1)), elector, false, steps::add)
                .acceptingUnknownLoss(true)
                .run(plan(ORDERS_0), "plan.json");

        assertThat(elected).hasSize(1);
        assertThat(steps).noneMatch(step -> step.contains("2 replica(s) that did not answer"));
    }

    @Test
    void a_dry_run_elects_nothing_and_says_what_would_be_elected() {
        ClusterSnapshot now = cluster(offline(ORDERS_0, ORDERS_ID), offline(ORDERS_1, ORDERS_ID));
        reprobedLogEnd.put(ORDERS_1, PLANNED_LEO - 10);

        ExecutionResult result = new PlanExecution(partitions -> now, reprobe(new CountDownLatch(1)), elector, false,
                steps::add)
                        .acceptingUnknownLoss(true).withMode(new PlanExecution.Mode(true, false))
                .run(plan(ORDERS_0, ORDERS_1), "plan.json");

        assertThat(elected).isEmpty();
        assertThat(result.partitions()).extracting(PartitionOutcome::outcome).containsExactly(Outcome.WOULD_ELECT,
                Outcome.REFUSED);
        assertThat(result.partitions().get(0).detail()).isEqualTo("would elect 2 (epoch 4, LEO 100); nothing changed;"
                + " broker 1: loss NOT KNOWN (down, and no evidence says what its log holds); broker 3: loss NOT KNOWN"
                + " (it did not answer the second look)");
        assertThat(result.elector()).isEqualTo("none (dry run)");
        assertThat(result.leadersShownAfter()).as("nothing elected, nothing waited for").isNull();
    }

    @Test
    void all_or_nothing_elects_nothing_when_one_partition_is_refused() {
        ClusterSnapshot now = cluster(offline(ORDERS_0, ORDERS_ID), offline(ORDERS_1, ORDERS_ID));
        reprobedLogEnd.put(ORDERS_1, PLANNED_LEO - 10);

        ExecutionResult result = new PlanExecution(partitions -> now, reprobe(new CountDownLatch(1)), elector, false,
                steps::add)
                        .acceptingUnknownLoss(true).withMode(new PlanExecution.Mode(false, true))
                .run(plan(ORDERS_0, ORDERS_1), "plan.json");

        assertThat(elected).isEmpty();
        assertThat(result.partitions().get(0)).satisfies(o -> {
            assertThat(o.outcome()).isEqualTo(Outcome.REFUSED);
            assertThat(o.detail()).isEqualTo("not elected: --all-or-nothing, and 1 partition(s) of the plan were refused");
        });
    }

    @Test
    void a_designation_edited_to_a_fenced_broker_is_refused_for_being_fenced() {
        ClusterSnapshot now = cluster(offline(ORDERS_0, ORDERS_ID));
        PlannedElection p = planned(ORDERS_0);
        PlannedElection edited = new PlannedElection(p.topic(), p.partition(), 1, p.expected(), p.evidence(), p.reason(),
                p.expectedTruncation());
        Plan plan = new Plan(Plan.VERSION, Instant.EPOCH, "cluster", "test", Strategy.BALANCED, List.of(), List.of(edited), List.of());

        ExecutionResult result = new PlanExecution(partitions -> now, reprobe(new CountDownLatch(1)), elector, false,
                steps::add).acceptingUnknownLoss(true).run(plan, "plan.json");

        assertThat(result.partitions().get(0).detail()).isEqualTo("designated broker 1 is fenced; it cannot lead now");
    }

    @Test
    void a_designated_broker_that_restarted_since_the_plan_is_refused() {
        ClusterSnapshot now = cluster(offline(ORDERS_0, ORDERS_ID));
        reprobedBrokerEpoch = 12L;

        ExecutionResult result = new PlanExecution(partitions -> now, reprobe(new CountDownLatch(1)), elector, false,
                steps::add).acceptingUnknownLoss(true).run(plan(ORDERS_0), "plan.json");

        assertThat(elected).isEmpty();
        assertThat(result.partitions().get(0).detail()).isEqualTo("designated broker 2 restarted since the plan"
                + " (broker epoch 7 -> 12); plan again");
    }

    @Test
    void a_live_broker_that_does_not_answer_this_host_refuses_the_partition_unless_its_unknown_loss_is_accepted() {
        // broker 3 is unfenced in the controller's view and stays silent to the tool: a network split
        ClusterSnapshot now = cluster(offline(ORDERS_0, ORDERS_ID));

        ExecutionResult refused = new PlanExecution(partitions -> now, reprobe(new CountDownLatch(1)), elector, false,
                steps::add).run(plan(ORDERS_0), "plan.json");

        assertThat(elected).isEmpty();
        assertThat(refused.partitions().get(0).outcome()).isEqualTo(Outcome.REFUSED);
        assertThat(refused.partitions().get(0).detail()).startsWith("broker(s) 3 did not answer this host but the"
                + " controller sees them unfenced: the election would make them truncate at once");

        new PlanExecution(partitions -> now, reprobe(new CountDownLatch(1)), elector, false, steps::add)
                .acceptingUnknownLoss(true).run(plan(ORDERS_0), "plan.json");
        assertThat(elected).hasSize(1);
    }

    @Test
    void the_partitions_are_elected_in_batches_each_after_its_own_second_look() {
        TopicPartition orders2 = new TopicPartition("orders", 2);
        ClusterSnapshot now = cluster(offline(ORDERS_0, ORDERS_ID), offline(ORDERS_1, ORDERS_ID),
                offline(orders2, ORDERS_ID));
        List<List<TopicPartition>> batches = new CopyOnWriteArrayList<>();
        List<String> order = new CopyOnWriteArrayList<>();
        ReplicaReprobe answering = reprobe(new CountDownLatch(3));
        ReplicaReprobe probe = replicas -> {
            replicas.keySet().forEach(p -> order.add("look " + p.topicPartition()));
            return answering.reprobe(replicas);
        };
        DesignatedElector inBatches = new ElectingElector(events::add) {
            @Override
            public List<PartitionOutcome> elect(List<ElectionTarget> targets, ClusterSnapshot validated,
                                                Runnable beforeFirstChange) {
                batches.add(targets.stream().map(ElectionTarget::topicPartition).toList());
                targets.forEach(t -> order.add("elect " + t.topicPartition()));
                return super.elect(targets, validated, beforeFirstChange);
            }
        };
        int[] gates = new int[1];

        ExecutionResult result = new PlanExecution(partitions -> now, probe, inBatches, false, steps::add)
                .acceptingUnknownLoss(true).inBatchesOf(2).run(plan(ORDERS_0, ORDERS_1, orders2), "plan.json", () -> gates[0]++, null);

        assertThat(batches).containsExactly(List.of(ORDERS_0, ORDERS_1), List.of(orders2));
        assertThat(gates[0]).as("the gate before the first change, once").isEqualTo(1);
        for (TopicPartition tp : List.of(ORDERS_0, ORDERS_1, orders2)) {
            assertThat(order.indexOf("look " + tp)).as(tp + " looked at before it is elected")
                    .isNotNegative().isLessThan(order.indexOf("elect " + tp));
        }
        assertThat(result.partitions()).extracting(PartitionOutcome::outcome)
                .containsExactly(Outcome.ELECTED, Outcome.ELECTED, Outcome.ELECTED);
        assertThat(steps).contains("batch 1 of 2: 2 partition(s) to elect", "batch 2 of 2: 1 partition(s) to elect");
    }

    @Test
    void a_batch_whose_election_failed_stops_the_batches_after_it() {
        TopicPartition orders2 = new TopicPartition("orders", 2);
        ClusterSnapshot now = cluster(offline(ORDERS_0, ORDERS_ID), offline(ORDERS_1, ORDERS_ID),
                offline(orders2, ORDERS_ID));
        DesignatedElector failing = new ElectingElector(events::add) {
            @Override
            public List<PartitionOutcome> elect(List<ElectionTarget> targets, ClusterSnapshot validated,
                                                Runnable beforeFirstChange) {
                beforeFirstChange.run();
                elected.addAll(targets);
                return targets.stream().map(t -> new PartitionOutcome(t.topicPartition(), t.designatedLeader(),
                        Outcome.FAILED, "still offline after the election", null, null)).toList();
            }
        };

        ExecutionResult result = new PlanExecution(partitions -> now, reprobe(new CountDownLatch(3)), failing, false,
                steps::add).acceptingUnknownLoss(true).inBatchesOf(1).run(plan(ORDERS_0, ORDERS_1, orders2),
                "plan.json");

        assertThat(((ElectingElector) failing).elected).extracting(ElectionTarget::topicPartition)
                .containsExactly(ORDERS_0);
        assertThat(result.partitions()).extracting(PartitionOutcome::outcome)
                .containsExactly(Outcome.FAILED, Outcome.REFUSED, Outcome.REFUSED);
        assertThat(result.partitions().get(1).detail()).startsWith("not elected: the election of batch 1 did not go"
                + " as planned (orders-0 FAILED), so the batches after it were stopped; nothing of this partition was"
                + " changed");
    }
}
