// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.probe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.cluster.ClusterDiscovery;
import dev.uncleanrecovery.cluster.ClusterSnapshot;
import dev.uncleanrecovery.cluster.PartitionSelection;
import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.connect.BrokerConnections;
import dev.uncleanrecovery.connect.ClientProperties;
import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.evidence.ReplicaEvidence;
import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.LogTailCut;
import dev.uncleanrecovery.localcluster.PartitionView;
import dev.uncleanrecovery.localcluster.StopMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The stock probe (ListOffsets ReplicaId -2 + Fetch DivergingEpoch search) against real Kafka 4.4.0
 * brokers: every replica must report exactly the log it holds, including replicas of an offline
 * partition, a log cut on disk, and a shorter log from a later epoch next to a longer one from an
 * earlier epoch. The tests share one cluster and run in order: the last one breaks it.
 */
@KafkaClusterTest(brokers = 3)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class StockLogInfoSourceClusterTest {

    private static final Duration STATE_TIMEOUT = Duration.ofSeconds(60);

    @Test
    @Order(1)
    void a_stopped_broker_leaves_its_replicas_unreachable_within_the_deadline(LocalKafkaCluster cluster)
            throws Exception {
        // given: a healthy partition with 5 records on every replica
        TopicPartition tp = new TopicPartition("pings", 0);
        createTopic(cluster, tp.topic(), 1, Map.of(), Map.of());
        cluster.metadata().awaitPartition(tp, v -> v.isr().size() == 3, STATE_TIMEOUT);
        produce(cluster, tp, "all", 5, false);
        cluster.metadata().awaitPartition(tp, v -> v.isr().size() == 3, STATE_TIMEOUT);

        // when: broker 3 is frozen (SIGSTOP: its socket accepts connections, nothing answers) during a 3 s probe
        ClusterSnapshot snapshot = describe(cluster, tp.topic());
        ProbeResult result;
        long tookMs;
        cluster.pauseBroker(3);
        try {
            long start = System.nanoTime();
            result = probe(cluster, snapshot, ProbeSettings.defaults().withTimeout(Duration.ofMillis(3_000))
                    .withRequestTimeout(Duration.ofMillis(1_000))).result();
            tookMs = (System.nanoTime() - start) / 1_000_000;
        } finally {
            cluster.resumeBroker(3);
        }

        // then: the live replicas answered, broker 3 is UNREACHABLE, and the probe kept its deadline
        assertThat(tookMs).isLessThan(3_000 + 1_500);
        List<ReplicaEvidence> evidence = result.evidenceFor(tp);
        assertThat(evidence).extracting(ReplicaEvidence::broker).containsExactly(1, 2, 3);
        for (ReplicaEvidence replica : evidence.subList(0, 2)) {
            assertThat(replica.status()).isEqualTo(EvidenceStatus.OK);
            assertThat(replica.logEndOffset()).isEqualTo(5);
            assertThat(replica.lastWrittenLeaderEpoch()).isEqualTo(0);
        }
        ReplicaEvidence frozen = evidence.get(2);
        assertThat(frozen.status()).isEqualTo(EvidenceStatus.UNREACHABLE);
        assertThat(frozen.error()).startsWith("broker 3 (" + cluster.brokerAddress(3) + ") did not answer within 3 s: ");
        assertThat(frozen.error()).doesNotContainPattern("api key \\d").doesNotContainPattern("\\d{4} ms");
        assertThat(result.unansweredBrokers()).singleElement().satisfies(b -> {
            assertThat(b.broker()).isEqualTo(3);
            assertThat(b.timedOut()).isTrue();
            assertThat(b.replicasUnknown()).isEqualTo(1);
            assertThat(b.reason()).isEqualTo(frozen.error());
        });
        cluster.metadata().awaitBrokerUnfenced(3, STATE_TIMEOUT);
    }

    @Test
    @Order(2)
    void every_replica_of_many_partitions_answers_in_one_listoffsets_and_a_few_fetch_rounds_per_batch(
            LocalKafkaCluster cluster) throws Exception {
        // given: 30 partitions, RF 3, partition p holding p + 1 records on every replica
        String topic = "many";
        createTopic(cluster, topic, 30, Map.of(), Map.of());
        List<TopicPartition> partitions = new ArrayList<>();
        Map<TopicPartition, Integer> counts = new HashMap<>();
        for (int p = 0; p < 30; p++) {
            TopicPartition tp = new TopicPartition(topic, p);
            partitions.add(tp);
            counts.put(tp, p + 1);
            cluster.metadata().awaitPartition(tp, v -> v.isr().size() == 3, STATE_TIMEOUT);
        }
        produce(cluster, counts, "all", false);
        for (TopicPartition tp : partitions) {
            cluster.metadata().awaitPartition(tp, v -> v.isr().size() == 3, STATE_TIMEOUT);
        }
        Map<TopicPartition, Long> leaderLogEnds = leaderLogEndOffsets(cluster, partitions);

        // when: every replica is probed, in one batch per broker, then in batches of 7
        Probe oneBatch = probe(cluster, topic, ProbeSettings.defaults());
        Probe smallBatches = probe(cluster, topic, ProbeSettings.defaults().withBatching(7, 2));

        // then: each replica reports the leader's log end offset and epoch 0, the epoch every record was written in
        for (Probe probe : List.of(oneBatch, smallBatches)) {
            for (TopicPartition tp : partitions) {
                assertThat(probe.result().evidenceFor(tp)).hasSize(3).allSatisfy(replica -> {
                    assertThat(replica.status()).as("%s", replica).isEqualTo(EvidenceStatus.OK);
                    assertThat(replica.logEndOffset()).isEqualTo(tp.partition() + 1).isEqualTo(leaderLogEnds.get(tp));
                    assertThat(replica.lastWrittenLeaderEpoch()).isEqualTo(0);
                    assertThat(replica.currentLeaderEpoch()).isEqualTo(0);
                    assertThat(replica.source()).isEqualTo(EvidenceSource.STOCK);
                });
            }
        }
        // and: per broker (30 partitions each), 1 ListOffsets plus 2 Fetch rounds per batch — the search over
        // epochs [0, 1] takes ceil(log2(0 + 3)) = 2 rounds whatever the number of partitions
        for (int broker : List.of(1, 2, 3)) {
            assertThat(oneBatch.result().requests().byBroker().get(broker))
                    .isEqualTo(Map.of("ListOffsets", 1L, "Fetch", 2L));
            assertThat(smallBatches.result().requests().byBroker().get(broker))
                    .isEqualTo(Map.of("ListOffsets", 5L, "Fetch", 10L));
        }
        System.out.println("requests per broker, 30 partitions in one batch: " + oneBatch.result().requests()
                + " in " + oneBatch.result().elapsed().toMillis() + " ms; in batches of 7: "
                + smallBatches.result().requests() + " in " + smallBatches.result().elapsed().toMillis() + " ms");
    }

    /**
     * Builds, on replicas [1,2,3] of one partition (min.insync.replicas=2, unclean election off):
     * broker 1 with a long log from epoch 0, broker 2 with a shorter log that it wrote as leader in a
     * later epoch, broker 3 with a log from an even later epoch; then takes the partition offline with
     * 1 and 2 alive and 3 dead, and cuts the tail of 1's log on disk before its restart.
     */
    @Test
    @Order(3)
    void a_shorter_log_from_a_later_epoch_and_a_longer_log_from_an_earlier_one_are_each_reported_as_held(
            LocalKafkaCluster cluster) throws Exception {
        TopicPartition tp = new TopicPartition("history", 0);
        createTopic(cluster, tp.topic(), 1, Map.of(0, List.of(1, 2, 3)), Map.of(
                TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, "2",
                TopicConfig.UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG, "false"));
        cluster.metadata().awaitPartition(tp, v -> v.leader() == 1 && v.isr().size() == 3, STATE_TIMEOUT);
        int epochOfFirstWrites = metadata(cluster, tp).leaderEpoch();

        // S1-S3: 10 records on all; 10 more without broker 3; 20 with acks=1 on broker 1 alone
        produce(cluster, tp, "all", 10, false);
        kill(cluster, 3);
        cluster.metadata().awaitPartition(tp, v -> v.isr().equals(List.of(1, 2)), STATE_TIMEOUT);
        produce(cluster, tp, "all", 10, false);
        kill(cluster, 2);
        cluster.metadata().awaitPartition(tp, v -> v.isr().equals(List.of(1)), STATE_TIMEOUT);
        produce(cluster, tp, "1", 20, true); // one batch per record: a cut tail loses whole records

        // S4: the last leader dies: offline
        kill(cluster, 1);

        // S5: broker 2 comes back and is elected UNCLEAN (the only live replica), then writes 5 records alone
        cluster.startBroker(2);
        cluster.metadata().awaitPartition(tp, PartitionView::isLeaderless, STATE_TIMEOUT);
        electUnclean(cluster, tp);
        cluster.metadata().awaitPartition(tp, v -> v.leader() == 2, STATE_TIMEOUT);
        int epochOfBroker2 = metadata(cluster, tp).leaderEpoch();
        produce(cluster, tp, "1", 5, true);

        // S6-S7: broker 3 comes back and catches up from 2; 2 dies, 3 takes over cleanly and writes 5 alone
        cluster.startBroker(3);
        cluster.metadata().awaitPartition(tp, v -> v.isr().containsAll(List.of(2, 3)), STATE_TIMEOUT);
        kill(cluster, 2);
        cluster.metadata().awaitPartition(tp, v -> v.leader() == 3, STATE_TIMEOUT);
        int epochOfBroker3 = metadata(cluster, tp).leaderEpoch();
        produce(cluster, tp, "1", 5, true);

        // S8: broker 3, the last leader, dies: offline again, LastKnownELR [3]
        kill(cluster, 3);

        // S9: broker 1 lost the tail of its log (no clean-shutdown marker after kill -9); 1 and 2 come back
        cluster.disk().truncateReplicaLog(tp, 1, LogTailCut.dropBytes(100));
        cluster.startBroker(1);
        cluster.startBroker(2);
        PartitionView offline = cluster.metadata().awaitPartition(tp,
                v -> v.isLeaderless() && !v.elr().contains(2), STATE_TIMEOUT);
        assertThat(offline.lastKnownElr()).containsExactly(3);
        long broker1RecoveredTo = recoveredLogEnd(cluster, 1);
        assertThat(broker1RecoveredTo).isBetween(21L, 39L);

        // when: every replica of the offline partition is probed
        Probe offlineProbe = probe(cluster, tp.topic(), ProbeSettings.defaults().withTimeout(Duration.ofMillis(4_000)));

        // then: 1 holds the longer log of epoch 0 (as recovered from its cut segment), 2 the shorter log
        // it wrote in its own later epoch, and 3 (dead) is UNREACHABLE
        int metadataEpoch = offlineProbe.partition(tp).leaderEpoch();
        List<ReplicaEvidence> evidence = offlineProbe.result().evidenceFor(tp);
        System.out.println("offline: metadata epoch " + metadataEpoch + ", epochs written: " + epochOfFirstWrites
                + "/" + epochOfBroker2 + "/" + epochOfBroker3 + ", evidence " + evidence
                + ", requests " + offlineProbe.result().requests());
        assertThat(evidence).extracting(ReplicaEvidence::broker).containsExactly(1, 2, 3);
        assertAnswered(evidence.get(0), broker1RecoveredTo, epochOfFirstWrites, metadataEpoch);
        assertAnswered(evidence.get(1), 25, epochOfBroker2, metadataEpoch);
        assertThat(evidence.get(0).logEndOffset()).isGreaterThan(evidence.get(1).logEndOffset());
        assertThat(evidence.get(1).lastWrittenLeaderEpoch()).isGreaterThan(evidence.get(0).lastWrittenLeaderEpoch());
        assertThat(evidence.get(2).status()).isEqualTo(EvidenceStatus.UNREACHABLE);
        assertThat(evidence.get(2).error()).isEqualTo("broker 3 (" + cluster.brokerAddress(3)
                + ") did not answer within 4 s: cannot connect to broker 3 (" + cluster.brokerAddress(3)
                + "): connection refused or closed during setup (is the broker running and is this its listener?)");
        int fetchRounds = 32 - Integer.numberOfLeadingZeros(metadataEpoch + 2);
        for (int broker : List.of(1, 2)) {
            assertThat(offlineProbe.result().requests().byBroker().get(broker))
                    .isEqualTo(Map.of("ListOffsets", 1L, "Fetch", (long) fetchRounds));
        }

        // when: second looks at the live replicas, as execute takes them with a plan made from that probe: broker 2
        // as the probe saw it; broker 1 as if the plan had seen 5 records more (its log shrank since), then as if
        // it had seen broker 2's later epoch (which 1 never wrote)
        TopicPartitionState asProbed = offlineProbe.partition(tp);
        ProbeResult look = secondLook(cluster, offlineProbe.snapshot(), Map.of(
                2, PartitionToProbe.of(asProbed).seenAs(new PartitionToProbe.AsPlanned(epochOfBroker2, 25)),
                1, PartitionToProbe.of(asProbed).seenAs(
                        new PartitionToProbe.AsPlanned(epochOfFirstWrites, broker1RecoveredTo + 5))));
        ProbeResult lookAtLaterEpoch = secondLook(cluster, offlineProbe.snapshot(), Map.of(
                1, PartitionToProbe.of(asProbed).seenAs(new PartitionToProbe.AsPlanned(epochOfBroker2, 25))));

        // then: one Fetch confirms broker 2's log; broker 1's is found out the full way each time and reported
        // as it is, so the shrink shows
        System.out.println("second looks: " + look.evidenceFor(tp) + " " + look.requests() + "; "
                + lookAtLaterEpoch.evidenceFor(tp) + " " + lookAtLaterEpoch.requests());
        assertThat(look.evidenceFor(tp)).extracting(ReplicaEvidence::broker).containsExactly(1, 2);
        assertAnswered(look.evidenceFor(tp).get(1), 25, epochOfBroker2, -1);
        assertThat(look.requests().byBroker().get(2)).isEqualTo(Map.of("Fetch", 1L));
        assertAnswered(look.evidenceFor(tp).get(0), broker1RecoveredTo, epochOfFirstWrites, metadataEpoch);
        assertThat(look.requests().byBroker().get(1)).isEqualTo(Map.of("ListOffsets", 1L, "Fetch", 1L + fetchRounds));
        assertAnswered(lookAtLaterEpoch.evidenceFor(tp).get(0), broker1RecoveredTo, epochOfFirstWrites, metadataEpoch);
        assertThat(lookAtLaterEpoch.requests().byBroker().get(1))
                .isEqualTo(Map.of("ListOffsets", 1L, "Fetch", 1L + fetchRounds));

        // when: broker 3 returns, the controller elects it by itself (sole LastKnownELR member), and the others
        // truncate to its log and catch up
        cluster.startBroker(3);
        cluster.metadata().awaitPartition(tp, v -> v.leader() == 3 && v.isr().size() == 3, STATE_TIMEOUT);
        long leaderLogEnd = leaderLogEndOffsets(cluster, List.of(tp)).get(tp);
        Probe onlineProbe = probe(cluster, tp.topic(), ProbeSettings.defaults());

        // then: every replica holds broker 3's 30 records; the leader's latest epoch is the one it was elected
        // in (written into its epoch cache on election, without records), the followers' the last one with records
        int electedEpoch = onlineProbe.partition(tp).leaderEpoch();
        List<ReplicaEvidence> online = onlineProbe.result().evidenceFor(tp);
        System.out.println("online again: metadata epoch " + electedEpoch + ", evidence " + online);
        assertThat(leaderLogEnd).isEqualTo(30);
        assertAnswered(online.get(0), 30, epochOfBroker3, electedEpoch);
        assertAnswered(online.get(1), 30, epochOfBroker3, electedEpoch);
        assertAnswered(online.get(2), 30, electedEpoch, electedEpoch);
    }

    // ---------------------------------------------------------------------------------------------

    /** A probe's result with the partition states it was run from. */
    private record Probe(ProbeResult result, ClusterSnapshot snapshot) {
        TopicPartitionState partition(TopicPartition tp) {
            return snapshot.partition(tp).orElseThrow();
        }
    }

    /** What the tool does: describe (Admin), connect to every broker, fan the stock probe out to every replica. */
    private static Probe probe(LocalKafkaCluster cluster, String topic, ProbeSettings settings) {
        return probe(cluster, describe(cluster, topic), settings);
    }

    private static Probe probe(LocalKafkaCluster cluster, ClusterSnapshot snapshot, ProbeSettings settings) {
        Properties properties = ClientProperties.load(cluster.bootstrapServers(), null, 15_000);
        try (BrokerConnections connections = BrokerConnections.open(properties, snapshot.brokers())) {
            ProbeFanOut fanOut = new ProbeFanOut(new StockLogInfoSource(connections), settings, connections::describe);
            return new Probe(fanOut.run(PartitionToProbe.everyReplica(snapshot.partitions()), null), snapshot);
        }
    }

    /** Probes each broker's one replica as a second look would: with what a plan saw of it. */
    private static ProbeResult secondLook(LocalKafkaCluster cluster, ClusterSnapshot snapshot,
                                          Map<Integer, PartitionToProbe> replicaByBroker) {
        Properties properties = ClientProperties.load(cluster.bootstrapServers(), null, 15_000);
        try (BrokerConnections connections = BrokerConnections.open(properties, snapshot.brokers())) {
            Map<Integer, List<PartitionToProbe>> byBroker = new TreeMap<>();
            replicaByBroker.forEach((broker, replica) -> byBroker.put(broker, List.of(replica)));
            return new ProbeFanOut(new StockLogInfoSource(connections), ProbeSettings.defaults(), connections::describe)
                    .run(byBroker, null);
        }
    }

    private static ClusterSnapshot describe(LocalKafkaCluster cluster, String topic) {
        Properties properties = ClientProperties.load(cluster.bootstrapServers(), null, 15_000);
        try (ClusterDiscovery discovery = new ClusterDiscovery(properties, 15_000)) {
            return discovery.describe(new PartitionSelection.OneTopic(topic, List.of()));
        }
    }

    private static void assertAnswered(ReplicaEvidence replica, long logEndOffset, int lastWrittenEpoch,
                                       int metadataEpoch) {
        assertThat(replica.status()).as("%s", replica).isEqualTo(EvidenceStatus.OK);
        assertThat(replica.logEndOffset()).as("log end offset of %s", replica).isEqualTo(logEndOffset);
        assertThat(replica.lastWrittenLeaderEpoch()).as("last written epoch of %s", replica).isEqualTo(lastWrittenEpoch);
        assertThat(replica.currentLeaderEpoch()).as("current epoch of %s", replica).isEqualTo(metadataEpoch);
        assertThat(replica.error()).isNull();
    }

    private static TopicPartitionState metadata(LocalKafkaCluster cluster, TopicPartition tp) {
        Properties properties = ClientProperties.load(cluster.bootstrapServers(), null, 15_000);
        try (ClusterDiscovery discovery = new ClusterDiscovery(properties, 15_000)) {
            return discovery.describe(new PartitionSelection.OneTopic(tp.topic(), List.of(tp.partition())))
                    .partition(tp).orElseThrow();
        }
    }

    /** The offset Kafka's log recovery truncated the broker's cut segment to, from its own log line. */
    private static long recoveredLogEnd(LocalKafkaCluster cluster, int broker) {
        Matcher m = Pattern.compile("Corruption found in segment \\d+, truncating to offset (\\d+)")
                .matcher(cluster.nodes().logSinceLastStart(broker));
        assertThat(m.find()).as("broker %d logged its log recovery", broker).isTrue();
        return Long.parseLong(m.group(1));
    }

    private static void kill(LocalKafkaCluster cluster, int broker) {
        cluster.stopBroker(broker, StopMode.ABRUPT);
        cluster.metadata().awaitBrokerFenced(broker, STATE_TIMEOUT);
    }

    private static void electUnclean(LocalKafkaCluster cluster, TopicPartition tp) throws Exception {
        try (Admin admin = cluster.createAdmin()) {
            admin.electLeaders(ElectionType.UNCLEAN, Set.of(tp)).partitions().get().get(tp).ifPresent(e -> {
                throw new AssertionError("unclean election of " + tp + " failed", e);
            });
        }
    }

    private static Map<TopicPartition, Long> leaderLogEndOffsets(LocalKafkaCluster cluster, List<TopicPartition> tps)
            throws Exception {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        tps.forEach(tp -> latest.put(tp, OffsetSpec.latest()));
        Map<TopicPartition, Long> ends = new HashMap<>();
        try (Admin admin = cluster.createAdmin()) {
            admin.listOffsets(latest).all().get().forEach((tp, info) -> ends.put(tp, info.offset()));
        }
        return ends;
    }

    private static void createTopic(LocalKafkaCluster cluster, String topic, int partitions,
                                    Map<Integer, List<Integer>> assignment, Map<String, String> configs)
            throws Exception {
        NewTopic newTopic = assignment.isEmpty() ? new NewTopic(topic, partitions, (short) 3) : new NewTopic(topic, assignment);
        try (Admin admin = cluster.createAdmin()) {
            admin.createTopics(List.of(newTopic.configs(configs))).all().get();
        }
    }

    /** Sends {@code count} records to the partition and waits for every acknowledgement. */
    private static void produce(LocalKafkaCluster cluster, TopicPartition tp, String acks, int count,
                                boolean oneBatchPerRecord) throws Exception {
        produce(cluster, Map.of(tp, count), acks, oneBatchPerRecord);
    }

    /** Sends each partition its number of records and waits for every acknowledgement. */
    private static void produce(LocalKafkaCluster cluster, Map<TopicPartition, Integer> counts, String acks,
                                boolean oneBatchPerRecord) throws Exception {
        Map<String, Object> config = new HashMap<>(cluster.clientProperties());
        config.put(ProducerConfig.ACKS_CONFIG, acks);
        // acks=all: idempotent, so a retry (say after a leader change) cannot duplicate a record.
        // acks=1 cannot be idempotent; no retries then, so every count is exact.
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "all".equals(acks));
        if (!"all".equals(acks)) {
            config.put(ProducerConfig.RETRIES_CONFIG, 0);
        }
        config.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000);
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 15_000);
        try (KafkaProducer<String, String> producer =
                     new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            for (Map.Entry<TopicPartition, Integer> entry : counts.entrySet()) {
                TopicPartition tp = entry.getKey();
                for (int i = 0; i < entry.getValue(); i++) {
                    sent.add(producer.send(new ProducerRecord<>(tp.topic(), tp.partition(), "key-" + i, "value " + i)));
                    if (oneBatchPerRecord) {
                        producer.flush();
                    }
                }
            }
            for (Future<RecordMetadata> future : sent) {
                future.get();
            }
        }
    }
}
