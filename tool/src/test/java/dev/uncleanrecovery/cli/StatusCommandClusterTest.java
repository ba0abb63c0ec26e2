// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.LastReplicaStandingOutage;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.PartitionView;
import dev.uncleanrecovery.formats.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

@KafkaClusterTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class StatusCommandClusterTest {

    @Test
    @Order(1)
    void healthy_cluster_shows_nothing_offline(LocalKafkaCluster cluster) throws Exception {
        try (Admin admin = cluster.createAdmin()) {
            admin.createTopics(List.of(new NewTopic("healthy", 2, (short) 3))).all().get();
        }
        cluster.metadata().awaitPartition(new TopicPartition("healthy", 1), v -> v.isr().size() == 3,
                java.time.Duration.ofSeconds(30));

        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "status");

        assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCode.OK);
        assertThat(run.out()).contains("Offline partitions (no leader): none", "At-risk partitions", "none",
                "Eligible Leader Replicas (KIP-966): enabled (eligible.leader.replicas.version=1)",
                "1 up (127.0.0.1:");
    }

    @Test
    @Order(2)
    void unknown_topic_and_missing_partition_are_bad_input(LocalKafkaCluster cluster) {
        CliRun unknown = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "status", "--topic", "no-such-topic");
        CliRun missing = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "status", "--topic", "healthy",
                "--partition", "7");

        assertThat(unknown.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(unknown.err().strip()).isEqualTo("error: unknown topic 'no-such-topic' (check the name with kafka-topics.sh --list)");
        assertThat(missing.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(missing.err()).contains("partition 7 of topic 'healthy' does not exist");
    }

    @Test
    @Order(3)
    void offline_partition_is_shown_with_exactly_the_elr_data_kafka_reports(LocalKafkaCluster cluster) throws Exception {
        LastReplicaStandingOutage.Result outage = LastReplicaStandingOutage.reproduce(cluster, "orders", 1, 50, 10, s -> { });
        TopicPartition tp = outage.topicPartitions().get(0);
        PartitionView kafkaSays = cluster.metadata().describePartition(tp);

        CliRun text = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "status");
        CliRun json = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "status", "--topic", "orders",
                "--output", "json");

        assertThat(kafkaSays.leader()).isEqualTo(PartitionView.NO_LEADER);
        assertThat(text.exitCode()).as(text.err()).isEqualTo(ExitCode.ATTENTION);
        String row = text.out().lines().filter(l -> l.startsWith("orders ")).findFirst().orElseThrow();
        assertThat(row.split("\\s+")).containsExactly("orders", "0", "none", row.split("\\s+")[3],
                ids(kafkaSays.replicas()), ids(kafkaSays.isr()), ids(kafkaSays.elr()), ids(kafkaSays.lastKnownElr()), "[1]");
        assertThat(text.out()).contains("Brokers: 1 FENCED");

        assertThat(json.exitCode()).isEqualTo(ExitCode.ATTENTION);
        JsonNode offline = Json.mapper().readTree(json.out()).get("offline");
        assertThat(offline).hasSize(1);
        JsonNode p = offline.get(0);
        assertThat(Json.mapper().readTree(json.out()).get("version").asInt()).isEqualTo(3);
        assertThat(p.get("topic").asText()).isEqualTo("orders");
        try (org.apache.kafka.clients.admin.Admin admin = cluster.createAdmin()) {
            // Kafka's own form: the base64 text kafka-topics.sh --describe prints
            assertThat(p.get("topicId").asText()).isEqualTo(admin.describeTopics(List.of("orders")).allTopicNames()
                    .get().get("orders").topicId().toString());
        }
        assertThat(p.get("leader").asInt()).isEqualTo(-1);
        assertThat(p.get("leaderEpoch").asInt()).isPositive();
        assertThat(intList(p.get("replicas"))).isEqualTo(kafkaSays.replicas());
        assertThat(intList(p.get("isr"))).isEqualTo(kafkaSays.isr());
        assertThat(intList(p.get("eligibleLeaderReplicas"))).isEqualTo(kafkaSays.elr());
        assertThat(intList(p.get("lastKnownElr"))).isEqualTo(kafkaSays.lastKnownElr()).containsExactly(1);
        assertThat(intList(p.get("offlineReplicas"))).containsExactly(1);
        assertThat(Json.mapper().readTree(json.out()).get("fencedBrokers").toString()).isEqualTo("[1]");
    }

    @Test
    @Order(4)
    void the_request_log_has_one_short_line_per_request_and_answer(LocalKafkaCluster cluster, @TempDir Path dir) throws Exception {
        Path requestLog = dir.resolve("requests.log");

        CliRun run = CliRun.withRequestLog(requestLog, "--bootstrap-server", cluster.bootstrapServers(), "status",
                "--topic", "orders");

        assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCode.ATTENTION);
        List<String> lines = Files.readAllLines(requestLog);
        assertThat(lines).anyMatch(l -> l.matches("\\d\\d:\\d\\d:\\d\\d\\.\\d{3} Sending DESCRIBE_CLUSTER request with header"
                + " \\(correlation id \\d+\\) and timeout \\d+ to node -?\\d+"));
        assertThat(lines).anyMatch(l -> l.matches("\\d\\d:\\d\\d:\\d\\d\\.\\d{3} Received DESCRIBE_TOPIC_PARTITIONS response from node"
                + " \\d+ \\(correlation id \\d+\\) after \\d+ ms"));
        assertThat(lines).anyMatch(l -> l.contains("Sending API_VERSIONS request with header (raw frame"));
        assertThat(lines).anyMatch(l -> l.matches(".* Received API_VERSIONS response from node \\d+ \\(raw frame: correlation id \\d+\\)"
                + " after \\d+ ms"));
        // The broker connections' own NetworkClient (bodies, connection chatter) stays out of it.
        assertThat(lines).noneMatch(l -> l.contains("broker connections]") || l.contains("Initiating connection"));
        assertThat(lines).allMatch(l -> l.length() < 300);
    }

    private static String ids(List<Integer> ids) {
        return ids.toString().replace(" ", "");
    }

    private static List<Integer> intList(JsonNode array) {
        List<Integer> result = new ArrayList<>();
        array.forEach(n -> result.add(n.asInt()));
        return result;
    }

}
