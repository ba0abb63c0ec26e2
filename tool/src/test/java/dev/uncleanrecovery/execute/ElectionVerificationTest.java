// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.cluster.ClusterSnapshot;
import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.connect.BrokerState;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

/**
 * When the stock elector may leave an assignment alone: UNCLEAN elects the first live replica in assignment
 * order, so only the order of the live replicas matters — and it must equal the best-first order of the live ones.
 */
class ElectionVerificationTest {

    private static final TopicPartition TP = new TopicPartition("orders", 0);

    private static ElectionTarget designate(int leader, List<Integer> replicas, List<Integer> bestFirst) {
        return new ElectionTarget(TP, leader, 1, replicas, bestFirst, 100, 0);
    }

    @Test
    void dead_last_leader_first_then_designated_needs_no_reorder() {
        // [1,2,3], 1 down: UNCLEAN takes 2 either way, then 3 if 2 drops out — as best-first [2,3,1] would.
        assertThat(ElectionVerification.liveOrderIsBestFirst(designate(2, List.of(1, 2, 3), List.of(2, 3, 1)),
                List.of(1, 2, 3), Set.of(2, 3))).isTrue();
    }

    @Test
    void a_worse_live_replica_ahead_of_the_designated_one_needs_a_reorder() {
        // [1,3,2], 1 down: UNCLEAN would take 3, the shorter log.
        assertThat(ElectionVerification.liveOrderIsBestFirst(designate(2, List.of(1, 3, 2), List.of(2, 3, 1)),
                List.of(1, 3, 2), Set.of(2, 3))).isFalse();
    }

    @Test
    void the_fallback_order_matters_too() {
        // RF 4, 1 down: designated 2 is the first live replica, but after it 4 stands ahead of the better 3.
        assertThat(ElectionVerification.liveOrderIsBestFirst(designate(2, List.of(1, 2, 4, 3), List.of(2, 3, 4, 1)),
                List.of(1, 2, 4, 3), Set.of(2, 3, 4))).isFalse();
        assertThat(ElectionVerification.liveOrderIsBestFirst(designate(2, List.of(1, 2, 3, 4), List.of(2, 3, 4, 1)),
                List.of(1, 2, 3, 4), Set.of(2, 3, 4))).isTrue();
    }

    @Test
    void a_fenced_designated_broker_is_never_left_as_is() {
        assertThat(ElectionVerification.liveOrderIsBestFirst(designate(2, List.of(2, 3, 1), List.of(2, 3, 1)),
                List.of(2, 3, 1), Set.of(3))).isFalse();
    }

    @Test
    void the_recheck_names_whom_unclean_would_elect() {
        ElectionTarget target = designate(2, List.of(1, 3, 2), List.of(2, 3, 1));
        ClusterSnapshot notReordered = snapshot(List.of(1, 3, 2));
        assertThat(ElectionVerification.notReady(target, notReordered, true))
                .hasValueSatisfying(why -> assertThat(why).contains("not the first live replica", "UNCLEAN would elect 3"));
        assertThat(ElectionVerification.notReady(target, notReordered, false)).isEmpty();
        assertThat(ElectionVerification.notReady(target, snapshot(List.of(1, 2, 3)), true)).isEmpty();
        assertThat(ElectionVerification.notReady(target, snapshot(List.of(2, 3, 1)), true)).isEmpty();
    }

    /** Broker 1 fenced (the dead last leader), 2 and 3 live; the partition leaderless at epoch 1. */
    private static ClusterSnapshot snapshot(List<Integer> replicas) {
        TopicPartitionState offline = new TopicPartitionState(TP.topic(), Uuid.ZERO_UUID, TP.partition(),
                TopicPartitionState.NO_LEADER, 1, replicas, List.of(), List.of(), List.of(1), List.of());
        return new ClusterSnapshot("cluster", 1000, List.of(new BrokerState(1, "h", 1, null, true),
                new BrokerState(2, "h", 2, null, false), new BrokerState(3, "h", 3, null, false)), (short) 1,
                List.of(offline), Map.of(), Set.of());
    }
}
