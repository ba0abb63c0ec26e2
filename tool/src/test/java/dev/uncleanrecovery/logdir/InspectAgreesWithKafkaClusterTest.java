// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.cluster.ClusterDiscovery;
import dev.uncleanrecovery.cluster.ClusterSnapshot;
import dev.uncleanrecovery.cluster.PartitionSelection;
import dev.uncleanrecovery.connect.BrokerConnections;
import dev.uncleanrecovery.connect.ClientProperties;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.evidence.ReplicaEvidence;
import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.StopMode;
import dev.uncleanrecovery.probe.PartitionToProbe;
import dev.uncleanrecovery.probe.ProbeFanOut;
import dev.uncleanrecovery.probe.ProbeResult;
import dev.uncleanrecovery.probe.ProbeSettings;
import dev.uncleanrecovery.probe.StockLogInfoSource;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData.EpochEndOffset;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * inspect's answer is Kafka's answer, on real Kafka 4.4.0: a broker writes records from a real producer, is killed
 * with kill -9, its partition directories are damaged by seeded {@link LogDamage}, inspect reads its log dir, and the
 * broker restarts on that disk. Every partition has one replica, so the restarted broker is its leader at once and
 * nothing can truncate its log before it is asked: its log end offset, asked the way the tool's stock probe asks
 * (ListOffsets ReplicaId -2), and its last written epoch (OffsetsForLeaderEpoch of the epoch inspect predicted must
 * end at that log end offset, see {@link EpochEnds}) must be what inspect said.
 * Where inspect says Kafka's log loading fails, the broker must exit instead of starting; the damaged files are then
 * put back, and the broker starts on the undamaged disk. Three more starts check refusals on purpose: a torn
 * leader-epoch-checkpoint, a segment name beyond a long, a directory that names no partition.
 *
 * <p>Rounds: {@value #DEFAULT_ROUNDS} seeds by default, from 1. {@code -Dinspect.cluster.seeds=N} runs N rounds from
 * {@code -Dinspect.cluster.firstSeed} (default 1). See docs/inspect.md.
 */
@KafkaClusterTest(brokers = 1)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class InspectAgreesWithKafkaClusterTest {

    static final int DEFAULT_ROUNDS = 3;
    private static final int BROKER = 1;
    private static final String TOPIC = "damaged";
    private static final int PARTITIONS = 6;
    /** Partitions 0 and 1 get enough records to roll 1 MiB segments: damage can hit a segment before the last. */
    private static final int ROLLING = 2;
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    /**
     * Damage to segment and index bytes, which Kafka's recovery handles without refusing the disk. Not a copied batch
     * appended: Kafka may keep it, and inspect declines such a log from then on, round after round (the fuzz test
     * holds that case to Kafka's own loading).
     */
    private static final List<LogDamage> SEGMENT_DAMAGE = List.of(LogDamage.TRUNCATE, LogDamage.FLIP_CRC,
            LogDamage.FLIP_ANY, LogDamage.ZERO_TAIL, LogDamage.ZERO_PAGE, LogDamage.GARBAGE_INDEX,
            LogDamage.DELETE_INDEX, LogDamage.APPEND_GARBAGE, LogDamage.HUGE_LENGTH, LogDamage.MAGIC);

    private static int round;

    @BeforeAll
    static void aTopicOfOneReplicaPerPartitionWithRolledSegments(LocalKafkaCluster cluster) throws Exception {
        try (Admin admin = cluster.createAdmin()) {
            admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1).configs(Map.of(
                    TopicConfig.SEGMENT_BYTES_CONFIG, String.valueOf(1024 * 1024))))).all().get(60, TimeUnit.SECONDS);
        }
        awaitLeaders(cluster);
        try (KafkaProducer<String, String> producer = producer(cluster, "lz4")) {
            String value = "v".repeat(1000);
            for (int i = 0; i < 2600; i++) {
                // incompressible enough: 1 KB values of a counter, so 2.6 MB roll two 1 MiB segments per partition
                producer.send(new ProducerRecord<>(TOPIC, i % ROLLING, "k" + i, value.substring(0, 900) + i
                        + Long.toHexString(Double.doubleToLongBits(Math.sqrt(i)))));
            }
        }
        produceRound(cluster);
    }

    @AfterEach
    void theBrokerRunsAgain(LocalKafkaCluster cluster) {
        if (!cluster.isRunning(BROKER)) {
            cluster.startBroker(BROKER);
        }
    }

    @Test
    @Order(1)
    void after_kill_9_and_seeded_damage_the_restarted_broker_holds_what_inspect_predicted(LocalKafkaCluster cluster)
            throws Exception {
        long first = Long.getLong("inspect.cluster.firstSeed", 1);
        int rounds = Integer.getInteger("inspect.cluster.seeds", DEFAULT_ROUNDS);
        int compared = 0;
        int declined = 0;
        int cut = 0;
        for (long seed = first; seed < first + rounds; seed++) {
            produceRound(cluster);
            cluster.stopBroker(BROKER, StopMode.ABRUPT);
            Random random = new Random(seed);
            Map<TopicPartition, LogDamage> damage = new HashMap<>();
            Map<Path, byte[]> undamaged = filesOf(cluster);
            for (int p = 0; p < PARTITIONS; p++) {
                if (random.nextInt(4) > 0) {
                    LogDamage kind = SEGMENT_DAMAGE.get(random.nextInt(SEGMENT_DAMAGE.size()));
                    kind.applyTo(partitionDir(cluster, p), random);
                    damage.put(new TopicPartition(TOPIC, p), kind);
                }
            }
            LogDirReport report = inspect(cluster);
            String context = "seed " + seed + ", damage " + damage;
            if (expectsRefusal(cluster, report)) {
                String log = cluster.disk().startBrokerExpectingExit(BROKER, TIMEOUT);
                System.out.println("inspect cluster " + context + ": the broker refused its disk as inspect said: "
                        + lastError(log));
                restore(undamaged);
                report = inspect(cluster);
            }
            cluster.startBroker(BROKER);
            Map<TopicPartition, ReplicaEvidence> served = probe(cluster);
            List<PartitionLogSummary> answered = report.partitions().stream().filter(p -> p.error() == null).toList();
            Map<TopicPartition, EpochEndOffset> epochEnds = EpochEnds.askedOf(cluster, BROKER, answered);
            declined += report.partitions().size() - answered.size();
            report.partitions().stream().filter(p -> p.error() != null).forEach(p -> System.out.println(
                    "inspect cluster " + context + ": inspect declined " + p.topicPartition() + ": " + p.error()));
            for (PartitionLogSummary predicted : answered) {
                TopicPartition tp = predicted.topicPartition();
                String about = context + ": " + tp + " (notes " + predicted.notes() + ")";
                ReplicaEvidence replica = served.get(tp);
                assertThat(replica.status()).as(about + ": " + replica).isEqualTo(EvidenceStatus.OK);
                assertThat(replica.logEndOffset()).as(about + ": log end offset").isEqualTo(predicted.logEndOffset());
                if (predicted.lastWrittenLeaderEpoch() >= 0) {
                    EpochEndOffset end = epochEnds.get(tp);
                    assertThat(Errors.forCode(end.errorCode())).as(about).isEqualTo(Errors.NONE);
                    assertThat(end.leaderEpoch()).as(about + ": last written epoch")
                            .isEqualTo(predicted.lastWrittenLeaderEpoch());
                    assertThat(end.endOffset()).as(about + ": where epoch " + predicted.lastWrittenLeaderEpoch()
                            + " ends").isEqualTo(predicted.logEndOffset());
                }
                compared++;
                cut += predicted.invalidTailBytes() > 0 ? 1 : 0;
            }
        }
        System.out.println("inspect cluster: " + rounds + " rounds from seed " + first + ": " + compared
                + " partitions as inspect predicted (" + cut + " of them cut by Kafka's recovery), " + declined
                + " declined");
        assertThat(compared).as("partitions compared with the broker").isGreaterThanOrEqualTo(rounds * PARTITIONS * 3 / 4);
    }

    @Test
    @Order(2)
    void a_leader_epoch_checkpoint_cut_short_takes_the_only_log_dir_offline_as_inspect_says(LocalKafkaCluster cluster)
            throws Exception {
        produceRound(cluster);
        cluster.stopBroker(BROKER, StopMode.ABRUPT);
        Path checkpoint = partitionDir(cluster, 2).resolve(CheckpointFile.LEADER_EPOCH);
        String whole = Files.readString(checkpoint, StandardCharsets.UTF_8);
        // the last entry's line lost: its count says one more than it holds
        Files.writeString(checkpoint, whole.substring(0, whole.stripTrailing().lastIndexOf('\n') + 1));

        PartitionLogSummary torn = single(inspect(cluster), 2);

        assertThat(torn.error()).contains("says it has").contains(KafkaLoadFailure.LOG_DIR_OFFLINE
                .consequence(cluster.logDir(BROKER).toAbsolutePath().normalize()));
        String log = cluster.disk().startBrokerExpectingExit(BROKER, TIMEOUT);
        System.out.println("inspect cluster: torn leader-epoch-checkpoint: " + lastError(log));
        Files.writeString(checkpoint, whole);
    }

    @Test
    @Order(3)
    void a_segment_name_beyond_a_64_bit_offset_keeps_the_broker_from_starting_as_inspect_says(
            LocalKafkaCluster cluster) throws Exception {
        cluster.stopBroker(BROKER, StopMode.ABRUPT);
        Path odd = partitionDir(cluster, 3).resolve("99999999999999999999.log");
        Files.write(odd, new byte[0]);

        PartitionLogSummary named = single(inspect(cluster), 3);

        assertThat(named.error()).contains("99999999999999999999.log")
                .contains(KafkaLoadFailure.BROKER_DOES_NOT_START.consequence(cluster.logDir(BROKER)));
        String log = cluster.disk().startBrokerExpectingExit(BROKER, TIMEOUT);
        System.out.println("inspect cluster: segment named 99999999999999999999.log: " + lastError(log));
        Files.delete(odd);
    }

    @Test
    @Order(4)
    void a_directory_that_names_no_partition_keeps_the_broker_from_starting_as_inspect_says(LocalKafkaCluster cluster)
            throws Exception {
        cluster.stopBroker(BROKER, StopMode.ABRUPT);
        Path lostAndFound = Files.createDirectory(cluster.logDir(BROKER).resolve("lost+found"));

        LogDirReport report = new LogDirInspector().inspect(List.of(cluster.logDir(BROKER)), PartitionFilter.all());

        assertThat(report.skipped()).filteredOn(s -> s.directory().equals("lost+found")).singleElement()
                .satisfies(s -> assertThat(s.reason()).contains("the broker does not start"));
        String log = cluster.disk().startBrokerExpectingExit(BROKER, TIMEOUT);
        System.out.println("inspect cluster: a lost+found directory in the log dir: " + lastError(log));
        Files.delete(lostAndFound);
    }

    // ---- the broker's side ----

    /** What the tool's stock probe reads from the broker: every partition's log end offset (and more). */
    private static Map<TopicPartition, ReplicaEvidence> probe(LocalKafkaCluster cluster) {
        awaitLeaders(cluster);
        Properties properties = ClientProperties.load(cluster.bootstrapServers(), null, 15_000);
        ClusterSnapshot snapshot;
        try (ClusterDiscovery discovery = new ClusterDiscovery(properties, 15_000)) {
            snapshot = discovery.describe(new PartitionSelection.OneTopic(TOPIC, List.of()));
        }
        try (BrokerConnections connections = BrokerConnections.open(properties, snapshot.brokers())) {
            ProbeResult result = new ProbeFanOut(new StockLogInfoSource(connections), ProbeSettings.defaults(),
                    connections::describe).run(PartitionToProbe.everyReplica(snapshot.partitions()), null);
            Map<TopicPartition, ReplicaEvidence> answers = new HashMap<>();
            for (int p = 0; p < PARTITIONS; p++) {
                TopicPartition tp = new TopicPartition(TOPIC, p);
                answers.put(tp, result.evidenceFor(tp).get(0));
            }
            return answers;
        }
    }

    private static void awaitLeaders(LocalKafkaCluster cluster) {
        for (int p = 0; p < PARTITIONS; p++) {
            cluster.metadata().awaitPartition(new TopicPartition(TOPIC, p), view -> view.leader() == BROKER, TIMEOUT);
        }
    }

    /** One round of writes to every partition: plain and lz4 batches of a few records, flushed now and then. */
    private static void produceRound(LocalKafkaCluster cluster) throws Exception {
        round++;
        for (String compression : List.of("none", "lz4")) {
            try (KafkaProducer<String, String> producer = producer(cluster, compression)) {
                for (int i = 0; i < 60; i++) {
                    producer.send(new ProducerRecord<>(TOPIC, i % PARTITIONS, "r" + round + "-" + i,
                            compression + " " + "x".repeat(i * 7)));
                    if (i % 12 == 11) {
                        producer.flush();
                    }
                }
            }
        }
    }

    private static KafkaProducer<String, String> producer(LocalKafkaCluster cluster, String compression) {
        Map<String, Object> config = new HashMap<>(cluster.clientProperties());
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        config.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, compression);
        return new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
    }

    // ---- the disk's side ----

    private static LogDirReport inspect(LocalKafkaCluster cluster) {
        return new LogDirInspector().inspect(List.of(cluster.logDir(BROKER)), PartitionFilter.topic(TOPIC));
    }

    private static PartitionLogSummary single(LogDirReport report, int partition) {
        return report.partitions().stream().filter(p -> p.partition() == partition).findFirst().orElseThrow();
    }

    /** inspect says Kafka's log loading fails on some partition: the broker will not start on this disk. */
    private static boolean expectsRefusal(LocalKafkaCluster cluster, LogDirReport report) {
        Path logDir = cluster.logDir(BROKER).toAbsolutePath().normalize();
        return report.partitions().stream().anyMatch(p -> p.error() != null && Stream.of(KafkaLoadFailure.values())
                .anyMatch(failure -> p.error().contains(failure.consequence(logDir))));
    }

    private static Path partitionDir(LocalKafkaCluster cluster, int partition) {
        return cluster.disk().replicaDirectory(BROKER, new TopicPartition(TOPIC, partition));
    }

    /** Every regular file of the topic's partition directories, to put back what a refused start may have changed. */
    private static Map<Path, byte[]> filesOf(LocalKafkaCluster cluster) throws IOException {
        Map<Path, byte[]> files = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            try (Stream<Path> list = Files.list(partitionDir(cluster, p))) {
                for (Path file : list.filter(Files::isRegularFile).toList()) {
                    files.put(file, Files.readAllBytes(file));
                }
            }
        }
        return files;
    }

    private static void restore(Map<Path, byte[]> files) throws IOException {
        for (var file : files.entrySet()) {
            Files.write(file.getKey(), file.getValue());
        }
    }

    /** The last ERROR line of a node's log, to show why it refused its disk. */
    private static String lastError(String log) {
        List<String> errors = new ArrayList<>(log.lines().filter(line -> line.contains("ERROR")).toList());
        return errors.isEmpty() ? "(no ERROR line)" : errors.get(errors.size() - 1);
    }
}
