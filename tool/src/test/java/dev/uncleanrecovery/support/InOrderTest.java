// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class InOrderTest {

    @Test
    void results_come_in_the_items_order_though_they_are_made_on_several_threads_out_of_order() {
        List<Integer> items = IntStream.range(0, 5_000).boxed().toList();
        Set<String> mappedOn = ConcurrentHashMap.newKeySet();
        List<Integer> completed = java.util.Collections.synchronizedList(new ArrayList<>());
        List<String> taken = new ArrayList<>();
        String caller = Thread.currentThread().getName();
        InOrder.map(items, 2_048, i -> {
            // uneven work, so that the threads finish items out of order
            LockSupport.parkNanos(ThreadLocalRandom.current().nextInt(20_000));
            mappedOn.add(Thread.currentThread().getName());
            completed.add(i);
            return "p" + i;
        }, (item, result) -> {
            assertThat(Thread.currentThread().getName()).isEqualTo(caller);
            assertThat(result).isEqualTo("p" + item);
            taken.add(result);
        });

        assertThat(taken).isEqualTo(items.stream().map(i -> "p" + i).toList());
        assertThat(mappedOn).as("the parallel path ran").hasSizeGreaterThan(1);
        assertThat(completed).as("made out of order").isNotEqualTo(items);
    }

    @Test
    void a_short_list_is_mapped_on_the_calling_thread() {
        List<Integer> items = IntStream.range(0, InOrder.PARALLEL_FROM - 1).boxed().toList();
        Set<String> mappedOn = ConcurrentHashMap.newKeySet();
        List<Integer> taken = new ArrayList<>();
        InOrder.map(items, 2_048, i -> {
            mappedOn.add(Thread.currentThread().getName());
            return i;
        }, (item, result) -> taken.add(result));

        assertThat(taken).isEqualTo(items);
        assertThat(mappedOn).containsExactly(Thread.currentThread().getName());
    }
}
