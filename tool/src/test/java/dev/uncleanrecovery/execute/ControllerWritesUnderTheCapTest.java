// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.cluster.ClusterSnapshot;
import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.formats.ReorderJournal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

/**
 * 25,000 offline partitions, more than two controller requests' worth, through every kind of write the tool makes —
 * the stock reorder, its ElectLeaders UNCLEAN and restore, the restore of an interrupted run, the native ElectLeaders
 * v3, the run lock — against a controller that refuses what Kafka's refuses: no request carries more than 9,999
 * partitions, and each partition is in exactly one request of each kind.
 */
class ControllerWritesUnderTheCapTest {

    private static final int PARTITIONS = 25_000;
    private static final int EPOCH = 4;
    private static final List<Integer> ASSIGNED = List.of(1, 3, 2);
    private static final List<Integer> BEST_FIRST = List.of(2, 3, 1);

    private final CappedController controller = new CappedController();

    /** 25,000 partitions over five topics, offline, replicas [1,3,2]: 3, live, stands before the designated 2. */
    private List<ElectionTarget> offline() {
        List<ElectionTarget> targets = new ArrayList<>();
        for (int i = 0; i < PARTITIONS; i++) {
            TopicPartition tp = new TopicPartition("orders-" + i / 5_000, i % 5_000);
            controller.put(new TopicPartitionState(tp.topic(), Uuid.ZERO_UUID, tp.partition(), -1, EPOCH, ASSIGNED,
                    List.of(), List.of(), List.of(1), List.of(1)));
            targets.add(new ElectionTarget(tp, 2, EPOCH, ASSIGNED, BEST_FIRST, 100, 0));
        }
        return targets;
    }

    private static Set<String> names(List<ElectionTarget> targets) {
        return targets.stream().map(t -> t.topicPartition().toString()).collect(Collectors.toSet());
    }

    private ClusterSnapshot validated(List<ElectionTarget> targets) {
        return controller.reader().read(targets.stream().map(ElectionTarget::topicPartition).collect(Collectors.toSet()));
    }

    /** Every request at most 9,999 names, and together each of {@code expected} exactly once. */
    private static void eachOnceUnderTheCap(List<CappedController.Write> requests, Set<String> expected) {
        assertThat(requests).isNotEmpty().allSatisfy(r -> assertThat(r.names()).hasSizeLessThanOrEqualTo(9_999));
        List<String> sent = requests.stream().flatMap(r -> r.names().stream()).toList();
        assertThat(sent).hasSize(expected.size()).doesNotHaveDuplicates();
        assertThat(Set.copyOf(sent)).isEqualTo(expected);
    }

    @Test
    void the_stock_elector_reorders_elects_and_restores_in_requests_of_at_most_9999() {
        List<ElectionTarget> targets = offline();
        StockElector elector = new StockElector(controller.calls(), controller.reader(), Duration.ofSeconds(5), s -> { },
                null, new PendingReorders(null, "cluster", "plan.json", () -> null));

        List<PartitionOutcome> outcomes = elector.elect(targets, validated(targets));

        assertThat(outcomes).hasSize(PARTITIONS).allSatisfy(o -> assertThat(o.outcome()).isEqualTo(Outcome.ELECTED));
        List<CappedController.Write> orders = controller.writes("AlterPartitionReassignments");
        // the reorders come first, then the restores
        eachOnceUnderTheCap(orders.subList(0, orders.size() / 2), names(targets));
        eachOnceUnderTheCap(orders.subList(orders.size() / 2, orders.size()), names(targets));
        eachOnceUnderTheCap(controller.writes("ElectLeaders"), names(targets));
        assertThat(controller.writes("ElectLeaders")).extracting(w -> w.names().size()).containsExactly(9_999, 9_999, 5_002);
        assertThat(targets).allSatisfy(t -> {
            TopicPartitionState now = controller.state(t.topicPartition());
            assertThat(now.leader()).isEqualTo(2);
            assertThat(now.replicas()).as("restored").isEqualTo(ASSIGNED);
        });
        assertThat(elector.leadersShownAfter()).isNotNull();
    }

    @Test
    void a_reorder_request_without_an_answer_after_another_applied_is_put_right_by_the_read_back() {
        List<ElectionTarget> targets = offline();
        // the second reorder request gets no answer: the first one's 9,999 are reordered, the rest are not
        controller.failWhen(w -> w.api().equals("AlterPartitionReassignments")
                && controller.writes("AlterPartitionReassignments").size() == 2);
        StockElector elector = new StockElector(controller.calls(), controller.reader(), Duration.ofSeconds(5), s -> { },
                null, new PendingReorders(null, "cluster", "plan.json", () -> null));

        List<PartitionOutcome> outcomes = elector.elect(targets, validated(targets));

        assertThat(outcomes).allSatisfy(o -> assertThat(o.outcome()).isEqualTo(Outcome.FAILED));
        assertThat(controller.writes("ElectLeaders")).isEmpty();
        List<CappedController.Write> orders = controller.writes("AlterPartitionReassignments");
        Set<String> applied = Set.copyOf(orders.get(0).names());
        // only what the read-back found as this run set it is put back, again under the cap
        eachOnceUnderTheCap(orders.subList(2, orders.size()), applied);
        assertThat(outcomes).filteredOn(o -> !applied.contains(o.topicPartition().toString()))
                .allSatisfy(o -> assertThat(o.detail()).contains("replica order " + ASSIGNED + " unchanged"));
        assertThat(targets).allSatisfy(t -> assertThat(controller.state(t.topicPartition()).replicas()).isEqualTo(ASSIGNED));
    }

    @Test
    void an_interrupted_runs_reorders_are_restored_in_requests_of_at_most_9999() {
        List<ElectionTarget> targets = offline();
        List<ReorderJournal.Reorder> recorded = new ArrayList<>();
        for (ElectionTarget t : targets) {
            controller.put(controller.state(t.topicPartition()).withReplicas(BEST_FIRST));
            recorded.add(new ReorderJournal.Reorder(t.topicPartition().topic(), t.topicPartition().partition(), 2, EPOCH,
                    ASSIGNED, BEST_FIRST));
        }

        ReplicaOrderRestore.Report report = new ReplicaOrderRestore(controller.reader(), controller.calls(),
                Duration.ofSeconds(5)).restore(recorded, s -> { });

        assertThat(report.count(ReplicaOrderRestore.Found.RESTORED)).isEqualTo(PARTITIONS);
        eachOnceUnderTheCap(controller.writes("AlterPartitionReassignments"), names(targets));
    }

    @Test
    void the_native_elector_elects_in_requests_of_at_most_9999() {
        List<ElectionTarget> targets = offline();
        NativeElector elector = new NativeElector(List.of(2, 3), controller, id -> "broker " + id, controller.reader(),
                Duration.ofSeconds(5), s -> { });

        List<PartitionOutcome> outcomes = elector.elect(targets, validated(targets));

        assertThat(outcomes).hasSize(PARTITIONS).allSatisfy(o -> assertThat(o.outcome()).isEqualTo(Outcome.ELECTED));
        eachOnceUnderTheCap(controller.writes("ElectLeaders v3"), names(targets));
        assertThat(elector.leadersShownAfter()).isNotNull();
    }

    @Test
    void the_run_lock_writes_a_topic_of_one_partition_at_a_time() {
        RunLock lock = RunLock.take(controller.calls(), null, s -> { });
        lock.close();

        // each CreateTopics writes the topic and its one partition; the lock and its owner topic go in one DeleteTopics
        assertThat(controller.writes("CreateTopics")).hasSize(2).allSatisfy(w -> assertThat(w.names()).hasSize(2));
        assertThat(controller.writes("DeleteTopics")).singleElement().satisfies(w -> assertThat(w.names()).hasSize(2));
    }
}
