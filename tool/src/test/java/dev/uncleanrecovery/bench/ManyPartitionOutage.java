// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.bench;

import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.RoundProducer;
import dev.uncleanrecovery.localcluster.StopMode;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import java.util.function.IntToLongFunction;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.ElectionNotNeededException;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * KIP-966's "last replica standing" outage on many partitions at once, after the leader changes real outages have
 * before the last replica goes:
 *
 * <ul>
 *   <li>RF 3 on brokers 1–3 in the given replica orders; min.insync.replicas=2, unclean off;</li>
 *   <li>{@link Writes#epochs()} leader epochs: the first led by each partition's first replica, the last by broker 1,
 *       any between by broker 2 or 3 (another than the one before); each move a reorder that puts the new leader
 *       first and a preferred election. Every epoch but the last gets records acks=all on all three replicas;</li>
 *   <li>in the last: records acks=all on all three for some partitions; kill -9 broker 3; records acks=all (3 misses
 *       them); kill -9 broker 2; records acks=1 (broker 1's alone); kill -9 broker 1 (the sole LastKnownELR member);
 *       </li>
 *   <li>restart 3 and 2: every partition is offline; the orders as created again (a reorder of partitions without a
 *       leader). Broker 2 holds the most records, of the latest epoch; broker 3 fewer, of an older epoch on most.</li>
 * </ul>
 *
 * The writes of {@link Writes#threeEpochs()} also leave what production clusters hold: consumer groups that committed
 * offsets ({@code __consumer_offsets}) and a transactional producer's committed transaction
 * ({@code __transaction_state}); their partitions go offline with the rest. Waits are per topic (one describe for all
 * partitions), so 5,000 partitions cost no more round trips than 5.
 */
final class ManyPartitionOutage {

    static final int LAST_LEADER = 1;
    static final int LONGEST = 2;
    static final int SHORTEST = 3;
    private static final Duration STEP_TIMEOUT = Duration.ofSeconds(180);
    /** Every order of brokers 1–3: partition p gets {@code ORDERS.get(p % 6)}. */
    private static final List<List<Integer>> ORDERS = List.of(List.of(1, 2, 3), List.of(1, 3, 2), List.of(2, 1, 3),
            List.of(2, 3, 1), List.of(3, 1, 2), List.of(3, 2, 1));
    /** The consumer groups committing offsets on the outage's partitions, and the transactional producer's id. */
    static final List<String> GROUPS = List.of("bench-readers-0", "bench-readers-1", "bench-readers-2");
    static final String TRANSACTIONAL_ID = "bench-transactions";
    /** The partitions of the first topic the transaction writes to, one record each. */
    private static final int TRANSACTION_PARTITIONS = 10;

    /**
     * How many records each partition gets at each step (a step that writes none anywhere is left out).
     *
     * @param epochs leader epochs with records, broker 1's the last; 1 leaves the leaders as created (broker 1 first)
     */
    record Writes(int epochs, EpochCount whileAllFollow, IntToLongFunction withoutShortest, long leaderOnly,
                  boolean groupsAndTransactions) {

        /** Records acks=all in an epoch, on all three replicas; the last epoch's before broker 3 is killed. */
        @FunctionalInterface
        interface EpochCount {
            long records(int epoch, int partition);
        }

        /** Every record in one epoch led by broker 1: {@code perRound} on all three and on 1 and 2, then 1's own. */
        static Writes singleEpoch(long perRound, long leaderOnly) {
            return new Writes(1, (epoch, p) -> perRound, p -> perRound, leaderOnly, false);
        }

        /**
         * 10–19 records a partition over three epochs, varying by partition: 3–5 in each of the first two; in the
         * last, 1–2 on all three replicas for a third of the partitions (broker 3 then holds the last epoch too),
         * 3–6 once broker 3 is down, and one of broker 1's alone; with groups and a transaction.
         */
        static Writes threeEpochs() {
            return new Writes(3, (epoch, p) -> switch (epoch) {
                case 0 -> 3L + p % 3;
                case 1 -> 3L + (p / 3) % 3;
                default -> (p / 6) % 3 == 0 ? 1L + (p / 18) % 2 : 0L;
            }, p -> 3L + (p / 7) % 4, 1, true);
        }
    }

    /**
     * What each surviving replica holds, per partition, as the brokers acknowledged it.
     *
     * @param longestEnds  broker 2's log end offset of each partition (the high watermark before broker 2 was killed)
     * @param shortestEnds broker 3's (the high watermark before broker 3 was killed)
     */
    record Outage(String topic, int partitions, long[] longestEnds, long[] shortestEnds) {

        long logEndOffset(int partition, int broker) {
            return broker == LONGEST ? longestEnds[partition] : broker == SHORTEST ? shortestEnds[partition] : -1;
        }

        long bestLogEndOffset(int partition) {
            return longestEnds[partition];
        }
    }

    private ManyPartitionOutage() {
    }

    /** Every order of brokers 1–3 in turn: where the best log stands differs from partition to partition. */
    static List<Integer> assignment(int partition) {
        return ORDERS.get(partition % ORDERS.size());
    }

    /**
     * The outage on every partition of several topics of {@code partitions} each: one CreateTopics makes at most
     * 9,999 partitions (the controller writes a record per partition and one for the topic, at most 10,000), and each
     * reorder and election goes topic by topic for the same reason.
     *
     * @param assignment each partition's replicas: {@link #assignment} cycles through every order; with one epoch the
     *                   first replica must be broker 1 ([1,3,2] for all puts the shorter log first everywhere, so every
     *                   partition needs the stock elector's reorder)
     */
    static List<Outage> reproduce(LocalKafkaCluster cluster, List<String> topics, int partitions,
                                  IntFunction<List<Integer>> assignment, Writes writes, Consumer<String> progress) {
        // each step on 5,000 partitions takes up to a minute on 2 cores
        Duration step = STEP_TIMEOUT.multipliedBy(Math.max(1, (topics.size() * (long) partitions + 4_999) / 5_000));
        Map<Integer, List<Integer>> created = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            created.put(p, assignment.apply(p));
        }
        if (writes.epochs() == 1 && created.values().stream().anyMatch(order -> order.get(0) != LAST_LEADER)) {
            throw new IllegalArgumentException("one epoch is led by the first replica, which must be broker 1");
        }
        try (Admin admin = cluster.createAdmin()) {
            for (String topic : topics) {
                admin.createTopics(List.of(new NewTopic(topic, created).configs(Map.of(
                        TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, "2",
                        TopicConfig.UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG, "false")))).all().get();
            }
            awaitAll(admin, topics, partitions, "its first replica leading a full ISR",
                    (p, info) -> leaderOf(info) == created.get(p).get(0) && info.isr().size() == 3, step);
            awaitLogsCreated(cluster, topics, partitions, step);

            int total = topics.size() * partitions;
            Map<Integer, Integer> leaders = new HashMap<>();
            created.forEach((p, order) -> leaders.put(p, order.get(0)));
            Map<Integer, List<Integer>> orders = new HashMap<>(created);
            int last = writes.epochs() - 1;
            for (int epoch = 0; epoch <= last; epoch++) {
                if (epoch > 0) {
                    Map<Integer, Integer> next = nextLeaders(leaders, created, epoch == last);
                    progress.accept("leader epoch " + (epoch + 1) + " of " + writes.epochs() + ": a reorder and a"
                            + " preferred election lead with " + describeLeaders(next));
                    moveLeaders(admin, topics, partitions, next, orders, step);
                    leaders.putAll(next);
                }
                int e = epoch;
                progress.accept(total + " partitions: records acks=all on all three replicas, leader epoch "
                        + (epoch + 1));
                produce(cluster, topics, partitions, p -> writes.whileAllFollow().records(e, p), "all",
                        "epoch-" + epoch);
                if (writes.groupsAndTransactions() && epoch < last) {
                    if (epoch == last - 1) {
                        commitTransaction(cluster, new TopicPartition(topics.get(0), 0));
                    }
                    commitGroupOffsets(admin, GROUPS.get(epoch), topics, partitions, p -> true);
                    if (epoch == last - 1) {
                        commitGroupOffsets(admin, GROUPS.get(GROUPS.size() - 1), topics, partitions, p -> p % 2 == 0);
                    }
                }
            }
            // acks=all with every replica in the ISR: each holds what the leader's high watermark says
            Map<String, long[]> shortestEnds = highWatermarks(admin, topics, partitions);

            progress.accept("kill -9 broker " + SHORTEST);
            cluster.stopBroker(SHORTEST, StopMode.ABRUPT);
            cluster.metadata().awaitBrokerFenced(SHORTEST);
            awaitAll(admin, topics, partitions, "ISR without 3",
                    (p, info) -> info.isr().stream().noneMatch(n -> n.id() == SHORTEST), step);
            produce(cluster, topics, partitions, writes.withoutShortest(), "all", "without-3");
            Map<String, long[]> longestEnds = highWatermarks(admin, topics, partitions);

            progress.accept("kill -9 broker " + LONGEST);
            cluster.stopBroker(LONGEST, StopMode.ABRUPT);
            cluster.metadata().awaitBrokerFenced(LONGEST);
            awaitAll(admin, topics, partitions, "ISR [1]",
                    (p, info) -> info.isr().size() == 1 && info.isr().get(0).id() == LAST_LEADER, step);
            if (writes.leaderOnly() > 0) {
                produce(cluster, topics, partitions, p -> writes.leaderOnly(), "1", "leader-only");
            }

            progress.accept("kill -9 broker " + LAST_LEADER + " (its disk is lost); restarting 3 and 2");
            cluster.stopBroker(LAST_LEADER, StopMode.ABRUPT);
            cluster.metadata().awaitBrokerFenced(LAST_LEADER);
            cluster.startBroker(SHORTEST);
            cluster.startBroker(LONGEST);
            cluster.metadata().awaitBrokerUnfenced(SHORTEST, step);
            cluster.metadata().awaitBrokerUnfenced(LONGEST, step);
            if (writes.epochs() > 1) {
                // the controller reorders a partition without leader at once (its replica set stays the same), and
                // elects none: unclean election is off
                reorder(admin, topics, partitions, created, step);
            }
            awaitAll(admin, topics, partitions, "offline", (p, info) -> leaderOf(info) < 0, step);
            return topics.stream().map(topic -> new Outage(topic, partitions, longestEnds.get(topic),
                    shortestEnds.get(topic))).toList();
        } catch (ExecutionException e) {
            throw new IllegalStateException("outage set-up failed: " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /**
     * The next epoch's leader of each partition: broker 1 in the last; before it, broker 2 or 3, another than the one
     * leading now (where broker 1 leads now, the first of 2 and 3 in the partition's order).
     */
    private static Map<Integer, Integer> nextLeaders(Map<Integer, Integer> leaders, Map<Integer, List<Integer>> created,
                                                     boolean last) {
        Map<Integer, Integer> next = new HashMap<>();
        leaders.forEach((p, leader) -> {
            int chosen = last ? LAST_LEADER : leader == LONGEST ? SHORTEST : leader == SHORTEST ? LONGEST
                    : created.get(p).stream().filter(b -> b != LAST_LEADER).findFirst().orElseThrow();
            if (chosen != leader) {
                next.put(p, chosen);
            }
        });
        return next;
    }

    private static String describeLeaders(Map<Integer, Integer> leaders) {
        Map<Integer, Long> counts = new TreeMap<>(leaders.values().stream()
                .collect(Collectors.groupingBy(b -> b, Collectors.counting())));
        return counts.entrySet().stream().map(e -> "broker " + e.getKey() + " on " + e.getValue())
                .collect(Collectors.joining(", ")) + " of each topic's partitions";
    }

    /**
     * Each partition of {@code next} led by its broker: reordered with it first (the others as in {@code orders},
     * which then holds the new orders), then a preferred election.
     */
    private static void moveLeaders(Admin admin, List<String> topics, int partitions, Map<Integer, Integer> next,
                                    Map<Integer, List<Integer>> orders, Duration step)
            throws ExecutionException, InterruptedException {
        Map<Integer, List<Integer>> reordered = new HashMap<>();
        next.forEach((p, leader) -> {
            List<Integer> order = new ArrayList<>(List.of(leader));
            orders.get(p).stream().filter(b -> !b.equals(leader)).forEach(order::add);
            reordered.put(p, order);
        });
        reorder(admin, topics, partitions, reordered, step);
        orders.putAll(reordered);
        for (String topic : topics) {
            Set<TopicPartition> moving = next.keySet().stream().map(p -> new TopicPartition(topic, p))
                    .collect(Collectors.toSet());
            admin.electLeaders(ElectionType.PREFERRED, moving).partitions().get().forEach((tp, failure) -> {
                if (failure.isPresent() && !(failure.get() instanceof ElectionNotNeededException)) {
                    throw new IllegalStateException("preferred election of " + tp + " failed: " + failure.get());
                }
            });
        }
        awaitAll(admin, topics, partitions, "the next epoch's leader",
                (p, info) -> !next.containsKey(p) || leaderOf(info) == next.get(p), step);
    }

    /** The partitions of {@code orders} get those replica orders (the same replicas: no data moves). */
    private static void reorder(Admin admin, List<String> topics, int partitions, Map<Integer, List<Integer>> orders,
                                Duration step) throws ExecutionException, InterruptedException {
        for (String topic : topics) {
            Map<TopicPartition, Optional<NewPartitionReassignment>> reorders = new LinkedHashMap<>();
            orders.forEach((p, order) -> reorders.put(new TopicPartition(topic, p),
                    Optional.of(new NewPartitionReassignment(order))));
            admin.alterPartitionReassignments(reorders).all().get();
        }
        awaitAll(admin, topics, partitions, "its new replica order", (p, info) -> !orders.containsKey(p)
                || info.replicas().stream().map(n -> n.id()).toList().equals(orders.get(p)), step);
    }

    /** Each partition's high watermark, per topic: ListOffsets LATEST answers it (read_uncommitted). */
    private static Map<String, long[]> highWatermarks(Admin admin, List<String> topics, int partitions)
            throws ExecutionException, InterruptedException {
        Map<String, long[]> ends = new HashMap<>();
        for (String topic : topics) {
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            IntStream.range(0, partitions).forEach(p -> latest.put(new TopicPartition(topic, p), OffsetSpec.latest()));
            long[] offsets = new long[partitions];
            admin.listOffsets(latest).all().get().forEach((tp, info) -> offsets[tp.partition()] = info.offset());
            ends.put(topic, offsets);
        }
        return ends;
    }

    /**
     * {@code group} commits, on the partitions {@code which} keeps, their end offsets now, with the leader epoch
     * ListOffsets gives with them: what a consumer that has read everything commits (KIP-320).
     */
    private static void commitGroupOffsets(Admin admin, String group, List<String> topics, int partitions,
                                           Predicate<Integer> which) throws ExecutionException, InterruptedException {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (String topic : topics) {
            IntStream.range(0, partitions).filter(which::test)
                    .forEach(p -> latest.put(new TopicPartition(topic, p), OffsetSpec.latest()));
        }
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends = admin.listOffsets(latest).all().get();
        // The group coordinator writes one commit's offsets as one batch to __consumer_offsets, refused past its
        // 1 MiB max.message.bytes (about 19,500 offsets): commit in parts of at most 5,000.
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (Map.Entry<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> end : ends.entrySet()) {
            offsets.put(end.getKey(), new OffsetAndMetadata(end.getValue().offset(), end.getValue().leaderEpoch(), ""));
            if (offsets.size() == 5_000) {
                admin.alterConsumerGroupOffsets(group, offsets).all().get();
                offsets.clear();
            }
        }
        if (!offsets.isEmpty()) {
            admin.alterConsumerGroupOffsets(group, offsets).all().get();
        }
    }

    /** A transactional producer writes one record to each of the first partitions of the topic and commits. */
    private static void commitTransaction(LocalKafkaCluster cluster, TopicPartition first) {
        Properties props = new Properties();
        props.putAll(cluster.clientProperties());
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, TRANSACTIONAL_ID);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props, new StringSerializer(),
                new StringSerializer())) {
            producer.initTransactions();
            producer.beginTransaction();
            for (int p = first.partition(); p < first.partition() + TRANSACTION_PARTITIONS; p++) {
                producer.send(new ProducerRecord<>(first.topic(), p, TRANSACTIONAL_ID, "committed"));
            }
            producer.commitTransaction();
        }
    }

    static int leaderOf(TopicPartitionInfo p) {
        return p.leader() == null || p.leader().isEmpty() ? -1 : p.leader().id();
    }

    static List<TopicPartitionInfo> describe(Admin admin, String topic) throws ExecutionException, InterruptedException {
        TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
        return d.partitions();
    }

    /** What a partition must show for a step to be done, by its index in the topic. */
    @FunctionalInterface
    private interface Reached {
        boolean test(int partition, TopicPartitionInfo info);
    }

    private static void awaitAll(Admin admin, List<String> topics, int partitions, String what, Reached done,
                                 Duration timeout) throws InterruptedException {
        for (String topic : topics) {
            awaitUntil(250, timeout, () -> {
                List<TopicPartitionInfo> all;
                try {
                    all = describe(admin, topic);
                } catch (ExecutionException e) {
                    all = List.of(); // just created: the brokers' metadata may not have it yet
                }
                long ok = all.stream().filter(info -> done.test(info.partition(), info)).count();
                return all.size() == partitions && ok == partitions ? null
                        : topic + ": only " + ok + " of " + partitions + " partitions reached '" + what + "'";
            });
        }
    }

    /**
     * The controller shows leader and a full ISR as soon as it has created the partitions; each broker creates their
     * logs afterwards, which can take over a minute for thousands of partitions on 2 cores. An idempotent producer
     * writing to partitions still being created can end in OutOfOrderSequence until its batch expires, so wait until
     * every broker has a log directory for every partition (RF 3 on 3 brokers).
     */
    private static void awaitLogsCreated(LocalKafkaCluster cluster, List<String> topics, int partitions,
                                         Duration timeout) throws InterruptedException {
        for (int broker : List.of(LAST_LEADER, LONGEST, SHORTEST)) {
            for (String topic : topics) {
                awaitUntil(500, timeout, () -> {
                    long created = IntStream.range(0, partitions)
                            .filter(p -> Files.isDirectory(cluster.disk().replicaDirectory(broker,
                                    new TopicPartition(topic, p))))
                            .count();
                    return created == partitions ? null
                            : "broker " + broker + " created only " + created + " of " + partitions + " logs of " + topic;
                });
            }
        }
    }

    /** What a set-up step still misses, or null once it is done. */
    @FunctionalInterface
    private interface Shortfall {
        String get() throws InterruptedException;
    }

    /**
     * Polls until {@code shortfall} answers null (done), at most {@code timeout}.
     *
     * @param shortfall what is still missing, or null once done; its last answer is the timeout's message
     */
    private static void awaitUntil(long pollMs, Duration timeout, Shortfall shortfall) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        String missing;
        while ((missing = shortfall.get()) != null) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(missing + " within " + timeout.toSeconds() + " s");
            }
            Thread.sleep(pollMs);
        }
    }

    /** Each partition gets {@code count} records of its own: one producer a count, the partitions of that count. */
    private static void produce(LocalKafkaCluster cluster, List<String> topics, int partitions,
                                IntToLongFunction count, String acks, String round) {
        Map<Long, List<TopicPartition>> byCount = new TreeMap<>();
        for (String topic : topics) {
            for (int p = 0; p < partitions; p++) {
                long records = count.applyAsLong(p);
                if (records > 0) {
                    byCount.computeIfAbsent(records, c -> new ArrayList<>()).add(new TopicPartition(topic, p));
                }
            }
        }
        // Thousands of partitions at once on a small machine: batches need minutes, not the outage's 30 s.
        byCount.forEach((records, tps) -> RoundProducer.produce(cluster, tps, records, acks, round,
                Duration.ofMinutes(5)));
    }
}
