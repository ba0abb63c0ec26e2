// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.LogTailCut;
import dev.uncleanrecovery.localcluster.PartitionView;
import dev.uncleanrecovery.localcluster.SegmentTruncation;
import dev.uncleanrecovery.localcluster.StopMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * KIP-966 "last replica standing" on real Kafka 4.4.0 processes: the outage this tool exists for.
 * Replicas die one at a time, the last leader last; the others come back (one with the tail of its
 * log lost) while the last leader stays down, and the partition is offline although two of its
 * three replicas are alive. Each step asserts the ISR / ELR / LastKnownELR Kafka really reports.
 */
@KafkaClusterTest(brokers = 3)
class LastReplicaStandingClusterTest {

    private static final String TOPIC = "orders";
    private static final TopicPartition ORDERS_0 = new TopicPartition(TOPIC, 0);
    private static final Duration STATE_TIMEOUT = Duration.ofSeconds(60);

    @Test
    void partition_stays_offline_with_two_live_replicas_while_its_last_leader_is_down(LocalKafkaCluster cluster)
            throws Exception {
        // given: RF 3, min.insync.replicas=2, unclean election off, 100 records acknowledged by all replicas
        createTopic(cluster);
        PartitionView created = cluster.metadata().awaitPartition(ORDERS_0,
                view -> !view.isLeaderless() && view.isr().size() == 3, STATE_TIMEOUT);
        report("created", created);
        assertThat(created.elr()).isEmpty();
        assertThat(created.lastKnownElr()).isEmpty();
        int lastLeader = created.leader();
        List<Integer> followers = new ArrayList<>(created.replicas());
        followers.remove(Integer.valueOf(lastLeader));
        int firstToFail = followers.get(0);
        int secondToFail = followers.get(1);
        assertThat(produce(cluster, "all", 0, 100)).isEqualTo(100);

        // when: one follower dies (kill -9); ISR 2 still meets min.insync.replicas, so no ELR yet
        kill(cluster, firstToFail);
        PartitionView oneDown = cluster.metadata().awaitPartition(ORDERS_0,
                view -> !view.isr().contains(firstToFail), STATE_TIMEOUT);
        report("follower " + firstToFail + " killed", oneDown);
        assertThat(oneDown.leader()).isEqualTo(lastLeader);
        assertThat(oneDown.isr()).containsExactlyInAnyOrder(lastLeader, secondToFail);
        assertThat(oneDown.elr()).isEmpty();
        assertThat(oneDown.lastKnownElr()).isEmpty();
        assertThat(produce(cluster, "all", 100, 50)).isEqualTo(50);

        // when: the second follower dies; ISR 1 < min.insync.replicas, the follower is kept eligible (ELR)
        kill(cluster, secondToFail);
        PartitionView twoDown = cluster.metadata().awaitPartition(ORDERS_0,
                view -> !view.isr().contains(secondToFail), STATE_TIMEOUT);
        report("follower " + secondToFail + " killed", twoDown);
        assertThat(twoDown.leader()).isEqualTo(lastLeader);
        assertThat(twoDown.isr()).containsExactly(lastLeader);
        assertThat(twoDown.elr()).containsExactly(secondToFail);
        assertThat(twoDown.lastKnownElr()).isEmpty();
        // then acks=all is refused, while acks=1 still lands on the leader alone
        assertThatThrownBy(() -> produce(cluster, "all", 150, 1))
                .hasRootCauseInstanceOf(NotEnoughReplicasException.class);
        assertThat(produce(cluster, "1", 150, 20)).isEqualTo(20);

        // when: the last leader dies; no broker is left to describe the partition, the controller fences it
        kill(cluster, lastLeader);

        // when: the second follower comes back without the tail of its log (unclean: no shutdown marker)
        SegmentTruncation cut = cluster.disk().truncateReplicaLog(ORDERS_0, secondToFail, LogTailCut.dropBytes(100));
        System.out.println("cut " + cut.bytesRemoved() + " bytes off " + cut.segment() + " (" + cut.lengthBefore()
                + " -> " + cut.lengthAfter() + ")");
        assertThat(cluster.disk().hasCleanShutdownMarker(secondToFail)).isFalse();
        cluster.startBroker(secondToFail);
        PartitionView lastLeaderDown = cluster.metadata().awaitPartition(ORDERS_0,
                view -> view.isLeaderless() && !view.elr().contains(secondToFail), STATE_TIMEOUT);
        report("follower " + secondToFail + " restarted with a cut log", lastLeaderDown);
        // then it was dropped from ELR as an unclean restart, and log recovery cut its torn batch
        assertThat(lastLeaderDown.isr()).isEmpty();
        assertThat(lastLeaderDown.elr()).containsExactly(lastLeader);
        assertThat(lastLeaderDown.lastKnownElr()).containsExactly(lastLeader);
        String recovery = cluster.nodes().logSinceLastStart(secondToFail);
        assertThat(recovery).contains("since no clean shutdown file was found")
                .containsPattern("Corruption found in segment \\d+, truncating to offset \\d+");

        // when: the first follower comes back too
        cluster.startBroker(firstToFail);
        PartitionView offline = cluster.metadata().awaitPartition(ORDERS_0,
                view -> view.isLeaderless() && view.isr().isEmpty(), STATE_TIMEOUT);
        report("follower " + firstToFail + " restarted", offline);

        // then: offline with two live replicas, and only the dead last leader is eligible
        assertThat(offline.leader()).isEqualTo(PartitionView.NO_LEADER);
        assertThat(offline.replicas()).containsExactlyElementsOf(created.replicas());
        assertThat(offline.isr()).isEmpty();
        assertThat(offline.elr()).containsExactly(lastLeader);
        assertThat(offline.lastKnownElr()).containsExactly(lastLeader);
        assertThat(cluster.isRunning(firstToFail)).isTrue();
        assertThat(cluster.isRunning(secondToFail)).isTrue();
        assertThat(cluster.isRunning(lastLeader)).isFalse();
        Thread.sleep(3_000);
        PartitionView later = cluster.metadata().describePartition(ORDERS_0);
        report("3 s later", later);
        assertThat(later).as("the controller does not elect a replica by itself").isEqualTo(offline);
    }

    private static void kill(LocalKafkaCluster cluster, int brokerId) {
        long began = System.nanoTime();
        cluster.stopBroker(brokerId, StopMode.ABRUPT);
        cluster.metadata().awaitBrokerFenced(brokerId, STATE_TIMEOUT);
        System.out.println("broker " + brokerId + " killed -9, fenced after " + (System.nanoTime() - began) / 1_000_000 + " ms");
    }

    private static void report(String step, PartitionView view) {
        System.out.println(step + ": " + view);
    }

    private static void createTopic(LocalKafkaCluster cluster) throws Exception {
        try (Admin admin = cluster.createAdmin()) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 3).configs(Map.of(
                    "min.insync.replicas", "2",
                    "unclean.leader.election.enable", "false")))).all().get();
        }
    }

    /** Sends {@code count} records to partition 0 in batches of 10 and returns how many were acknowledged. */
    private static int produce(LocalKafkaCluster cluster, String acks, int firstKey, int count) throws Exception {
        Map<String, Object> config = new HashMap<>(cluster.clientProperties());
        config.put(ProducerConfig.ACKS_CONFIG, acks);
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        config.put(ProducerConfig.RETRIES_CONFIG, 0);
        config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 15_000);
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 15_000);
        int acknowledged = 0;
        try (KafkaProducer<String, String> producer =
                     new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
            for (int batchStart = firstKey; batchStart < firstKey + count; batchStart += 10) {
                List<Future<RecordMetadata>> batch = new ArrayList<>();
                for (int key = batchStart; key < Math.min(batchStart + 10, firstKey + count); key++) {
                    batch.add(producer.send(new ProducerRecord<>(TOPIC, 0, "order-" + key, "payload of order " + key)));
                }
                producer.flush();
                for (Future<RecordMetadata> sent : batch) {
                    sent.get();
                    acknowledged++;
                }
            }
        }
        return acknowledged;
    }
}
