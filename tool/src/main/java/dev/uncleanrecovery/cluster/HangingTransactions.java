// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cluster;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.clients.admin.DescribeProducersOptions;
import org.apache.kafka.clients.admin.DescribeProducersResult;
import org.apache.kafka.clients.admin.DescribeTransactionsOptions;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;

/**
 * Open transactions that nothing will ever close, on partitions just elected, found the way {@code
 * kafka-transactions.sh find-hanging} finds them: the partition leader's producer state (DescribeProducers) shows a
 * producer with an open transaction, and its coordinator (ListTransactions, DescribeTransactions) either knows no
 * such producer, has moved on (another state, epoch or partition set), or has kept it open longer than
 * {@code transaction.max.timeout.ms}. An unclean election makes them: the commit or abort marker was on the replica
 * that lost, so the new leader's last stable offset stays at the transaction's first offset and read_committed
 * consumers stop there.
 */
public final class HangingTransactions {

    /** Kafka's default {@code transaction.max.timeout.ms} (15 min), when no broker says otherwise. */
    static final long DEFAULT_MAX_TIMEOUT_MS = 900_000;

    /** One hanging transaction on one partition; {@code startOffset} is where its first record is. */
    public record Hanging(TopicPartition topicPartition, long producerId, int producerEpoch, long startOffset,
                          String why) {

        /** What clears it: Kafka's own tool writes the abort marker the coordinator never will. */
        public String abortCommand(String bootstrapServer) {
            return "kafka-transactions.sh --bootstrap-server " + bootstrapServer + " abort --topic "
                    + topicPartition.topic() + " --partition " + topicPartition.partition() + " --start-offset "
                    + startOffset;
        }
    }

    /** @param unreadable what could not be checked, one line each */
    public record Result(List<Hanging> hanging, List<String> unreadable) {

        public Result {
            hanging = List.copyOf(hanging);
            unreadable = List.copyOf(unreadable);
        }
    }

    private HangingTransactions() {
    }

    /** The hanging transactions on {@code partitions}; every Admin call bounded by {@code timeout}. */
    public static Result find(Admin admin, Collection<TopicPartition> partitions, Duration timeout, Clock clock) {
        if (partitions.isEmpty()) {
            return new Result(List.of(), List.of());
        }
        List<String> unreadable = new ArrayList<>();
        DescribeProducersResult described = admin.describeProducers(partitions,
                new DescribeProducersOptions().timeoutMs(AdminCalls.millis(timeout)));
        Map<TopicPartition, List<ProducerState>> open = new TreeMap<>(Comparator.comparing(TopicPartition::toString));
        Map<String, List<TopicPartition>> failures = new TreeMap<>();
        for (TopicPartition tp : partitions) {
            try {
                List<ProducerState> producers = AdminCalls.get(described.partitionResult(tp), timeout).activeProducers().stream()
                        .filter(p -> p.currentTransactionStartOffset().isPresent()).toList();
                if (!producers.isEmpty()) {
                    open.put(tp, producers);
                }
            } catch (RuntimeException e) {
                failures.computeIfAbsent(AdminCalls.message(e), k -> new ArrayList<>()).add(tp);
            }
        }
        failures.forEach((error, tps) -> unreadable.add("producers of " + tps.size() + " partition(s) not read ("
                + error + "): " + tps.stream().limit(5).map(TopicPartition::toString).toList()
                + (tps.size() > 5 ? " ..." : "")));
        if (open.isEmpty()) {
            return new Result(List.of(), unreadable);
        }

        Set<Long> producerIds = new java.util.TreeSet<>();
        open.values().forEach(list -> list.forEach(p -> producerIds.add(p.producerId())));
        Map<Long, TransactionDescription> byProducer = new HashMap<>();
        Map<Long, String> transactionalIds = new HashMap<>();
        try {
            Collection<TransactionListing> listings = AdminCalls.get(admin.listTransactions(new ListTransactionsOptions()
                    .filterProducerIds(producerIds).timeoutMs(AdminCalls.millis(timeout))).all(), timeout);
            listings.forEach(l -> transactionalIds.put(l.producerId(), l.transactionalId()));
            if (!transactionalIds.isEmpty()) {
                Map<String, TransactionDescription> descriptions = AdminCalls.get(admin.describeTransactions(
                        transactionalIds.values(), new DescribeTransactionsOptions().timeoutMs(AdminCalls.millis(timeout))).all(),
                        timeout);
                transactionalIds.forEach((pid, tid) -> {
                    TransactionDescription d = descriptions.get(tid);
                    if (d != null) {
                        byProducer.put(pid, d);
                    }
                });
            }
        } catch (RuntimeException e) {
            unreadable.add("open transactions on " + open.size() + " partition(s) not checked with their coordinators: "
                    + AdminCalls.message(e) + "; run kafka-transactions.sh find-hanging");
            return new Result(List.of(), unreadable);
        }
        long maxTimeoutMs = maxTimeoutMs(admin, timeout);
        long now = clock.millis();

        List<Hanging> hanging = new ArrayList<>();
        open.forEach((tp, producers) -> {
            for (ProducerState p : producers) {
                long start = p.currentTransactionStartOffset().getAsLong();
                String tid = transactionalIds.get(p.producerId());
                TransactionDescription d = byProducer.get(p.producerId());
                String why = null;
                if (tid == null || d == null) {
                    why = "no transaction coordinator knows producer id " + p.producerId();
                } else if (!isOpen(d.state()) || d.producerEpoch() != p.producerEpoch() || !d.topicPartitions().contains(tp)) {
                    why = "its coordinator (broker " + d.coordinatorId() + ") has transaction '" + tid + "' "
                            + d.state() + " at producer epoch " + d.producerEpoch()
                            + (d.topicPartitions().contains(tp) ? "" : ", without this partition")
                            + ": the marker that closed it here was lost";
                } else if (p.lastTimestamp() >= 0 && now - p.lastTimestamp() > maxTimeoutMs) {
                    why = "transaction '" + tid + "' open for " + (now - p.lastTimestamp()) / 1000 + " s, longer than"
                            + " transaction.max.timeout.ms (" + maxTimeoutMs / 1000 + " s)";
                }
                if (why != null) {
                    hanging.add(new Hanging(tp, p.producerId(), p.producerEpoch(), start, why));
                }
            }
        });
        return new Result(hanging, unreadable);
    }

    private static boolean isOpen(TransactionState state) {
        return state == TransactionState.ONGOING || state == TransactionState.PREPARE_COMMIT
                || state == TransactionState.PREPARE_ABORT;
    }

    /** The brokers' {@code transaction.max.timeout.ms} (one broker asked); Kafka's default when it cannot be read. */
    private static long maxTimeoutMs(Admin admin, Duration timeout) {
        try {
            Collection<Node> nodes = AdminCalls.get(admin.describeCluster().nodes(), timeout);
            if (nodes.isEmpty()) {
                return DEFAULT_MAX_TIMEOUT_MS;
            }
            ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, nodes.iterator().next().idString());
            Config config = AdminCalls.get(admin.describeConfigs(List.of(broker), new DescribeConfigsOptions()
                    .timeoutMs(AdminCalls.millis(timeout))).all(), timeout).get(broker);
            ConfigEntry entry = config == null ? null : config.get("transaction.max.timeout.ms");
            return entry == null || entry.value() == null ? DEFAULT_MAX_TIMEOUT_MS : Long.parseLong(entry.value());
        } catch (RuntimeException e) {
            return DEFAULT_MAX_TIMEOUT_MS;
        }
    }
}
