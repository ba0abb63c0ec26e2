// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.ClusterBackend;
import dev.uncleanrecovery.localcluster.LastReplicaStandingOutage;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.PartitionView;
import dev.uncleanrecovery.formats.Json;
import dev.uncleanrecovery.formats.PlanFile;
import dev.uncleanrecovery.formats.PlannedElection;
import dev.uncleanrecovery.formats.ResultFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.testcontainers.DockerClientFactory;

/**
 * The container suite: status, plan and execute on the last-replica-standing outage, with every Kafka node in a
 * Docker container. The tool's own Surefire execution {@code containers} runs it with
 * {@code -Dkafka.test.backend=containers}; without a Docker engine the extension reports it skipped, with the reason.
 */
@KafkaClusterTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ContainerBackendClusterTest {

    private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);
    private static final String LABEL = "dev.uncleanrecovery.harness";

    @TempDir
    static Path dir;

    private static LastReplicaStandingOutage.Result outage;

    @BeforeAll
    static void breakTheClusterInItsContainers(LocalKafkaCluster cluster) throws Exception {
        assumeTrue(cluster.nodes().backend() == ClusterBackend.CONTAINERS,
                "the container suite runs with -D" + ClusterBackend.PROPERTY + "=containers");
        // Every node is a container of the engine (with our label), of the image asked for (or the one made here),
        // and its JVM lives in another mount namespace.
        String image = System.getProperty("kafka.test.image", "");
        assertThat(cluster.nodes().containerImage()).hasValueSatisfying(used -> {
            if (image.isBlank()) {
                assertThat(used).startsWith("kafka-unclean-recovery/kafka:");
            } else {
                assertThat(used).isEqualTo(image);
            }
        });
        assertThat(DockerClientFactory.instance().client().listContainersCmd().withLabelFilter(List.of(LABEL)).exec())
                .hasSize(cluster.nodes().ids().size())
                .allSatisfy(container -> assertThat(container.getImage()).isEqualTo(cluster.nodes().containerImage().get()));
        String ours = Files.readSymbolicLink(Path.of("/proc/self/ns/mnt")).toString();
        for (int node : cluster.nodes().ids()) {
            long pid = cluster.nodes().pid(node).orElseThrow();
            assertThat(Files.readSymbolicLink(Path.of("/proc/" + pid + "/ns/mnt")).toString())
                    .as("mount namespace of node %d", node).isNotEqualTo(ours);
        }
        outage = LastReplicaStandingOutage.reproduce(cluster, "orders", 2, 50, 10, step -> { });
    }

    @Test
    @Order(1)
    void status_shows_the_offline_partitions_as_kafka_reports_them(LocalKafkaCluster cluster) throws Exception {
        PartitionView kafkaSays = cluster.metadata().describePartition(ORDERS_0);

        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "status", "--topic", "orders",
                "--output", "json");

        assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCode.ATTENTION);
        JsonNode status = Json.mapper().readTree(run.out());
        assertThat(status.get("offline")).hasSize(outage.partitions());
        JsonNode first = status.get("offline").get(0);
        assertThat(first.get("partition").asInt()).isZero();
        assertThat(Json.mapper().convertValue(first.get("replicas"), List.class)).isEqualTo(kafkaSays.replicas());
        assertThat(status.get("fencedBrokers").toString()).isEqualTo("[" + LastReplicaStandingOutage.LAST_LEADER + "]");
    }

    @Test
    @Order(2)
    void plan_designates_the_longest_log_and_changes_nothing(LocalKafkaCluster cluster) throws Exception {
        PartitionView before = cluster.metadata().describePartition(ORDERS_0);
        Path planFile = dir.resolve("plan.json");

        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "plan", "--strategy", "proactive",
                "--probe-timeout-ms", "3000", "--topic", "orders", "--output-file", planFile.toString());

        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.OK);
        List<PlannedElection> elections = PlanFile.read(planFile).partitions();
        assertThat(elections).hasSize(outage.partitions()).allSatisfy(election -> {
            assertThat(election.designatedLeader()).isEqualTo(LastReplicaStandingOutage.LONGEST_SURVIVOR);
            assertThat(election.evidence()).filteredOn(e -> e.broker() == LastReplicaStandingOutage.LONGEST_SURVIVOR)
                    .singleElement().satisfies(e -> assertThat(e.logEndOffset())
                            .isEqualTo(outage.survivorLogEndOffsets().get(LastReplicaStandingOutage.LONGEST_SURVIVOR)));
        });
        PartitionView after = cluster.metadata().describePartition(ORDERS_0);
        assertThat(after.leader()).isEqualTo(PartitionView.NO_LEADER);
        assertThat(after.replicas()).isEqualTo(before.replicas());
    }

    @Test
    @Order(3)
    void execute_elects_it_and_every_record_it_held_is_readable(LocalKafkaCluster cluster) throws Exception {
        Path planFile = dir.resolve("plan.json");
        Path resultFile = dir.resolve("result.json");

        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test", "--accept-unknown-loss", "--plan",
                planFile.toString(), "--result-file", resultFile.toString());

        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.OK);
        assertThat(ResultFile.read(resultFile).partitions()).hasSize(outage.partitions())
                .allSatisfy(partition -> assertThat(partition.outcome()).isEqualTo("ELECTED"));
        long held = outage.survivorLogEndOffsets().get(LastReplicaStandingOutage.LONGEST_SURVIVOR);
        for (TopicPartition partition : outage.topicPartitions()) {
            PartitionView led = cluster.metadata().awaitPartition(partition, v -> v.leader() != PartitionView.NO_LEADER,
                    Duration.ofSeconds(30));
            assertThat(led.leader()).isEqualTo(LastReplicaStandingOutage.LONGEST_SURVIVOR);
            assertThat(readableRecords(cluster, partition)).isEqualTo(held);
        }
    }

    @Test
    @Order(4)
    void a_paused_broker_container_is_stopped_until_resumed(LocalKafkaCluster cluster) throws Exception {
        int broker = LastReplicaStandingOutage.SHORTEST_SURVIVOR;
        long pid = cluster.nodes().pid(broker).orElseThrow();

        cluster.pauseBroker(broker);
        String paused = processState(pid);
        cluster.resumeBroker(broker);

        assertThat(paused).as("state of broker %d's JVM while paused", broker).isEqualTo("T");
        assertThat(processState(pid)).isIn("S", "R");
    }

    private static String processState(long pid) throws Exception {
        return Files.readAllLines(Path.of("/proc/" + pid + "/status")).stream()
                .filter(line -> line.startsWith("State:")).findFirst().orElseThrow()
                .substring("State:".length()).trim().substring(0, 1);
    }

    private static long readableRecords(LocalKafkaCluster cluster, TopicPartition partition) {
        Properties config = new Properties();
        config.putAll(cluster.clientProperties());
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config, new StringDeserializer(),
                new StringDeserializer())) {
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long end = consumer.endOffsets(List.of(partition)).get(partition);
            long read = 0;
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (consumer.position(partition) < end && System.nanoTime() < deadline) {
                read += consumer.poll(Duration.ofMillis(500)).count();
            }
            return read;
        }
    }
}
