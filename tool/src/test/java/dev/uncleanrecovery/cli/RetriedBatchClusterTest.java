// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.uncleanrecovery.formats.Json;
import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.PartitionView;
import dev.uncleanrecovery.localcluster.StopMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seed 4 of the fault-injection suite's short schedule and seed 21 of its long one: an idempotent producer's
 * batches that the old leader appended but could not acknowledge (its followers were hung) are sent again to the
 * new leader once the old one dies, and land there at the same offsets, in the newer epoch. When the outage then
 * leaves both replicas live and the partition offline, the old leader's replica truncates to where its epoch ends
 * on the new leader — below those batches — and fetches the same batches back. The plan counted them lost, the
 * salvage copied them and a replay wrote them twice. The plan now states the loss from the first batch that
 * differs: none here.
 */
@KafkaClusterTest
class RetriedBatchClusterTest {

    private static final String TOPIC = "retried";
    private static final TopicPartition RETRIED_0 = new TopicPartition(TOPIC, 0);
    private static final int OLD_LEADER = 1;
    private static final int NEW_LEADER = 2;
    private static final int LAST_LEADER = 3;
    private static final int BY_ALL = 20;
    private static final int RETRIED = 3;
    private static final Duration STEP = Duration.ofSeconds(60);

    @TempDir
    static Path dir;

    private static final List<String> acknowledged = new ArrayList<>();

    @BeforeAll
    static void theProducerRetriesToTheNewLeaderThenTheOutage(LocalKafkaCluster cluster) throws Exception {
        cluster.createTopic(TOPIC, List.of(OLD_LEADER, NEW_LEADER, LAST_LEADER), Map.of(
                TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, "2",
                TopicConfig.UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG, "false"));
        cluster.metadata().awaitPartition(RETRIED_0, v -> v.leader() == OLD_LEADER && v.isr().size() == 3, STEP);
        try (KafkaProducer<String, String> producer = producer(cluster)) {
            for (int i = 0; i < BY_ALL; i++) {
                producer.send(new ProducerRecord<>(TOPIC, 0, "k", "all-" + i)).get();   // [0, 20) on all three
                acknowledged.add("all-" + i);
            }
            // the followers hang: the leader appends the next batches at [20, 23) and waits for them to follow; it
            // dies with them unacknowledged, the first follower in assignment order is elected and sent them again
            acknowledged.addAll(sendAgainToTheNextLeader(cluster, producer, RETRIED_0, OLD_LEADER,
                    List.of(NEW_LEADER, LAST_LEADER), NEW_LEADER, RETRIED, BY_ALL));
        }
        // the new leader dies, then the last one; the first two come back from unclean shutdowns, out of the ISR and
        // ELR: offline with two live replicas, the last leader down
        cluster.stopBroker(NEW_LEADER, StopMode.ABRUPT);
        cluster.metadata().awaitBrokerFenced(NEW_LEADER);
        cluster.metadata().awaitPartition(RETRIED_0, v -> v.leader() == LAST_LEADER, STEP);
        cluster.stopBroker(LAST_LEADER, StopMode.ABRUPT);
        cluster.metadata().awaitBrokerFenced(LAST_LEADER);
        cluster.startBroker(OLD_LEADER);
        cluster.startBroker(NEW_LEADER);
        cluster.metadata().awaitBrokerUnfenced(OLD_LEADER);
        cluster.metadata().awaitBrokerUnfenced(NEW_LEADER);
        cluster.metadata().awaitPartition(RETRIED_0, v -> v.leader() == PartitionView.NO_LEADER, STEP);
    }

    @Test
    void batches_retried_to_the_new_leader_are_not_counted_lost_nor_salvaged_and_nothing_is_read_twice(
            LocalKafkaCluster cluster) throws Exception {
        // the last leader stays down: its disk says what it holds
        Path evidence = dir.resolve("evidence.json");
        CliRun inspected = CliRun.of("inspect", "--log-dir", cluster.logDir(LAST_LEADER).toString(), "--output-file",
                evidence.toString());
        assertThat(inspected.exitCode()).as(inspected.out() + inspected.err()).isEqualTo(ExitCode.OK);
        Path plan = dir.resolve("plan.json");
        CliRun planned = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "plan", "--strategy", "proactive",
                "--topic", TOPIC, "--evidence", evidence.toString(), "--output-file", plan.toString());
        assertThat(planned.exitCode()).as(planned.out() + planned.err()).isEqualTo(ExitCode.OK);
        JsonNode election = Json.mapper().readTree(plan.toFile()).get("partitions").get(0);
        assertThat(election.get("designatedLeader").asInt()).as(election.toString()).isEqualTo(NEW_LEADER);
        // the state this is about: the old leader holds some of [20, 23) in its older epoch (the batches that reached
        // it before it died), the new leader's epoch starts at 20
        JsonNode old = PlannedElections.evidenceOf(election, OLD_LEADER);
        JsonNode elected = PlannedElections.evidenceOf(election, NEW_LEADER);
        assertThat(old.get("logEndOffset").asLong()).isBetween((long) BY_ALL + 1, (long) BY_ALL + RETRIED);
        assertThat(old.get("lastWrittenLeaderEpoch").asInt()).isLessThan(elected.get("lastWrittenLeaderEpoch").asInt());
        JsonNode cut = PlannedElections.truncationOf(election, OLD_LEADER);
        assertThat(cut.get("estimate").asText()).isEqualTo("EXACT");
        assertThat(cut.get("records").asLong()).as(cut.toString()).isZero();

        Path result = dir.resolve("plan-result.json");
        CliRun executed = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test",
                "--plan", plan.toString(), "--result-file", result.toString());
        assertThat(executed.exitCode()).as(executed.out() + executed.err()).isEqualTo(ExitCode.OK);
        cluster.metadata().awaitPartition(RETRIED_0, v -> v.leader() == NEW_LEADER && v.isr().contains(OLD_LEADER),
                STEP);
        // Kafka did cut the old leader's copy where its epoch ends, and fetched the same batches back
        assertThat(cluster.nodes().logSinceLastStart(OLD_LEADER)).containsPattern("Truncating to offset " + BY_ALL
                + "\\b.*" + RETRIED_0 + "\\b|" + RETRIED_0 + "\\b.*Truncating to offset " + BY_ALL + "\\b");
        // nothing was copied: the salvage holds no segment
        Path salvage = dir.resolve("plan-salvage");
        if (Files.exists(salvage)) {
            try (Stream<Path> files = Files.walk(salvage)) {
                assertThat(files.filter(f -> f.toString().endsWith(".log")).toList()).isEmpty();
            }
        }
        // and the log holds every acknowledged record once, at the offsets the producer was told
        Map<Long, String> log = read(cluster, RETRIED_0);
        assertThat(log.values()).containsExactlyElementsOf(acknowledged);
        for (int i = 0; i < RETRIED; i++) {
            assertThat(log.get((long) BY_ALL + i)).isEqualTo("retried-" + i);
        }
    }

    /**
     * With {@code hung} paused (SIGSTOP), sends {@code count} records that {@code leader} appends from offset
     * {@code from} but cannot have acknowledged; kills {@code leader} and resumes the others, before their sessions
     * end so they stay in the ISR; once {@code next} leads, the producer's retries land there at the same offsets, in
     * its epoch. Returns the values acknowledged, in order.
     */
    static List<String> sendAgainToTheNextLeader(LocalKafkaCluster cluster, KafkaProducer<String, String> producer,
                                                 TopicPartition tp, int leader, List<Integer> hung, int next, int count,
                                                 long from) throws Exception {
        hung.forEach(cluster::pauseBroker);
        // a fetch each had waiting on the leader (replica.fetch.wait.max.ms, 500 ms) is answered, empty, meanwhile:
        // one still waiting would be answered with the new batches, which they would append once resumed
        Thread.sleep(1_000);
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            sent.add(producer.send(new ProducerRecord<>(tp.topic(), tp.partition(), "k", "retried-" + i)));
        }
        Thread.sleep(1_500);
        cluster.stopBroker(leader, StopMode.ABRUPT);
        hung.forEach(cluster::resumeBroker);
        cluster.metadata().awaitBrokerFenced(leader);
        cluster.metadata().awaitPartition(tp, v -> v.leader() == next, STEP);
        List<String> acknowledged = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            assertThat(sent.get(i).get(STEP.toSeconds(), TimeUnit.SECONDS).offset()).isEqualTo(from + i);
            acknowledged.add("retried-" + i);
        }
        return acknowledged;
    }

    /** An idempotent producer: waits for every in-sync replica, batches what is sent at once, retries two minutes. */
    static KafkaProducer<String, String> producer(LocalKafkaCluster cluster) {
        Properties props = new Properties();
        props.putAll(cluster.clientProperties());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        // The records sent together go in one batch: a second one would wait behind the first, held for acks=all, in
        // the leader's queue (a broker reads one request per connection at a time) and never reach its log.
        props.put(ProducerConfig.LINGER_MS_CONFIG, "100");
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "120000");
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "60000");
        return new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
    }

    /** The partition's values by offset, read from its leader. */
    static Map<Long, String> read(LocalKafkaCluster cluster, TopicPartition tp) {
        Properties props = new Properties();
        props.putAll(cluster.clientProperties());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        Map<Long, String> log = new TreeMap<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props, new StringDeserializer(),
                new StringDeserializer())) {
            consumer.assign(List.of(tp));
            long end = consumer.endOffsets(List.of(tp)).get(tp);
            long deadline = System.nanoTime() + STEP.toNanos();
            while (consumer.position(tp) < end && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    log.put(r.offset(), r.value());
                }
            }
        }
        return log;
    }
}
