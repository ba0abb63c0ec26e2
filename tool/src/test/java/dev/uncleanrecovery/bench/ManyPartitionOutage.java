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
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import java.util.function.Predicate;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.TopicConfig;

/**
 * KIP-966's "last replica standing" outage on many partitions at once, with the best log first in
 * assignment order for half of them only:
 *
 * <ul>
 *   <li>even partitions [1,3,2], odd partitions [1,2,3]; leader 1, min.insync.replicas=2, unclean off;</li>
 *   <li>{@code perRound} records acks=all; kill -9 broker 3; {@code perRound} more acks=all (3 misses them);
 *       kill -9 broker 2; {@code leaderOnly} records acks=1; kill -9 broker 1 (the sole LastKnownELR member);</li>
 *   <li>restart 3 and 2: every partition is offline, 2 holds 2×perRound records, 3 holds perRound.</li>
 * </ul>
 *
 * Kafka's UNCLEAN election picks the first live replica in assignment order: 3 on even partitions (losing
 * perRound records each), 2 on odd ones. Waits are per topic (one describe for all partitions), so 5,000
 * partitions cost no more round trips than 5.
 */
final class ManyPartitionOutage {

    static final int LAST_LEADER = 1;
    static final int LONGEST = 2;
    static final int SHORTEST = 3;
    private static final Duration STEP_TIMEOUT = Duration.ofSeconds(180);

    /** What each surviving replica holds, per partition. */
    record Outage(String topic, int partitions, long perRound) {
        long logEndOffset(int broker) {
            return broker == LONGEST ? 2 * perRound : broker == SHORTEST ? perRound : -1;
        }

        long bestLogEndOffset() {
            return logEndOffset(LONGEST);
        }
    }

    private ManyPartitionOutage() {
    }

    static List<Integer> assignment(int partition) {
        return partition % 2 == 0 ? List.of(LAST_LEADER, SHORTEST, LONGEST) : List.of(LAST_LEADER, LONGEST, SHORTEST);
    }

    static Outage reproduce(LocalKafkaCluster cluster, String topic, int partitions, long perRound, long leaderOnly,
                            Consumer<String> progress) {
        return reproduce(cluster, List.of(topic), partitions, ManyPartitionOutage::assignment, perRound, leaderOnly,
                progress).get(0);
    }

    /**
     * The outage on every partition of several topics of {@code partitions} each: one CreateTopics makes at most
     * 9,999 partitions (the controller writes a record per partition and one for the topic, at most 10,000).
     *
     * @param assignment each partition's replicas: {@link #assignment} alternates the best log's place, [1,3,2] for
     *                   all puts the shorter log first everywhere (every partition needs the stock elector's reorder)
     */
    static List<Outage> reproduce(LocalKafkaCluster cluster, List<String> topics, int partitions,
                                  IntFunction<List<Integer>> assignment, long perRound, long leaderOnly,
                                  Consumer<String> progress) {
        // each step on 5,000 partitions takes up to a minute on 2 cores
        Duration step = STEP_TIMEOUT.multipliedBy(Math.max(1, (topics.size() * (long) partitions + 4_999) / 5_000));
        try (Admin admin = cluster.createAdmin()) {
            Map<Integer, List<Integer>> assignments = new HashMap<>();
            for (int p = 0; p < partitions; p++) {
                assignments.put(p, assignment.apply(p));
            }
            for (String topic : topics) {
                admin.createTopics(List.of(new NewTopic(topic, assignments).configs(Map.of(
                        TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, "2",
                        TopicConfig.UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG, "false")))).all().get();
            }
            awaitAll(admin, topics, partitions, "leader 1 with a full ISR",
                    p -> leaderOf(p) == LAST_LEADER && p.isr().size() == 3, step);
            awaitLogsCreated(cluster, topics, partitions, step);

            int total = topics.size() * partitions;
            progress.accept(total + " partitions: " + perRound + " record(s) each, acks=all");
            produce(cluster, topics, partitions, perRound, "all", "round-1");

            progress.accept("kill -9 broker " + SHORTEST);
            cluster.stopBroker(SHORTEST, StopMode.ABRUPT);
            cluster.metadata().awaitBrokerFenced(SHORTEST);
            awaitAll(admin, topics, partitions, "ISR without 3", p -> p.isr().stream().noneMatch(n -> n.id() == SHORTEST),
                    step);
            produce(cluster, topics, partitions, perRound, "all", "round-2");

            progress.accept("kill -9 broker " + LONGEST);
            cluster.stopBroker(LONGEST, StopMode.ABRUPT);
            cluster.metadata().awaitBrokerFenced(LONGEST);
            awaitAll(admin, topics, partitions, "ISR [1]", p -> p.isr().size() == 1 && p.isr().get(0).id() == LAST_LEADER,
                    step);
            if (leaderOnly > 0) {
                produce(cluster, topics, partitions, leaderOnly, "1", "round-3");
            }

            progress.accept("kill -9 broker " + LAST_LEADER + " (its disk is lost); restarting 3 and 2");
            cluster.stopBroker(LAST_LEADER, StopMode.ABRUPT);
            cluster.metadata().awaitBrokerFenced(LAST_LEADER);
            cluster.startBroker(SHORTEST);
            cluster.startBroker(LONGEST);
            cluster.metadata().awaitBrokerUnfenced(SHORTEST, step);
            cluster.metadata().awaitBrokerUnfenced(LONGEST, step);
            awaitAll(admin, topics, partitions, "offline", p -> leaderOf(p) < 0, step);
            return topics.stream().map(topic -> new Outage(topic, partitions, perRound)).toList();
        } catch (ExecutionException e) {
            throw new IllegalStateException("outage set-up failed: " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    static int leaderOf(TopicPartitionInfo p) {
        return p.leader() == null || p.leader().isEmpty() ? -1 : p.leader().id();
    }

    static List<TopicPartitionInfo> describe(Admin admin, String topic) throws ExecutionException, InterruptedException {
        TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
        return d.partitions();
    }

    private static void awaitAll(Admin admin, List<String> topics, int partitions, String what,
                                 Predicate<TopicPartitionInfo> done, Duration timeout) throws InterruptedException {
        for (String topic : topics) {
            awaitUntil(250, timeout, () -> {
                List<TopicPartitionInfo> all;
                try {
                    all = describe(admin, topic);
                } catch (ExecutionException e) {
                    all = List.of(); // just created: the brokers' metadata may not have it yet
                }
                long ok = all.stream().filter(done).count();
                return all.size() == partitions && ok == partitions ? null
                        : topic + ": only " + ok + " of " + partitions + " partitions reached '" + what + "'";
            });
        }
    }

    /**
     * The controller shows leader 1 and a full ISR as soon as it has created the partitions; each broker creates their
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

    private static void produce(LocalKafkaCluster cluster, List<String> topics, int partitions, long count, String acks,
                                String round) {
        List<TopicPartition> tps = new ArrayList<>();
        for (String topic : topics) {
            for (int p = 0; p < partitions; p++) {
                tps.add(new TopicPartition(topic, p));
            }
        }
        // Thousands of partitions at once on a small machine: batches need minutes, not the outage's 30 s.
        RoundProducer.produce(cluster, tps, count, acks, round, Duration.ofMinutes(5));
    }
}
