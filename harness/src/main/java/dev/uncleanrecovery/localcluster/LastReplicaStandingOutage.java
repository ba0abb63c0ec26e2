// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;

/**
 * Reproduces KIP-966's "last replica standing" outage on a local 3-broker cluster, with replicas that end
 * up holding different logs and the best surviving log NOT first in assignment order:
 *
 * <ol>
 *   <li>topic with replicas [1,3,2] (leader 1), RF 3, min.insync.replicas=2, unclean election off;
 *       {@code ackedByAll} records per partition with acks=all;</li>
 *   <li>kill -9 broker 3 (ISR [1,2]); {@code ackedByAll} more with acks=all — broker 3 misses them;</li>
 *   <li>kill -9 broker 2 (ISR [1], ELR [2]); {@code ackedByLeaderOnly} records with acks=1 — only 1 has them;</li>
 *   <li>kill -9 broker 1, the last leader: the partition is offline;</li>
 *   <li>restart 3 and 2 but not 1 (its disk is lost): their unclean restarts drop them from ELR, so the
 *       controller will not elect them. Offline while two replicas are alive.</li>
 * </ol>
 *
 * Broker 2 then holds 2×ackedByAll records, broker 3 only ackedByAll: Kafka's own unclean election would
 * pick 3 (first acceptable replica in assignment order) and lose the records only 2 has.
 */
public final class LastReplicaStandingOutage {

    public static final int LAST_LEADER = 1;
    public static final int LONGEST_SURVIVOR = 2;
    public static final int SHORTEST_SURVIVOR = 3;
    public static final List<Integer> ASSIGNMENT = List.of(LAST_LEADER, SHORTEST_SURVIVOR, LONGEST_SURVIVOR);

    /** What the outage left behind, per partition. */
    public record Result(String topic, int partitions, long ackedByAll, long ackedByLeaderOnly) {

        public List<TopicPartition> topicPartitions() {
            List<TopicPartition> result = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                result.add(new TopicPartition(topic, p));
            }
            return result;
        }

        /** Log end offset each surviving replica holds (every partition gets the same records). */
        public Map<Integer, Long> survivorLogEndOffsets() {
            return Map.of(LONGEST_SURVIVOR, 2 * ackedByAll, SHORTEST_SURVIVOR, ackedByAll);
        }

        /** Records acknowledged to producers, per partition, before the outage. */
        public long acknowledged() {
            return 2 * ackedByAll + ackedByLeaderOnly;
        }
    }

    private static final Duration STEP_TIMEOUT = Duration.ofSeconds(60);

    private LastReplicaStandingOutage() {
    }

    public static Result reproduce(LocalKafkaCluster cluster, String topic, int partitions, long ackedByAll,
                                   long ackedByLeaderOnly, Consumer<String> progress) {
        return reproduce(cluster, topic, partitions, ackedByAll, 0, ackedByLeaderOnly, progress);
    }

    /**
     * @param missedValueBytes the values of the second acks=all round, the records only brokers 1 and 2 hold, padded
     *                         to this many bytes (0: short texts): broker 2's log then lies far beyond 3's, while the
     *                         round all three hold stays small
     */
    public static Result reproduce(LocalKafkaCluster cluster, String topic, int partitions, long ackedByAll,
                                   int missedValueBytes, long ackedByLeaderOnly, Consumer<String> progress) {
        if (!cluster.brokerIds().containsAll(ASSIGNMENT)) {
            throw new LocalClusterException("the outage needs brokers 1, 2 and 3; the cluster has " + cluster.brokerIds());
        }
        createTopic(cluster, topic, partitions);
        List<TopicPartition> tps = new Result(topic, partitions, 0, 0).topicPartitions();
        for (TopicPartition tp : tps) {
            cluster.metadata().awaitPartition(tp, v -> v.leader() == LAST_LEADER && v.isr().size() == 3, STEP_TIMEOUT);
        }

        progress.accept("producing " + ackedByAll + " records per partition with acks=all");
        produce(cluster, tps, ackedByAll, "all", "round-1");

        progress.accept("kill -9 broker " + SHORTEST_SURVIVOR + " (a follower); waiting until it is fenced");
        killAndAwaitFence(cluster, SHORTEST_SURVIVOR);
        for (TopicPartition tp : tps) {
            cluster.metadata().awaitPartition(tp, v -> !v.isr().contains(SHORTEST_SURVIVOR), STEP_TIMEOUT);
        }
        progress.accept("producing " + ackedByAll + " more records per partition with acks=all (broker "
                + SHORTEST_SURVIVOR + " misses them)");
        if (missedValueBytes > 0) {
            RoundProducer.produceLarge(cluster, tps, ackedByAll, missedValueBytes, "all", "round-2", STEP_TIMEOUT);
        } else {
            produce(cluster, tps, ackedByAll, "all", "round-2");
        }

        progress.accept("kill -9 broker " + LONGEST_SURVIVOR + "; the ISR shrinks below min.insync.replicas");
        killAndAwaitFence(cluster, LONGEST_SURVIVOR);
        for (TopicPartition tp : tps) {
            cluster.metadata().awaitPartition(tp, v -> v.isr().equals(List.of(LAST_LEADER)), STEP_TIMEOUT);
        }
        if (ackedByLeaderOnly > 0) {
            progress.accept("producing " + ackedByLeaderOnly + " records per partition with acks=1 (only the leader has them)");
            produce(cluster, tps, ackedByLeaderOnly, "1", "round-3");
        }

        progress.accept("kill -9 broker " + LAST_LEADER + ", the last leader: its disk is lost, it never comes back");
        killAndAwaitFence(cluster, LAST_LEADER);

        progress.accept("restarting brokers " + SHORTEST_SURVIVOR + " and " + LONGEST_SURVIVOR
                + " (unclean restarts: the controller drops them from ELR)");
        cluster.startBroker(SHORTEST_SURVIVOR);
        cluster.startBroker(LONGEST_SURVIVOR);
        for (TopicPartition tp : tps) {
            cluster.metadata().awaitPartition(tp, v -> v.leader() == PartitionView.NO_LEADER, STEP_TIMEOUT);
        }
        return new Result(topic, partitions, ackedByAll, ackedByLeaderOnly);
    }

    private static void createTopic(LocalKafkaCluster cluster, String topic, int partitions) {
        createTopic(cluster, topic, partitions, ASSIGNMENT);
    }

    /**
     * A topic as the outage makes one: every partition on {@code replicas} in that order, min.insync.replicas=2,
     * unclean election off (so that only an operator's election ends the outage).
     */
    public static void createTopic(LocalKafkaCluster cluster, String topic, int partitions, List<Integer> replicas) {
        Map<Integer, List<Integer>> assignment = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            assignment.put(p, replicas);
        }
        try (Admin admin = cluster.createAdmin()) {
            admin.createTopics(List.of(new NewTopic(topic, assignment).configs(Map.of(
                    TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, "2",
                    TopicConfig.UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG, "false")))).all().get();
        } catch (ExecutionException e) {
            throw new LocalClusterException("could not create topic " + topic + ": " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LocalClusterException("interrupted", e);
        }
    }

    private static void killAndAwaitFence(LocalKafkaCluster cluster, int broker) {
        cluster.stopBroker(broker, StopMode.ABRUPT);
        cluster.metadata().awaitBrokerFenced(broker);
    }

    private static void produce(LocalKafkaCluster cluster, List<TopicPartition> tps, long count, String acks, String round) {
        RoundProducer.produce(cluster, tps, count, acks, round, Duration.ofSeconds(30));
    }
}
