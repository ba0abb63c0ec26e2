// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.support;

import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Function;

/** Work that depends on each item alone, done on every core, whose results are taken in the items' order. */
public final class InOrder {

    /** A chunk shorter than this is mapped on the calling thread: the fork costs more than it saves. */
    static final int PARALLEL_FROM = 128;

    private InOrder() {
    }

    /**
     * Maps {@code items} a chunk at a time (on every core from {@link #PARALLEL_FROM} items) and hands each item with
     * its result to {@code sink}, in the items' order, on the calling thread: only a chunk's results are held at once.
     */
    public static <T, R> void map(List<T> items, int chunk, Function<T, R> mapper, BiConsumer<T, R> sink) {
        for (int from = 0; from < items.size(); from += chunk) {
            List<T> part = items.subList(from, Math.min(items.size(), from + chunk));
            // toList() of a parallel stream keeps the encounter order
            List<R> mapped = part.size() < PARALLEL_FROM ? part.stream().map(mapper).toList()
                    : part.parallelStream().map(mapper).toList();
            for (int i = 0; i < part.size(); i++) {
                sink.accept(part.get(i), mapped.get(i));
            }
        }
    }
}
