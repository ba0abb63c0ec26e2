// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.probe;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Requests sent during a fan-out, by broker and by kind (the protocol's request name, such as
 * {@code ListOffsets} or {@code Fetch}). Thread-safe; sources count as they send.
 */
public final class RequestCounts {

    private final ConcurrentHashMap<Integer, ConcurrentHashMap<String, LongAdder>> counts = new ConcurrentHashMap<>();

    public void record(int brokerId, String kind) {
        counts.computeIfAbsent(brokerId, b -> new ConcurrentHashMap<>())
                .computeIfAbsent(kind, k -> new LongAdder())
                .increment();
    }

    public long count(int brokerId, String kind) {
        Map<String, LongAdder> byKind = counts.get(brokerId);
        LongAdder adder = byKind == null ? null : byKind.get(kind);
        return adder == null ? 0 : adder.sum();
    }

    public long count(int brokerId) {
        Map<String, LongAdder> byKind = counts.get(brokerId);
        return byKind == null ? 0 : byKind.values().stream().mapToLong(LongAdder::sum).sum();
    }

    public long total(String kind) {
        return counts.keySet().stream().mapToLong(b -> count(b, kind)).sum();
    }

    public long total() {
        return counts.keySet().stream().mapToLong(this::count).sum();
    }

    /** A sorted copy: broker id, then kind, then count. */
    public Map<Integer, Map<String, Long>> byBroker() {
        Map<Integer, Map<String, Long>> copy = new TreeMap<>();
        counts.forEach((broker, byKind) -> {
            Map<String, Long> kinds = new TreeMap<>();
            byKind.forEach((kind, adder) -> kinds.put(kind, adder.sum()));
            copy.put(broker, kinds);
        });
        return copy;
    }

    /** A frozen copy, for a result that outlives the run. */
    public RequestCounts copy() {
        RequestCounts copy = new RequestCounts();
        counts.forEach((broker, byKind) -> byKind.forEach((kind, adder) -> {
            LongAdder target = copy.counts.computeIfAbsent(broker, b -> new ConcurrentHashMap<>())
                    .computeIfAbsent(kind, k -> new LongAdder());
            target.add(adder.sum());
        }));
        return copy;
    }

    @Override
    public String toString() {
        return byBroker().toString();
    }
}
