// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static dev.uncleanrecovery.localcluster.LastReplicaStandingOutage.LONGEST_SURVIVOR;
import static dev.uncleanrecovery.localcluster.LastReplicaStandingOutage.SHORTEST_SURVIVOR;
import static org.apache.kafka.common.acl.AclOperation.DESCRIBE;
import static org.apache.kafka.common.acl.AclOperation.DESCRIBE_CONFIGS;
import static org.apache.kafka.common.acl.AclOperation.READ;
import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.ClusterAccess;
import dev.uncleanrecovery.localcluster.ClusterSecurity;
import dev.uncleanrecovery.localcluster.LastReplicaStandingOutage;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.NodeRole;
import dev.uncleanrecovery.localcluster.PartitionView;
import dev.uncleanrecovery.localcluster.StopMode;
import dev.uncleanrecovery.localcluster.TlsListener;
import dev.uncleanrecovery.formats.PlanFile;
import dev.uncleanrecovery.formats.PlannedElection;
import dev.uncleanrecovery.formats.ResultFile;
import dev.uncleanrecovery.salvage.SalvageStore;
import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every command over TLS, on real brokers: SASL_SSL (SASL/PLAIN as admin) and SSL without SASL (as
 * {@code User:ANONYMOUS}, with the README's ACLs for status and plan), after KIP-966's outage on three partitions of
 * orders (replicas [1,3,2], 1 dead, 2 holding 100 records and 3 holding 50). The controller and broker 2 run the
 * kafka-patch agent and broker 3 does not, so one plan probes natively (GetReplicaLogInfo) and the stock way
 * (ListOffsets, Fetch), and execute uses the stock elector until broker 3 stops. And three handshakes a client must
 * refuse — a truststore without the cluster's CA, an expired certificate, a certificate for another host — each end
 * the run in one line that names the broker's address and the setting to change: all a terminal shows of the tool's
 * own JVM.
 */
@KafkaClusterTest(security = ClusterSecurity.SASL_SSL_WITH_ACLS, patchAgentOn = {NodeRole.BROKER, NodeRole.CONTROLLER},
        brokersWithoutPatchAgent = SHORTEST_SURVIVOR)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TlsClusterTest {

    private static final String TOPIC = "orders";
    private static final String REPLAYED = "orders-replayed";
    private static final String ANONYMOUS = "ANONYMOUS";
    private static final TopicPartition STOCK_ELECTED = new TopicPartition(TOPIC, 0);
    private static final TopicPartition NATIVELY_ELECTED = new TopicPartition(TOPIC, 1);
    private static final TopicPartition SALVAGED = new TopicPartition(TOPIC, 2);
    private static final Duration STEP = Duration.ofSeconds(30);

    @TempDir
    static Path dir;

    @BeforeAll
    static void breakTheClusterOverTls(LocalKafkaCluster cluster) throws Exception {
        LastReplicaStandingOutage.reproduce(cluster, TOPIC, 3, 50, 10, s -> { });
        try (Admin admin = cluster.createAdmin()) {
            admin.createTopics(List.of(new NewTopic(REPLAYED, Map.of(0, List.of(2, 3), 1, List.of(3, 2), 2, List.of(2, 3)))))
                    .all().get();
        }
        // README Permissions for status and plan, for the clients of the SSL listener
        cluster.access().allow(ANONYMOUS, ResourceType.TOPIC, TOPIC, DESCRIBE, DESCRIBE_CONFIGS, READ);
        cluster.access().allow(ANONYMOUS, ResourceType.CLUSTER, "kafka-cluster", DESCRIBE);
    }

    @Test
    @Order(1)
    void a_truststore_without_the_clusters_ca_is_one_line_naming_the_broker_and_ssl_truststore_location(
            LocalKafkaCluster cluster) throws Exception {
        String broker = cluster.access().listenerAddress(LONGEST_SURVIVOR, TlsListener.SASL_SSL);
        Path foreign = cluster.access().certificates().foreignTruststore();
        Map<String, Object> login = new HashMap<>(cluster.access().clientProperties(ClusterAccess.ADMIN_USER));
        login.put(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, foreign.toString());

        ToolJvm.Run run = statusInItsOwnJvm(broker, commandConfig(login, "foreign-truststore.properties"));

        assertThat(run.exitCode()).as(run.output()).isEqualTo(ExitCode.USAGE);
        assertThat(run.output().strip()).isEqualTo("error: TLS handshake with bootstrap server " + broker + " failed: its"
                + " certificate is not signed by a CA this client trusts (ssl.truststore.location " + foreign + ") —"
                + " set ssl.truststore.location (and ssl.truststore.password, ssl.truststore.type) in --command-config to"
                + " a truststore that holds the CA of the brokers' certificates");
    }

    @Test
    @Order(2)
    void an_expired_broker_certificate_is_one_line_naming_the_broker_and_the_date_it_expired(LocalKafkaCluster cluster)
            throws Exception {
        String broker = cluster.access().listenerAddress(LONGEST_SURVIVOR, TlsListener.EXPIRED_CERTIFICATE);

        ToolJvm.Run run = statusInItsOwnJvm(broker, sslCommandConfig(cluster));

        assertThat(run.exitCode()).as(run.output()).isEqualTo(ExitCode.USAGE);
        assertThat(run.output().strip()).doesNotContain("\n")
                .startsWith("error: TLS handshake with bootstrap server " + broker + " failed: its certificate has"
                        + " expired (NotAfter: ")
                .endsWith(") — the broker needs a renewed certificate in its keystore (ssl.keystore.location); if it"
                        + " was renewed, check this machine's clock");
    }

    @Test
    @Order(3)
    void a_certificate_for_another_host_is_one_line_naming_the_broker_and_ssl_endpoint_identification_algorithm(
            LocalKafkaCluster cluster) throws Exception {
        String broker = cluster.access().listenerAddress(LONGEST_SURVIVOR, TlsListener.OTHER_HOST_CERTIFICATE);

        ToolJvm.Run run = statusInItsOwnJvm(broker, sslCommandConfig(cluster));

        assertThat(run.exitCode()).as(run.output()).isEqualTo(ExitCode.USAGE);
        assertThat(run.output().strip()).isEqualTo("error: TLS handshake with bootstrap server " + broker + " failed: its"
                + " certificate is not issued for the address connected to (No subject alternative names matching IP"
                + " address 127.0.0.1 found) — connect by a name the certificate holds (in --bootstrap-server and the"
                + " brokers' advertised.listeners), or set ssl.endpoint.identification.algorithm= (empty) in"
                + " --command-config to skip the host name check");
    }

    @Test
    @Order(4)
    void status_over_sasl_ssl_shows_the_offline_partitions_and_the_broker_that_speaks_the_native_rpcs(
            LocalKafkaCluster cluster) {
        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "status", "--command-config", admin(cluster));

        assertThat(run.exitCode()).as(run.err() + run.out()).isEqualTo(ExitCode.ATTENTION);
        assertThat(run.out()).containsPattern("(?m)^orders\\s+0\\s+none\\s").containsPattern("(?m)^orders\\s+1\\s+none\\s")
                .containsPattern("(?m)^orders\\s+2\\s+none\\s")
                .contains("Native RPCs (GetReplicaLogInfo / ElectLeaders v3): broker 2 / broker 2");
    }

    @Test
    @Order(5)
    void status_and_plan_over_ssl_without_sasl_probe_natively_and_the_stock_way(LocalKafkaCluster cluster)
            throws Exception {
        String ssl = cluster.access().bootstrapServers(TlsListener.SSL);
        String config = sslCommandConfig(cluster).toString();
        Path file = dir.resolve("over-ssl.json");

        CliRun status = awaitAclsServed(ssl, config);
        CliRun plan = CliRun.of("--bootstrap-server", ssl, "plan", "--strategy", "proactive", "--probe-timeout-ms", "10000",
                "--topic", TOPIC, "--partition", "0", "--output-file", file.toString(), "--command-config", config);

        assertThat(status.exitCode()).as(status.err() + status.out()).isEqualTo(ExitCode.ATTENTION);
        assertThat(status.out()).containsPattern("(?m)^orders\\s+0\\s+none\\s");
        assertThat(plan.exitCode()).as(plan.err() + plan.out()).isEqualTo(ExitCode.OK);
        PlannedElection election = PlanFile.read(file).partitions().get(0);
        assertThat(election.designatedLeader()).isEqualTo(LONGEST_SURVIVOR);
        assertThat(OfflineOrdersPartition.evidence(election, LONGEST_SURVIVOR)).satisfies(e -> {
            assertThat(e.status()).as(e.error()).isEqualTo(EvidenceStatus.OK);
            assertThat(e.source()).isEqualTo(EvidenceSource.NATIVE);
            assertThat(e.logEndOffset()).isEqualTo(100L);
        });
        assertThat(OfflineOrdersPartition.evidence(election, SHORTEST_SURVIVOR)).satisfies(e -> {
            assertThat(e.status()).as(e.error()).isEqualTo(EvidenceStatus.OK);
            assertThat(e.source()).isEqualTo(EvidenceSource.STOCK);
            assertThat(e.logEndOffset()).isEqualTo(50L);
        });
    }

    @Test
    @Order(6)
    void plan_and_execute_over_sasl_ssl_elect_the_longest_log_with_the_stock_elector(LocalKafkaCluster cluster)
            throws Exception {
        PartitionView before = cluster.metadata().describePartition(STOCK_ELECTED);
        Path plan = dir.resolve("stock.json");

        CliRun planned = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "plan", "--strategy", "proactive",
                "--probe-timeout-ms", "10000", "--topic", TOPIC, "--partition", "0", "--output-file", plan.toString(),
                "--command-config", admin(cluster));
        CliRun executed = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test", "--plan", plan.toString(),
                "--accept-unknown-loss", "--reprobe-timeout-ms", "10000", "--command-config", admin(cluster));

        assertThat(planned.exitCode()).as(planned.err() + planned.out()).isEqualTo(ExitCode.OK);
        assertThat(PlanFile.read(plan).partitions().get(0).designatedLeader()).isEqualTo(LONGEST_SURVIVOR);
        assertThat(executed.exitCode()).as(executed.err() + executed.out()).isEqualTo(ExitCode.OK);
        ResultFile result = ResultFile.read(dir.resolve("stock-result.json"));
        assertThat(result.elector()).startsWith("stock elector (");
        assertThat(result.partitions()).singleElement().satisfies(p -> assertThat(p.outcome()).isEqualTo("ELECTED"));
        assertThat(cluster.metadata().awaitPartition(STOCK_ELECTED, v -> v.leader() != PartitionView.NO_LEADER,
                STEP).leader())
                .isEqualTo(LONGEST_SURVIVOR);
        assertThat(cluster.metadata().awaitPartition(STOCK_ELECTED, v -> v.replicas().equals(before.replicas()),
                STEP).replicas())
                .as("original order restored").isEqualTo(before.replicas());
    }

    @Test
    @Order(7)
    void recover_salvages_over_tls_what_electing_broker_3_truncates_and_replay_produces_it_there_again(
            LocalKafkaCluster cluster) throws Exception {
        // given: recover elects 3 (2 excluded), which truncates the 50 records only 2 holds
        Path plan = dir.resolve("salvage.json");
        CliRun recovered = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "recover", "--automated-recovery", "--reason", "test",
                "--accept-unknown-loss", "--strategy", "proactive", "--probe-timeout-ms", "10000", "--topic", TOPIC,
                "--partition", "2", "--exclude-broker", String.valueOf(LONGEST_SURVIVOR), "--output-file", plan.toString(),
                "--command-config", admin(cluster));
        assertThat(recovered.exitCode()).as(recovered.err() + recovered.out()).isEqualTo(ExitCode.OK);
        ResultFile.Partition elected = ResultFile.read(dir.resolve("salvage-result.json")).partitions().get(0);
        assertThat(elected.outcome()).isEqualTo("ELECTED");
        assertThat(elected.designatedLeader()).isEqualTo(SHORTEST_SURVIVOR);
        assertThat(elected.salvaged()).as("copied from 2 with Fetch over TLS").singleElement().satisfies(s -> {
            assertThat(s.broker()).isEqualTo(LONGEST_SURVIVOR);
            assertThat(List.of(s.fromOffset(), s.toOffset(), s.records())).containsExactly(50L, 100L, 50L);
        });
        Path salvage = SalvageStore.besidePlan(plan);
        Map<String, Object> foreignLogin = new HashMap<>(cluster.access().clientProperties(ClusterAccess.ADMIN_USER));
        foreignLogin.put(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG,
                cluster.access().certificates().foreignTruststore().toString());

        // when: replayed into another topic, first with a truststore that trusts none of the brokers
        CliRun refused = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "replay", "--salvage-dir",
                salvage.toString(), "--to-topic", REPLAYED, "--result-file", dir.resolve("salvage-result.json").toString(),
                "--execute", "--reason", "test", "--command-config", commandConfig(foreignLogin, "replay-foreign.properties").toString());
        CliRun replayed = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "replay", "--salvage-dir",
                salvage.toString(), "--to-topic", REPLAYED, "--result-file", dir.resolve("salvage-result.json").toString(),
                "--execute", "--reason", "test", "--command-config", admin(cluster));

        // then: the first is one line and produces nothing, the second produces the 50 records
        assertThat(refused.exitCode()).as(refused.err()).isEqualTo(ExitCode.USAGE);
        assertThat(refused.err().strip()).doesNotContain("\n").startsWith("error: TLS handshake with a broker of"
                + " --bootstrap-server " + cluster.bootstrapServers() + " failed: its certificate is not signed by a CA"
                + " this client trusts").contains("ssl.truststore.location");
        assertThat(replayed.exitCode()).as(replayed.err() + replayed.out()).isEqualTo(ExitCode.OK);
        assertThat(replayed.out()).contains("Produced 50 record(s) into " + REPLAYED);
        assertThat(endOffset(cluster, new TopicPartition(REPLAYED, SALVAGED.partition()))).isEqualTo(50L);
    }

    @Test
    @Order(8)
    void once_every_live_broker_runs_the_agent_execute_elects_with_elect_leaders_v3_over_sasl_ssl(
            LocalKafkaCluster cluster) throws Exception {
        // given: broker 3, without the agent, stopped: broker 2 is the only live broker and offers ElectLeaders v3
        cluster.stopBroker(SHORTEST_SURVIVOR, StopMode.CLEAN);
        cluster.metadata().awaitBrokerFenced(SHORTEST_SURVIVOR);
        Path plan = dir.resolve("native.json");

        CliRun planned = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "plan", "--strategy", "proactive",
                "--probe-mode", "native", "--probe-timeout-ms", "10000", "--topic", TOPIC, "--partition", "1",
                "--output-file", plan.toString(), "--command-config", admin(cluster));
        CliRun executed = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test", "--plan", plan.toString(),
                "--accept-unknown-loss", "--probe-mode", "native", "--reprobe-timeout-ms", "10000",
                "--command-config", admin(cluster));

        assertThat(planned.exitCode()).as(planned.err() + planned.out()).isEqualTo(ExitCode.OK);
        assertThat(OfflineOrdersPartition.evidence(PlanFile.read(plan).partitions().get(0), LONGEST_SURVIVOR).source())
                .isEqualTo(EvidenceSource.NATIVE);
        assertThat(executed.exitCode()).as(executed.err() + executed.out()).isEqualTo(ExitCode.OK);
        assertThat(ResultFile.read(dir.resolve("native-result.json")).elector())
                .startsWith("native: ElectLeaders v3 with DesignatedLeaders");
        assertThat(cluster.metadata().awaitPartition(NATIVELY_ELECTED, v -> v.leader() != PartitionView.NO_LEADER,
                STEP).leader())
                .isEqualTo(LONGEST_SURVIVOR);
    }

    /** What an operator's terminal shows: the tool's own JVM, stdout and stderr together. */
    private static ToolJvm.Run statusInItsOwnJvm(String bootstrapServer, Path commandConfig) throws Exception {
        return ToolJvm.runToTheEnd(dir, List.of("-XX:TieredStopAtLevel=1"), Duration.ofMinutes(1),
                "--bootstrap-server", bootstrapServer, "status", "--command-config", commandConfig.toString());
    }

    private static String admin(LocalKafkaCluster cluster) {
        return cluster.access().writeCommandConfig(ClusterAccess.ADMIN_USER).toString();
    }

    /** TLS without SASL, trusting the cluster's CA: what a client of the SSL listeners writes. */
    private static Path sslCommandConfig(LocalKafkaCluster cluster) throws IOException {
        return commandConfig(Map.of(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SSL",
                SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, cluster.access().certificates().truststore().toString(),
                SslConfigs.SSL_TRUSTSTORE_PASSWORD_CONFIG, "local-cluster-secret",
                SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PKCS12"), "ssl.properties");
    }

    private static Path commandConfig(Map<String, Object> settings, String name) throws IOException {
        Properties properties = new Properties();
        settings.forEach((key, value) -> properties.setProperty(key, String.valueOf(value)));
        properties.remove(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG);
        Path file = dir.resolve(name);
        try (Writer writer = Files.newBufferedWriter(file)) {
            properties.store(writer, null);
        }
        return file;
    }

    // ACLs are metadata records: each broker authorizes with them once it has replayed them.
    private static CliRun awaitAclsServed(String bootstrapServers, String commandConfig) throws InterruptedException {
        long deadline = System.nanoTime() + STEP.toNanos();
        while (true) {
            CliRun status = CliRun.of("--bootstrap-server", bootstrapServers, "status", "--topic", TOPIC,
                    "--command-config", commandConfig);
            if (status.exitCode() == ExitCode.ATTENTION || System.nanoTime() > deadline) {
                return status;
            }
            Thread.sleep(500);
        }
    }

    private static long endOffset(LocalKafkaCluster cluster, TopicPartition partition) throws Exception {
        try (Admin admin = cluster.createAdmin()) {
            return admin.listOffsets(Map.of(partition, OffsetSpec.latest())).partitionResult(partition).get().offset();
        }
    }
}
