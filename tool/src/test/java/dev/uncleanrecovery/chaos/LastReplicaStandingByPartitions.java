// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.uncleanrecovery.cli.ToolJvm;
import dev.uncleanrecovery.formats.Json;
import dev.uncleanrecovery.localcluster.ClusterNetwork;
import dev.uncleanrecovery.localcluster.LastReplicaStandingOutage;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.LogTailCut;
import dev.uncleanrecovery.localcluster.PartitionView;
import dev.uncleanrecovery.localcluster.StopMode;
import dev.uncleanrecovery.logdir.ReplicaDisks;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.FileLogInputStream.FileChannelRecordBatch;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * KIP-966's "last replica standing" as the KIP tells it, with network partitions rather than crashes, on a cluster
 * whose controller keeps no ELR (3.x, or 4.x until ELR is enabled): replicas [1, 2, 3], min.insync.replicas 2.
 *
 * <ol>
 *   <li>T0: broker 1, the leader, is cut off from every other host: fenced, out of the ISR; 2 leads;</li>
 *   <li>T1: broker 2 is cut off too: the ISR is [3] alone, acks=all is refused, acks=1 lands on 3 alone;</li>
 *   <li>T2: broker 3 dies uncleanly and loses the tail of its log, committed writes that 2 holds among them;</li>
 *   <li>T3: the partitions heal: 1 and 2 are back, unfenced, and may not lead; the partition stays offline;</li>
 *   <li>the operator runs the tool from the clients' host; T4: the old leader 3 returns.</li>
 * </ol>
 *
 * The topic's three partitions go through the same steps and writes, and are recovered three ways: partition 0 by
 * the tool as the runbook says (balanced waits for the last ISR member, so its disk is read with {@code inspect} on
 * its host first), partition 1 by Kafka's own unclean election, partition 2 by Kafka itself when 3 returns (it is
 * still the ISR). The test fails if the tool elects a replica that lacks an acknowledged acks=all write that a live
 * replica held, as read from every replica's log on disk; what Kafka's two elections lost is printed beside it.
 * Broker 4 holds no replica: it keeps answering the harness's metadata requests while the others are cut off.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
abstract class LastReplicaStandingByPartitions {

    static final String TOPIC = "kip966";
    static final TopicPartition BY_THE_TOOL = new TopicPartition(TOPIC, 0);
    static final TopicPartition BY_KAFKAS_UNCLEAN_ELECTION = new TopicPartition(TOPIC, 1);
    static final TopicPartition BY_KAFKA_ON_RETURN = new TopicPartition(TOPIC, 2);
    static final List<TopicPartition> PARTITIONS = List.of(BY_THE_TOOL, BY_KAFKAS_UNCLEAN_ELECTION, BY_KAFKA_ON_RETURN);
    static final int CUT_OFF_FIRST = 1;
    static final int CUT_OFF_SECOND = 2;
    static final int LAST_STANDING = 3;
    static final List<Integer> REPLICAS = List.of(CUT_OFF_FIRST, CUT_OFF_SECOND, LAST_STANDING);

    private static final int BEFORE_T0 = 50;
    private static final int BETWEEN_T0_AND_T1 = 100;
    private static final int AFTER_T1 = 20;
    /** Broker 3 keeps its log up to here: half of what only 2 and 3 acknowledged is gone from it. */
    private static final long TAIL_CUT_AT = BEFORE_T0 + BETWEEN_T0_AND_T1 / 2;
    private static final int CHUNK = 10;
    private static final Duration STEP = Duration.ofSeconds(60);
    private static final Duration TOOL_RUN = Duration.ofMinutes(3);

    /** A write the producer had acknowledged, where it landed. */
    record Acknowledged(TopicPartition partition, long offset, String value, String acks) {
    }

    @Test
    @Order(1)
    void the_tool_keeps_every_acknowledged_write_a_live_replica_held(LocalKafkaCluster cluster, @TempDir Path dir)
            throws Exception {
        ClusterNetwork network = cluster.network();
        List<Acknowledged> acknowledged = partitionTheReplicas(cluster, PARTITIONS, false);
        // T3 without ELR: 1 and 2 are unfenced but not in the ISR, which only holds 3: still offline
        PARTITIONS.forEach(tp -> await(cluster, tp, "T3", v -> v.isLeaderless()
                && v.isr().equals(List.of(LAST_STANDING))));

        // what every replica holds now, read off its disk (3's as its own log recovery will leave it)
        Map<TopicPartition, Map<Integer, ReplicaDisks.ReplicaLog>> held =
                readReplicas(cluster, TOPIC, dir.resolve("oracle"));
        Map<TopicPartition, List<Acknowledged>> heldByLive = new LinkedHashMap<>();
        for (TopicPartition tp : PARTITIONS) {
            heldByLive.put(tp, acknowledged.stream().filter(w -> w.partition().equals(tp) && w.acks().equals("all"))
                    .filter(w -> holds(held.get(tp).get(CUT_OFF_FIRST), w)
                            || holds(held.get(tp).get(CUT_OFF_SECOND), w))
                    .toList());
        }
        assertThat(heldByLive.get(BY_THE_TOOL)).as("2 holds every write acknowledged with acks=all")
                .hasSize(BEFORE_T0 + BETWEEN_T0_AND_T1);

        // the tool, from the clients' host, as the runbook says
        String bootstrap = cluster.bootstrapServers();
        String partition = String.valueOf(BY_THE_TOOL.partition());
        ToolJvm.Run status = tool(cluster, dir, "--bootstrap-server", bootstrap, "status");
        assertThat(status.exitCode()).as(status.output()).isEqualTo(3);
        ToolJvm.Run waits = tool(cluster, dir, "--bootstrap-server", bootstrap, "recover", "--topic", TOPIC,
                "--partition", partition, "--output-file", dir.resolve("plan-without-evidence.json").toString());
        assertThat(waits.exitCode()).as(waits.output()).isEqualTo(3);
        assertThat(waits.output()).contains("leaderless-ISR member " + LAST_STANDING);
        assertThat(cluster.metadata().describePartition(BY_THE_TOOL).isLeaderless()).as("recover only planned").isTrue();
        Path evidence = dir.resolve("evidence-broker-" + LAST_STANDING + ".json");
        ToolJvm.Run inspect = ToolJvm.runToTheEndOn(network, network.node(LAST_STANDING), dir, TOOL_RUN, "inspect",
                "--log-dir", cluster.logDir(LAST_STANDING).toString(), "--output-file", evidence.toString());
        assertThat(inspect.exitCode()).as(inspect.output()).isZero();
        Path plan = dir.resolve("plan.json");
        ToolJvm.Run planned = tool(cluster, dir, "--bootstrap-server", bootstrap, "plan", "--topic", TOPIC,
                "--partition", partition, "--evidence", evidence.toString(), "--output-file", plan.toString());
        assertThat(planned.exitCode()).as(planned.output()).isZero();
        int designated = designatedLeader(plan);
        List<Acknowledged> lostByTheChoice = heldByLive.get(BY_THE_TOOL).stream()
                .filter(w -> !holds(held.get(BY_THE_TOOL).get(designated), w)).toList();
        assertThat(lostByTheChoice).as("acknowledged writes a live replica held that the designated broker %d lacks;"
                + " the plan:\n%s", designated, planned.output()).isEmpty();
        ToolJvm.Run executed = tool(cluster, dir, "--bootstrap-server", bootstrap, "execute", "--plan", plan.toString(),
                "--reason", "KIP-966 last replica standing, by network partitions");
        assertThat(executed.exitCode()).as(executed.output()).isZero();
        await(cluster, BY_THE_TOOL, "elected by the tool", v -> v.leader() == designated);

        // beside it, on the same state: Kafka's unclean election, and Kafka's own choice once 3 returns (T4)
        try (Admin admin = cluster.createAdmin()) {
            admin.electLeaders(ElectionType.UNCLEAN, Set.of(BY_KAFKAS_UNCLEAN_ELECTION)).partitions().get();
        }
        int uncleanChoice = await(cluster, BY_KAFKAS_UNCLEAN_ELECTION, "Kafka's unclean election",
                v -> !v.isLeaderless()).leader();
        cluster.startBroker(LAST_STANDING);
        int choiceOnReturn = await(cluster, BY_KAFKA_ON_RETURN, "T4", v -> !v.isLeaderless()).leader();
        PARTITIONS.forEach(tp -> await(cluster, tp, "caught up", v -> v.isr().size() == 3));

        Map<TopicPartition, Map<Long, String>> after = ChaosTrial.readAll(cluster, PARTITIONS);
        Map<TopicPartition, Long> lost = new LinkedHashMap<>();
        PARTITIONS.forEach(tp -> lost.put(tp, heldByLive.get(tp).stream()
                .filter(w -> !w.value().equals(after.get(tp).get(w.offset()))).count()));
        System.out.printf("KIP-966 by network partitions on Kafka %s: %d writes acknowledged with acks=all a"
                        + " partition, %d held by a live replica once the partitions healed%n"
                        + "  %s  the tool (inspect, plan, execute):  elected %d, lost %d%n"
                        + "  %s  Kafka's unclean election:            elected %d, lost %d%n"
                        + "  %s  Kafka, once the old leader returned: elected %d, lost %d%n",
                cluster.kafkaVersion(), BEFORE_T0 + BETWEEN_T0_AND_T1, heldByLive.get(BY_THE_TOOL).size(),
                BY_THE_TOOL, designated, lost.get(BY_THE_TOOL), BY_KAFKAS_UNCLEAN_ELECTION, uncleanChoice,
                lost.get(BY_KAFKAS_UNCLEAN_ELECTION), BY_KAFKA_ON_RETURN, choiceOnReturn, lost.get(BY_KAFKA_ON_RETURN));
        assertThat(lost.get(BY_THE_TOOL)).as("acknowledged writes lost after the tool's election").isZero();
        // the outage is KIP-966's: Kafka's own choice on its return, the last ISR member, loses committed writes
        assertThat(choiceOnReturn).isEqualTo(LAST_STANDING);
        assertThat(lost.get(BY_KAFKA_ON_RETURN)).isEqualTo(BETWEEN_T0_AND_T1 - (TAIL_CUT_AT - BEFORE_T0));
    }

    /**
     * T0 to T3 on every partition of a new topic (replicas [1, 2, 3], min.insync.replicas 2), each step awaited as the
     * controller reports it; returns every write the producers had acknowledged. Ends once 1 and 2 are unfenced.
     *
     * @param elr whether the controller keeps ELR: it then moves 2, and at T2 3 too, into ELR as they leave the ISR
     */
    static List<Acknowledged> partitionTheReplicas(LocalKafkaCluster cluster, List<TopicPartition> partitions,
                                                   boolean elr) throws Exception {
        ClusterNetwork network = cluster.network();
        String topic = partitions.get(0).topic();
        LastReplicaStandingOutage.createTopic(cluster, topic, partitions.size(), REPLICAS);
        partitions.forEach(tp -> await(cluster, tp, "created", v -> v.leader() == CUT_OFF_FIRST
                && v.isr().size() == 3));
        List<Acknowledged> acknowledged = new ArrayList<>(produce(cluster, partitions, "before-t0", BEFORE_T0, "all"));

        // T0: the leader is cut off; the controller fences it and the ISR shrinks to [2, 3], 2 leading
        network.isolate(CUT_OFF_FIRST);
        cluster.metadata().awaitBrokerFenced(CUT_OFF_FIRST, STEP);
        partitions.forEach(tp -> await(cluster, tp, "T0", v -> v.leader() == CUT_OFF_SECOND
                && v.isr().equals(List.of(CUT_OFF_SECOND, LAST_STANDING)) && v.elr().isEmpty()));
        acknowledged.addAll(produce(cluster, partitions, "t0-to-t1", BETWEEN_T0_AND_T1, "all"));

        // T1: 2 is cut off too; the ISR is [3] alone, below min.insync.replicas: acks=all is refused, acks=1 lands
        network.isolate(CUT_OFF_SECOND);
        cluster.metadata().awaitBrokerFenced(CUT_OFF_SECOND, STEP);
        List<Integer> elrAtT1 = elr ? List.of(CUT_OFF_SECOND) : List.of();
        partitions.forEach(tp -> await(cluster, tp, "T1", v -> v.leader() == LAST_STANDING
                && v.isr().equals(List.of(LAST_STANDING)) && v.elr().equals(elrAtT1)));
        acknowledged.addAll(produce(cluster, partitions, "after-t1", AFTER_T1, "1"));

        // T2: the last ISR member dies uncleanly, and the tail of its log never reached its disk. Without ELR the
        // controller keeps it as the ISR; with ELR the ISR empties into ELR
        cluster.stopBroker(LAST_STANDING, StopMode.ABRUPT);
        cluster.metadata().awaitBrokerFenced(LAST_STANDING, STEP);
        partitions.forEach(tp -> await(cluster, tp, "T2", v -> v.isLeaderless() && (elr
                ? v.isr().isEmpty() && v.elr().containsAll(REPLICAS.subList(1, 3))
                : v.isr().equals(List.of(LAST_STANDING)))));
        for (TopicPartition tp : partitions) {
            cluster.disk().truncateReplicaLog(tp, LAST_STANDING, LogTailCut.keepBytes(positionOf(cluster, tp)));
        }

        // T3: the partitions heal
        network.heal();
        cluster.metadata().awaitBrokerUnfenced(CUT_OFF_FIRST, STEP);
        cluster.metadata().awaitBrokerUnfenced(CUT_OFF_SECOND, STEP);
        return acknowledged;
    }

    private static ToolJvm.Run tool(LocalKafkaCluster cluster, Path dir, String... args) throws Exception {
        return ToolJvm.runToTheEndOn(cluster.network(), cluster.network().clients(), dir, TOOL_RUN, args);
    }

    static PartitionView await(LocalKafkaCluster cluster, TopicPartition tp, String step,
                                       java.util.function.Predicate<PartitionView> expected) {
        PartitionView view = cluster.metadata().awaitPartition(tp, expected, STEP);
        System.out.println(step + ": " + view);
        return view;
    }

    /**
     * Writes {@code perPartition} records to every partition in chunks of {@link #CHUNK}, each chunk flushed and
     * acknowledged before the next: batches of at most a chunk, so a log can be cut between any two.
     */
    static List<Acknowledged> produce(LocalKafkaCluster cluster, List<TopicPartition> partitions, String round,
                                      int perPartition, String acks) throws ExecutionException, InterruptedException {
        Properties config = new Properties();
        config.putAll(cluster.clientProperties());
        config.put(ProducerConfig.ACKS_CONFIG, acks);
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, String.valueOf(acks.equals("all")));
        config.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        // a broker cut off answers nothing: give up on a connection soon and ask another for the leaders
        config.put(ProducerConfig.SOCKET_CONNECTION_SETUP_TIMEOUT_MS_CONFIG, 2_000);
        config.put(ProducerConfig.SOCKET_CONNECTION_SETUP_TIMEOUT_MAX_MS_CONFIG, 4_000);
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 4_000);
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 60_000);
        List<Acknowledged> written = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config, new StringSerializer(),
                new StringSerializer())) {
            for (int start = 0; start < perPartition; start += CHUNK) {
                Map<Future<RecordMetadata>, ProducerRecord<String, String>> chunk = new LinkedHashMap<>();
                for (TopicPartition tp : partitions) {
                    for (int i = start; i < Math.min(start + CHUNK, perPartition); i++) {
                        ProducerRecord<String, String> record = new ProducerRecord<>(tp.topic(), tp.partition(),
                                round + "-" + i, round + "-" + i + " acks=" + acks);
                        chunk.put(producer.send(record), record);
                    }
                }
                producer.flush();
                for (Map.Entry<Future<RecordMetadata>, ProducerRecord<String, String>> sent : chunk.entrySet()) {
                    RecordMetadata landed = sent.getKey().get();
                    written.add(new Acknowledged(new TopicPartition(landed.topic(), landed.partition()),
                            landed.offset(), sent.getValue().value(), acks));
                }
            }
        }
        return written;
    }

    /** Where in broker 3's last segment of {@code tp} the batch holding {@link #TAIL_CUT_AT} starts. */
    private static long positionOf(LocalKafkaCluster cluster, TopicPartition tp) throws IOException {
        Path segment;
        try (Stream<Path> files = Files.list(cluster.disk().replicaDirectory(LAST_STANDING, tp))) {
            segment = files.filter(f -> f.getFileName().toString().endsWith(".log"))
                    .max(Comparator.comparing(f -> f.getFileName().toString())).orElseThrow();
        }
        try (FileRecords records = FileRecords.open(segment.toFile(), false, true, 0, false)) {
            for (FileChannelRecordBatch batch : records.batches()) {
                if (batch.baseOffset() >= TAIL_CUT_AT) {
                    assertThat(batch.baseOffset()).as("a batch starts where the cut falls").isEqualTo(TAIL_CUT_AT);
                    return batch.position();
                }
            }
        }
        throw new AssertionError(segment + " ends before offset " + TAIL_CUT_AT);
    }

    static Map<TopicPartition, Map<Integer, ReplicaDisks.ReplicaLog>> readReplicas(LocalKafkaCluster cluster,
                                                                                  String topic, Path scratch) {
        Map<TopicPartition, Map<Integer, ReplicaDisks.ReplicaLog>> held = new LinkedHashMap<>();
        try (ReplicaDisks disks = ReplicaDisks.open()) {
            for (int broker : REPLICAS) {
                for (ReplicaDisks.ReplicaLog replica : disks.read(cluster.logDir(broker), Set.of(topic),
                        scratch.resolve("broker-" + broker))) {
                    held.computeIfAbsent(replica.partition(), tp -> new LinkedHashMap<>()).put(broker, replica);
                }
            }
        }
        return held;
    }

    static boolean holds(ReplicaDisks.ReplicaLog replica, Acknowledged write) {
        return write.value().equals(replica.values().get(write.offset()));
    }

    private static int designatedLeader(Path plan) {
        try {
            JsonNode partitions = Json.mapper().readTree(plan.toFile()).get("partitions");
            assertThat(partitions).as("the plan's partitions").hasSize(1);
            return partitions.get(0).get("designatedLeader").asInt();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
