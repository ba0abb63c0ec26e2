// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.versions;

import static dev.uncleanrecovery.localcluster.LastReplicaStandingOutage.LAST_LEADER;
import static dev.uncleanrecovery.localcluster.LastReplicaStandingOutage.LONGEST_SURVIVOR;
import static dev.uncleanrecovery.localcluster.LastReplicaStandingOutage.SHORTEST_SURVIVOR;
import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.localcluster.LastReplicaStandingOutage;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.PartitionView;
import dev.uncleanrecovery.localcluster.RoundProducer;
import dev.uncleanrecovery.localcluster.StopMode;
import dev.uncleanrecovery.support.Pause;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/**
 * Two outages made by the same kills on a three-broker cluster:
 *
 * <ul>
 *   <li>KIP-966's last replica standing on topic {@code story} — replicas [1,3,2], 1 dead for good holding 5
 *       acks=1 records nobody else has, 2 holding 40 records, 3 holding 20;</li>
 *   <li>divergent epochs on topic {@code diverge} (partitions 0 and 1) — replicas [3,2,1]: 3 holds 30 records of
 *       epoch 0 (20 of them acks=1, written while 2 was frozen), 2 holds the first 10 and 5 of a newer epoch, written
 *       with acks=all once 3 had died: the shorter log is the newer one.</li>
 * </ul>
 */
public final class EveryIsrMemberKilled {

    public static final TopicPartition STORY_0 = new TopicPartition("story", 0);
    public static final TopicPartition STORY_1 = new TopicPartition("story", 1);
    public static final TopicPartition DIVERGE = new TopicPartition("diverge", 0);
    public static final TopicPartition DIVERGE_ALTERNATIVE = new TopicPartition("diverge", 1);
    public static final List<TopicPartition> DIVERGING = List.of(DIVERGE, DIVERGE_ALTERNATIVE);
    public static final int OLDER_EPOCH_LONGER_LOG = 3;
    public static final int NEWER_EPOCH_SHORTER_LOG = 2;
    private static final Duration STEP = Duration.ofSeconds(60);
    private static final AtomicInteger ROUNDS = new AtomicInteger();

    private EveryIsrMemberKilled() {
    }

    public static void build(LocalKafkaCluster cluster) {
        build(cluster, 2);
    }

    /** @param divergePartitions how many partitions of {@code diverge} are built alike (0 and 1 at least) */
    public static void build(LocalKafkaCluster cluster, int divergePartitions) {
        List<TopicPartition> diverging = java.util.stream.IntStream.range(0, divergePartitions)
                .mapToObj(p -> new TopicPartition("diverge", p)).toList();
        LastReplicaStandingOutage.createTopic(cluster, "story", 2, LastReplicaStandingOutage.ASSIGNMENT);
        LastReplicaStandingOutage.createTopic(cluster, "diverge", divergePartitions,
                List.of(OLDER_EPOCH_LONGER_LOG, NEWER_EPOCH_SHORTER_LOG, LAST_LEADER));
        List<TopicPartition> story = List.of(STORY_0, STORY_1);
        story.forEach(tp -> cluster.metadata().awaitPartition(tp,
                v -> v.leader() == LAST_LEADER && v.isr().size() == 3, STEP));
        diverging.forEach(tp -> cluster.metadata().awaitPartition(tp,
                v -> v.leader() == OLDER_EPOCH_LONGER_LOG && v.isr().size() == 3, STEP));
        produce(cluster, story, 20, "all");
        produce(cluster, diverging, 10, "all");

        // diverge: 2 stays in the ISR while frozen (well within replica.lag.time.max.ms and the broker session), so
        // when 3 dies the controller elects 2 cleanly although it lacks 3's acks=1 records. Broker 1 is not frozen:
        // it leads story, and on Kafka 4.0 freezing it too left story without a leader
        try {
            RoundProducer.produce(cluster, diverging, 20, "1", "diverge-only-on-3", Duration.ofSeconds(30), () -> {
                cluster.pauseBroker(NEWER_EPOCH_SHORTER_LOG);
                // a Fetch of 2's parked at the leader (replica.fetch.wait.max.ms, 500 ms) would carry the first
                // record into its socket buffer, and 2 would append it on resuming: let that wait run out first
                Pause.millis(1_000, "broker 2's parked Fetch");
            });
            cluster.stopBroker(SHORTEST_SURVIVOR, StopMode.ABRUPT);
        } finally {
            cluster.resumeBroker(NEWER_EPOCH_SHORTER_LOG);
        }
        cluster.metadata().awaitBrokerFenced(SHORTEST_SURVIVOR);
        story.forEach(tp -> cluster.metadata().awaitPartition(tp, v -> !v.isr().contains(SHORTEST_SURVIVOR)
                && v.isr().contains(LONGEST_SURVIVOR), STEP));
        // 2 is elected: the first replica in assignment order that is in the ISR and not fenced. Had 2 lost its
        // session while frozen, 1 would lead with 3's acks=1 records and 2 would copy them. When 3 was the ZooKeeper
        // controller, the next one first takes 3 out of the ISR with no leader (OfflineReplica), then elects: wait
        // past that moment
        diverging.forEach(tp -> assertThat(cluster.metadata().awaitPartition(tp,
                v -> v.leader() != OLDER_EPOCH_LONGER_LOG && v.leader() != PartitionView.NO_LEADER
                && v.isr().size() == 2 && v.isr().containsAll(List.of(NEWER_EPOCH_SHORTER_LOG, LAST_LEADER)), STEP)
                .leader()).as("leader of %s once broker %d died: the outage did not form as built", tp,
                        OLDER_EPOCH_LONGER_LOG).isEqualTo(NEWER_EPOCH_SHORTER_LOG));
        produce(cluster, story, 20, "all");
        produce(cluster, diverging, 5, "all");
        assertHighWatermark(cluster, diverging, 15);
        // 2 restarts with the high watermark it last checkpointed: let it checkpoint the 5 committed records
        Pause.millis(1_000, "broker 2's high watermark checkpoint");

        cluster.stopBroker(LONGEST_SURVIVOR, StopMode.ABRUPT);
        cluster.metadata().awaitBrokerFenced(LONGEST_SURVIVOR);
        story.forEach(tp -> cluster.metadata().awaitPartition(tp, v -> v.isr().equals(List.of(LAST_LEADER)), STEP));
        diverging.forEach(tp -> cluster.metadata().awaitPartition(tp, v -> v.leader() == LAST_LEADER, STEP));
        produce(cluster, story, 5, "1");

        // the last leader dies for good; the unclean restarts of 3 and 2 keep them out of ELR (and out of the ISR)
        cluster.stopBroker(LAST_LEADER, StopMode.ABRUPT);
        cluster.metadata().awaitBrokerFenced(LAST_LEADER);
        cluster.startBroker(SHORTEST_SURVIVOR);
        cluster.startBroker(LONGEST_SURVIVOR);
        for (TopicPartition tp : java.util.stream.Stream.concat(java.util.stream.Stream.of(STORY_0, STORY_1), diverging.stream()).toList()) {
            cluster.metadata().awaitPartition(tp, v -> v.leader() == PartitionView.NO_LEADER, STEP);
        }
    }

    /** Fails the set-up plainly when an outage did not form as built, rather than in a later test. */
    private static void assertHighWatermark(LocalKafkaCluster cluster, List<TopicPartition> tps, long expected) {
        try (Admin admin = cluster.createAdmin()) {
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            tps.forEach(tp -> latest.put(tp, OffsetSpec.latest()));
            Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> offsets =
                    admin.listOffsets(latest).all().get(STEP.toSeconds(), TimeUnit.SECONDS);
            offsets.forEach((tp, info) -> assertThat(info.offset())
                    .as("high watermark of %s: the outage did not form as built (%s)", tp,
                            cluster.metadata().describePartition(tp))
                    .isEqualTo(expected));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("could not read the high watermarks of " + tps, e);
        }
    }

    private static void produce(LocalKafkaCluster cluster, List<TopicPartition> tps, long count, String acks) {
        RoundProducer.produce(cluster, tps, count, acks, tps.get(0).topic() + "-" + ROUNDS.incrementAndGet(),
                Duration.ofSeconds(30));
    }
}
