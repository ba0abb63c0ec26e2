// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.bench;

import dev.uncleanrecovery.cluster.ClusterDiscovery;
import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.connect.BrokerState;
import dev.uncleanrecovery.connect.ClientProperties;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;

/**
 * When each partition of an outage is led as clients see it: every live (registered, unfenced) broker, asked on its
 * own (DescribeTopicPartitions sent to it alone), shows it a leader. Right after a large election one broker's
 * metadata lags another's by seconds, and a client asking it still sees no leader. Each poll asks every live broker
 * for the partitions not led yet, at once; a partition is led at the poll in which every live broker showed a leader.
 */
final class LeaderWatch implements AutoCloseable {

    /**
     * Each poll describes the partitions not led yet on every live broker, on the cores the contender and the brokers
     * share: polling often would slow what is measured. 250 ms costs each time its precision (±250 ms).
     */
    static final long INTERVAL_MS = 250;

    private final ClusterDiscovery discovery;
    private final Set<TopicPartition> waiting;
    private final Map<TopicPartition, Long> ledAt = new HashMap<>();
    private final int partitions;

    LeaderWatch(String bootstrapServers, Set<TopicPartition> partitions) {
        this.discovery = new ClusterDiscovery(ClientProperties.load(bootstrapServers, null, 10_000), 10_000);
        this.waiting = new HashSet<>(partitions);
        this.partitions = partitions.size();
    }

    /** Polls every INTERVAL_MS until every partition is led, or until interrupted (bounded: 10 minutes). */
    void watch() {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
        while (!waiting.isEmpty() && System.nanoTime() < deadline && !Thread.currentThread().isInterrupted()) {
            try {
                poll();
                Thread.sleep(INTERVAL_MS);
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                // a broker restarting or a transient metadata error: poll again
            }
        }
    }

    private void poll() throws InterruptedException {
        List<Integer> live = discovery.brokers().stream().filter(b -> !b.fenced()).map(BrokerState::id).toList();
        Set<TopicPartition> asked = Set.copyOf(waiting);
        List<CompletableFuture<List<TopicPartitionState>>> answers = live.stream()
                .map(b -> discovery.describeOn(b, asked)).toList();
        Map<TopicPartition, Integer> shownBy = new HashMap<>();
        for (CompletableFuture<List<TopicPartitionState>> answer : answers) {
            try {
                answer.get(10, TimeUnit.SECONDS).stream().filter(p -> !p.isOffline())
                        .forEach(p -> shownBy.merge(p.topicPartition(), 1, Integer::sum));
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                return; // a broker that did not answer shows nothing: no partition is led by this poll
            }
        }
        long now = System.nanoTime();
        shownBy.forEach((tp, brokers) -> {
            if (brokers == live.size() && waiting.remove(tp)) {
                ledAt.put(tp, now);
            }
        });
    }

    /** Milliseconds from {@code launchNanos} until the first, the median and the last partition was led; -1: never. */
    long[] ledMillis(long launchNanos) {
        if (ledAt.isEmpty()) {
            return new long[] {-1, -1, -1};
        }
        long[] sorted = ledAt.values().stream().mapToLong(t -> (t - launchNanos) / 1_000_000).sorted().toArray();
        long first = sorted[0];
        // the median of all partitions: led only when at least half of them were
        long median = sorted.length * 2 >= partitions ? sorted[(partitions - 1) / 2] : -1;
        long all = waiting.isEmpty() ? sorted[sorted.length - 1] : -1;
        return Arrays.copyOf(new long[] {first, median, all}, 3);
    }

    @Override
    public void close() {
        discovery.close();
    }
}
