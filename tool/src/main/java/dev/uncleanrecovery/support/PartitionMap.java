// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.support;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;

/**
 * The one way the tool keys data by partition when there are many: an unmodifiable map in topic/partition order,
 * held in two arrays and looked up by binary search, and {@link Key} for hash maps that are filled as they go. A
 * hash map keyed by {@link TopicPartition} suffers from its hash (31 × partition + the topic's hash), which collides
 * for numbered topics ({@code orders-01}, {@code orders-02}, ...): their names' hashes differ by small steps that
 * 31 × partition lines up with, so many partitions share a hash and a lookup walks a chain of equal-looking keys.
 */
public final class PartitionMap<V> extends AbstractMap<TopicPartition, V> {

    private final TopicPartition[] keys;
    private final Object[] values;
    private Set<Map.Entry<TopicPartition, V>> entrySet;

    private PartitionMap(TopicPartition[] keys, Object[] values) {
        this.keys = keys;
        this.values = values;
    }

    /** The entries of {@code map} in topic/partition order (returned as it is when already a PartitionMap). */
    public static <V> PartitionMap<V> copyOf(Map<TopicPartition, ? extends V> map) {
        if (map instanceof PartitionMap<?>) {
            @SuppressWarnings("unchecked")
            PartitionMap<V> same = (PartitionMap<V>) map;
            return same;
        }
        Builder<V> builder = new Builder<>(map.size());
        map.forEach(builder::put);
        return builder.build();
    }

    /** The same partitions (the key array is shared, not sorted again), each value replaced by {@code f} of it. */
    public <W> PartitionMap<W> mapValues(Function<? super V, ? extends W> f) {
        Object[] mapped = new Object[values.length];
        for (int i = 0; i < values.length; i++) {
            @SuppressWarnings("unchecked")
            V value = (V) values[i];
            mapped[i] = f.apply(value);
        }
        return new PartitionMap<>(keys, mapped);
    }

    /** Collects entries in any order; {@link #build} sorts them. Each partition may be put once. */
    public static final class Builder<V> {
        private final List<TopicPartition> keys;
        private final List<V> values;

        public Builder(int expectedSize) {
            keys = new ArrayList<>(expectedSize);
            values = new ArrayList<>(expectedSize);
        }

        public Builder<V> put(TopicPartition key, V value) {
            keys.add(key);
            values.add(value);
            return this;
        }

        public PartitionMap<V> build() {
            int n = keys.size();
            // Topics ranked once by name, then the entries sorted by (rank, partition) packed into one long.
            Map<String, Integer> rank = new HashMap<>();
            new TreeSet<>(keys.stream().map(TopicPartition::topic).toList()).forEach(t -> rank.put(t, rank.size()));
            long[] order = new long[n];
            boolean sorted = true;
            for (int i = 0; i < n; i++) {
                TopicPartition tp = keys.get(i);
                order[i] = ((long) rank.get(tp.topic()) << 32) | (tp.partition() & 0xFFFFFFFFL);
                sorted &= i == 0 || order[i - 1] < order[i];
            }
            TopicPartition[] sortedKeys = new TopicPartition[n];
            Object[] sortedValues = new Object[n];
            if (sorted) {
                keys.toArray(sortedKeys);
                values.toArray(sortedValues);
                return new PartitionMap<>(sortedKeys, sortedValues);
            }
            Integer[] byOrder = new Integer[n];
            Arrays.setAll(byOrder, i -> i);
            Arrays.sort(byOrder, (a, b) -> Long.compare(order[a], order[b]));
            for (int i = 0; i < n; i++) {
                sortedKeys[i] = keys.get(byOrder[i]);
                sortedValues[i] = values.get(byOrder[i]);
                if (i > 0 && order[byOrder[i - 1]] == order[byOrder[i]]) {
                    throw new IllegalArgumentException("partition " + sortedKeys[i] + " appears twice");
                }
            }
            return new PartitionMap<>(sortedKeys, sortedValues);
        }
    }

    /** A hash key for one partition that spreads topics apart (the topic's hash times an odd constant). */
    public record Key(String topic, int partition) {

        public static Key of(TopicPartition tp) {
            return new Key(tp.topic(), tp.partition());
        }

        @Override
        public int hashCode() {
            return topic.hashCode() * 0x9E3779B9 + partition;
        }
    }

    private int indexOf(Object key) {
        if (!(key instanceof TopicPartition tp)) {
            return -1;
        }
        int low = 0;
        int high = keys.length - 1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            TopicPartition k = keys[mid];
            int c = k.topic().compareTo(tp.topic());
            if (c == 0) {
                c = Integer.compare(k.partition(), tp.partition());
            }
            if (c < 0) {
                low = mid + 1;
            } else if (c > 0) {
                high = mid - 1;
            } else {
                return mid;
            }
        }
        return -1;
    }

    @Override
    @SuppressWarnings("unchecked")
    public V get(Object key) {
        int i = indexOf(key);
        return i < 0 ? null : (V) values[i];
    }

    @Override
    public boolean containsKey(Object key) {
        return indexOf(key) >= 0;
    }

    @Override
    public int size() {
        return keys.length;
    }

    @Override
    public Set<Map.Entry<TopicPartition, V>> entrySet() {
        if (entrySet == null) {
            entrySet = new AbstractSet<>() {
                @Override
                public Iterator<Map.Entry<TopicPartition, V>> iterator() {
                    return new Iterator<>() {
                        private int next;

                        @Override
                        public boolean hasNext() {
                            return next < keys.length;
                        }

                        @Override
                        @SuppressWarnings("unchecked")
                        public Map.Entry<TopicPartition, V> next() {
                            if (next >= keys.length) {
                                throw new NoSuchElementException();
                            }
                            Map.Entry<TopicPartition, V> entry = new SimpleImmutableEntry<>(keys[next], (V) values[next]);
                            next++;
                            return entry;
                        }
                    };
                }

                @Override
                public int size() {
                    return keys.length;
                }
            };
        }
        return entrySet;
    }
}
