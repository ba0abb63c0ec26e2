// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class PartitionMapTest {

    @Test
    void entries_come_out_in_topic_then_partition_order_and_each_is_found_again() {
        List<TopicPartition> all = new ArrayList<>();
        for (int t = 0; t < 30; t++) {
            for (int p = 0; p < 120; p++) {
                all.add(new TopicPartition(String.format("sim-%04d", t), p)); // numbered topics: TopicPartition hashes collide
            }
        }
        all.add(new TopicPartition("orders", 7));
        all.add(new TopicPartition("orders", 10));
        Collections.shuffle(all, new Random(42));
        PartitionMap.Builder<String> builder = new PartitionMap.Builder<>(all.size());
        all.forEach(tp -> builder.put(tp, tp.toString()));

        PartitionMap<String> map = builder.build();

        TreeMap<String, TreeMap<Integer, String>> expected = new TreeMap<>();
        all.forEach(tp -> expected.computeIfAbsent(tp.topic(), k -> new TreeMap<>()).put(tp.partition(), tp.toString()));
        List<String> expectedOrder = new ArrayList<>();
        expected.values().forEach(byPartition -> expectedOrder.addAll(byPartition.values()));
        assertThat(new ArrayList<>(map.values())).containsExactlyElementsOf(expectedOrder);
        assertThat(map).hasSize(all.size());
        for (TopicPartition tp : all) {
            assertThat(map.get(new TopicPartition(new String(tp.topic()), tp.partition()))).isEqualTo(tp.toString());
        }
        assertThat(map.containsKey(new TopicPartition("orders", 8))).isFalse();
        assertThat(map.get(new TopicPartition("sim-9999", 0))).isNull();
        assertThat(map.get("orders-7")).isNull();
        assertThat(map).isEqualTo(new HashMap<>(map));
    }

    @Test
    void mapped_values_keep_the_order_and_the_lookups() {
        PartitionMap<Integer> lengths = new PartitionMap.Builder<Integer>(3)
                .put(new TopicPartition("b", 1), 10).put(new TopicPartition("a", 7), 20).put(new TopicPartition("a", 0), 30)
                .build();
        PartitionMap<String> named = lengths.mapValues(n -> "n" + n);
        assertThat(named.keySet()).containsExactly(new TopicPartition("a", 0), new TopicPartition("a", 7),
                new TopicPartition("b", 1));
        assertThat(named.values()).containsExactly("n30", "n20", "n10");
        assertThat(named.get(new TopicPartition("a", 7))).isEqualTo("n20");
        assertThat(lengths.get(new TopicPartition("a", 7))).isEqualTo(20);
    }

    @Test
    void a_partition_put_twice_is_refused_and_a_partition_map_is_not_copied_again() {
        PartitionMap.Builder<Integer> twice = new PartitionMap.Builder<Integer>(3)
                .put(new TopicPartition("b", 1), 1).put(new TopicPartition("a", 0), 2).put(new TopicPartition("b", 1), 3);
        assertThatThrownBy(twice::build).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("b-1");

        PartitionMap<Integer> map = PartitionMap.copyOf(Map.of(new TopicPartition("b", 0), 1, new TopicPartition("a", 5), 2));
        assertThat(map.keySet()).containsExactly(new TopicPartition("a", 5), new TopicPartition("b", 0));
        assertThat(PartitionMap.copyOf(map)).isSameAs(map);
        assertThatThrownBy(() -> map.put(new TopicPartition("c", 0), 3)).isInstanceOf(UnsupportedOperationException.class);
    }
}
