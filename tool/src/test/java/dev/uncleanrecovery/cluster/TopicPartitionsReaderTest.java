// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import java.util.List;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

/** How the answers of several brokers are merged when waiting for new leaders. */
class TopicPartitionsReaderTest {

    private static final Uuid ORDERS = Uuid.randomUuid();

    @Test
    void the_highest_leader_epoch_wins_whichever_broker_said_it() {
        // Broker A has not yet learned that partition 0 got leader 3 at epoch 5; broker B has not learned partition 1's.
        List<TopicPartitionState> fromA = List.of(state(0, -1, 4), state(1, 2, 8));
        List<TopicPartitionState> fromB = List.of(state(0, 3, 5), state(1, -1, 7));

        List<TopicPartitionState> merged = TopicPartitionsReader.newestOf(List.of(fromA, fromB));

        assertThat(merged).extracting(TopicPartitionState::partition, TopicPartitionState::leader, TopicPartitionState::leaderEpoch)
                .containsExactly(tuple(0, 3, 5), tuple(1, 2, 8));
        assertThat(TopicPartitionsReader.newestOf(List.of(fromB, fromA))).containsExactlyInAnyOrderElementsOf(merged);
    }

    @Test
    void on_a_tie_the_first_answer_is_kept_and_partitions_only_one_broker_knows_are_kept_too() {
        TopicPartitionState first = state(0, 2, 6);
        TopicPartitionState sameEpochOtherView = new TopicPartitionState("orders", ORDERS, 0, 2, 6, List.of(2, 3, 1),
                List.of(2), List.of(), List.of(), List.of());

        List<TopicPartitionState> merged = TopicPartitionsReader.newestOf(List.of(List.of(first), List.of(sameEpochOtherView, state(9, 1, 0))));

        assertThat(merged).containsExactly(first, state(9, 1, 0));
    }

    private static TopicPartitionState state(int partition, int leader, int leaderEpoch) {
        return new TopicPartitionState("orders", ORDERS, partition, leader, leaderEpoch, List.of(1, 2, 3),
                leader < 0 ? List.of() : List.of(leader), List.of(), List.of(), leader < 0 ? List.of(1) : List.of());
    }
}
