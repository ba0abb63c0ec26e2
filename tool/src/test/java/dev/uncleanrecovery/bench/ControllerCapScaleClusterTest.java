// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.cli.ExitCode;
import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.formats.ResultFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ElectLeadersOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * More offline partitions than Kafka's controller takes in one request, on a real Kafka 4.4.0 cluster: 10,500 over
 * three topics (CreateTopics takes at most 9,999 partitions a topic), every one needing the stock elector's reorder.
 * The tool leads them all in requests of at most 9,999 partitions; and Kafka's own controller still fails on an
 * election of exactly 10,000 — the day it no longer does, this test says so.
 *
 * <p>Not in the default run: {@code -Pscale} (see docs/benchmarks.md). Each broker holds 10,500 replicas, an open
 * segment each: under this machine's 20,000 open files per process, with a heap of 1 GiB.
 */
@KafkaClusterTest(kafkaVersion = "4.4.0", brokerJvmArgs = {"-Xms1g", "-Xmx1g"},
        controllerJvmArgs = {"-Xms512m", "-Xmx512m"}, startupTimeoutSeconds = 600)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ControllerCapScaleClusterTest {

    private static final List<String> TOPICS = List.of("cap-a", "cap-b", "cap-c");
    private static final int PER_TOPIC = 3_500;
    private static final int PARTITIONS = TOPICS.size() * PER_TOPIC;
    /** QuorumController's batch size; an election of this many partitions appends an empty batch after them. */
    private static final int KAFKA_BATCH = 10_000;
    /** What the controller logs when it fails on that empty batch (Kafka 4.4.0). */
    private static final String EMPTY_BATCH_FAULT = "Append failed because there are no records";

    @TempDir
    static Path dir;

    @BeforeAll
    static void everyPartitionOffline(LocalKafkaCluster cluster) {
        // [1,3,2] everywhere: 3, the shorter log, stands before 2, so every partition is reordered
        ManyPartitionOutage.reproduce(cluster, TOPICS, PER_TOPIC, p -> List.of(ManyPartitionOutage.LAST_LEADER,
                ManyPartitionOutage.SHORTEST, ManyPartitionOutage.LONGEST),
                ManyPartitionOutage.Writes.singleEpoch(1, 0), System.out::println);
    }

    @Test
    @Order(1)
    void recover_leads_more_partitions_than_one_controller_request_takes(LocalKafkaCluster cluster) throws Exception {
        Path plan = dir.resolve("cap.json");
        Path requestLog = dir.resolve("requests.log");
        Path gcLog = dir.resolve("gc.log");
        // the tool as the launcher runs it (its JVM flags and default heap bound), with its request log and a GC log
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        command.addAll(Benchmarks.toolJvmFlags());
        command.addAll(Benchmarks.toolHeapFlags());
        command.addAll(List.of("-Xlog:gc:file=" + gcLog, "-Dkafka.unclean.recovery.request.log=" + requestLog,
                "-cp", System.getProperty("java.class.path"), "dev.uncleanrecovery.cli.Main",
                "--bootstrap-server", cluster.bootstrapServers(), "recover", "--automated-recovery", "--reason", "test", "--strategy",
                "proactive", "--accept-unknown-loss", "--output-file", plan.toString()));

        MeasuredProcess.Measurement run = MeasuredProcess.run(command, dir.resolve("recover"), 900);

        String output = Files.readString(run.stdout()) + Files.readString(run.stderr());
        assertThat(run.exitCode()).as(output).isEqualTo(ExitCode.OK);
        ResultFile result = ResultFile.read(dir.resolve("cap-result.json"));
        assertThat(result.summary().elected()).as(output).isEqualTo(PARTITIONS);
        Map<String, Long> sent = sentRequests(requestLog);
        System.out.printf("recover of %,d partitions (%s): %,d ms wall, %,d ms CPU, peak RSS %,d MiB, heap %s;"
                        + " %s; new leaders shown %s ms after the last election; plan file %,d bytes%n",
                PARTITIONS, String.join(" ", Benchmarks.toolHeapFlags()), run.wallMillis(), run.cpuMillis(),
                run.peakRssKib() / 1024, GcLog.read(gcLog), sent, result.leadersShownMs(), Files.size(plan));
        System.out.println(output.lines().filter(l -> l.contains("brokers' metadata") || l.contains(" elected, ")
                || l.contains("electing") || l.contains("reorder") || l.contains("restor")).collect(Collectors.joining("\n")));
        // 10,500 partitions a kind: two requests each (9,999 + 501), more if a broker did not answer one in time;
        // the controller refuses a request of more than 10,000 and fails on one of exactly 10,000 (checked below)
        assertThat(sent.get("ELECT_LEADERS")).isGreaterThanOrEqualTo(2L);
        assertThat(sent.get("ALTER_PARTITION_REASSIGNMENTS")).as("reorder and restore").isGreaterThanOrEqualTo(4L);
        assertThat(result.leadersShownMs()).isNotNull();
        assertThat(output).contains("Every live broker's metadata showed every new leader");

        try (Admin admin = cluster.createAdmin()) {
            // the restored orders are committed when the tool ends; a broker's metadata may show them a moment later
            long exited = System.nanoTime();
            List<TopicPartitionInfo> all = describe(admin);
            while (!all.stream().allMatch(ControllerCapScaleClusterTest::ledAndRestored)
                    && System.nanoTime() - exited < TimeUnit.SECONDS.toNanos(60)) {
                Thread.sleep(250);
                all = describe(admin);
            }
            System.out.printf("Admin's describe showed all %,d led by 2 with their order restored %,d ms after the tool"
                    + " exited%n", PARTITIONS, (System.nanoTime() - exited) / 1_000_000);
            assertThat(all).hasSize(PARTITIONS).allSatisfy(p -> {
                assertThat(ManyPartitionOutage.leaderOf(p)).isEqualTo(ManyPartitionOutage.LONGEST);
                assertThat(p.replicas()).extracting(n -> n.id()).as("the replica order restored").containsExactly(
                        ManyPartitionOutage.LAST_LEADER, ManyPartitionOutage.SHORTEST, ManyPartitionOutage.LONGEST);
            });
        }
        String controllerLog = cluster.nodes().logSinceLastStart(cluster.controllers().firstId());
        assertThat(controllerLog).doesNotContain(EMPTY_BATCH_FAULT).doesNotContain("BoundedListTooLongException")
                .doesNotContain("Encountered quorum controller fault");
    }

    /**
     * Kafka's fault itself, with Admin as any client sends it: an election of exactly 10,000 partitions writes 10,000
     * records, and the controller appends them in batches of 10,000 and then an empty one, which fails. Once a Kafka
     * release no longer does, the tool's limit of 9,999 (ControllerCalls) may go back to 10,000.
     */
    @Test
    @Order(2)
    void kafka_controller_fails_on_an_election_of_exactly_ten_thousand_partitions(LocalKafkaCluster cluster)
            throws Exception {
        // given: broker 1, each partition's preferred replica, back in every ISR under leader 2
        cluster.startBroker(ManyPartitionOutage.LAST_LEADER);
        try (Admin admin = cluster.createAdmin()) {
            List<TopicPartition> preferredElsewhere = awaitInSync(admin, ManyPartitionOutage.LAST_LEADER);
            Set<TopicPartition> exactly = preferredElsewhere.stream().limit(KAFKA_BATCH).collect(Collectors.toSet());
            assertThat(exactly).hasSize(KAFKA_BATCH);

            // when
            String answer;
            try {
                Map<TopicPartition, ?> failed = admin.electLeaders(ElectionType.PREFERRED, exactly,
                        new ElectLeadersOptions().timeoutMs(60_000)).partitions().get(90, TimeUnit.SECONDS);
                answer = "answered for " + failed.size() + " partitions";
            } catch (ExecutionException | TimeoutException e) {
                answer = "failed: " + (e.getCause() == null ? e : e.getCause());
            }

            // then
            String controllerLog = awaitInLog(cluster, cluster.controllers().firstId(), EMPTY_BATCH_FAULT,
                    Duration.ofSeconds(60));
            System.out.println("Admin.electLeaders of " + KAFKA_BATCH + " partitions " + answer + "; the controller logged:\n"
                    + controllerLog.lines().filter(l -> l.contains(EMPTY_BATCH_FAULT) || l.contains("fault")
                            || l.contains("esign") || l.contains("enounc")).limit(10).collect(Collectors.joining("\n")));
            assertThat(controllerLog).as("Kafka " + cluster.kafkaVersion() + " no longer fails on an election of exactly"
                    + " 10,000 partitions: ControllerCalls.MAX_PARTITIONS_PER_REQUEST may be 10,000 again")
                    .contains(EMPTY_BATCH_FAULT);
        }
    }

    private static boolean ledAndRestored(TopicPartitionInfo p) {
        return ManyPartitionOutage.leaderOf(p) == ManyPartitionOutage.LONGEST
                && p.replicas().stream().map(n -> n.id()).toList().equals(List.of(ManyPartitionOutage.LAST_LEADER,
                        ManyPartitionOutage.SHORTEST, ManyPartitionOutage.LONGEST));
    }

    private static List<TopicPartitionInfo> describe(Admin admin) throws Exception {
        List<TopicPartitionInfo> all = new ArrayList<>();
        for (TopicDescription topic : admin.describeTopics(TOPICS).allTopicNames().get().values()) {
            all.addAll(topic.partitions());
        }
        return all;
    }

    /** The partitions whose ISR holds {@code broker} while another broker leads, once there are at least 10,000. */
    private static List<TopicPartition> awaitInSync(Admin admin, int broker) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
        while (true) {
            List<TopicPartition> ready = new ArrayList<>();
            for (TopicDescription topic : admin.describeTopics(TOPICS).allTopicNames().get().values()) {
                for (TopicPartitionInfo p : topic.partitions()) {
                    if (ManyPartitionOutage.leaderOf(p) != broker && p.isr().stream().anyMatch(n -> n.id() == broker)) {
                        ready.add(new TopicPartition(topic.name(), p.partition()));
                    }
                }
            }
            if (ready.size() >= KAFKA_BATCH || System.nanoTime() > deadline) {
                return ready;
            }
            Thread.sleep(1_000);
        }
    }

    private static String awaitInLog(LocalKafkaCluster cluster, int node, String text, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        String log = cluster.nodes().logSinceLastStart(node);
        while (!log.contains(text) && System.nanoTime() < deadline) {
            Thread.sleep(500);
            log = cluster.nodes().logSinceLastStart(node);
        }
        return log;
    }

    /** API name → how many requests of it the tool sent, from its request log. */
    private static Map<String, Long> sentRequests(Path requestLog) throws Exception {
        return Files.readAllLines(requestLog).stream()
                .filter(l -> l.contains("Sending "))
                .map(l -> l.substring(l.indexOf("Sending ") + "Sending ".length()).split(" ")[0])
                .collect(Collectors.groupingBy(api -> api, java.util.TreeMap::new, Collectors.counting()));
    }
}
