// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.apache.kafka.common.acl.AclOperation.ALTER;
import static org.apache.kafka.common.acl.AclOperation.CREATE;
import static org.apache.kafka.common.acl.AclOperation.DELETE;
import static org.apache.kafka.common.acl.AclOperation.DESCRIBE;
import static org.apache.kafka.common.acl.AclOperation.DESCRIBE_CONFIGS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.cluster.ClusterDiscovery;
import dev.uncleanrecovery.cluster.ClusterSnapshot;
import dev.uncleanrecovery.cluster.PartitionSelection;
import dev.uncleanrecovery.connect.BrokerConnections;
import dev.uncleanrecovery.connect.ClientProperties;
import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.evidence.ReplicaEvidence;
import dev.uncleanrecovery.execute.RunLock;
import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.ClusterAccess;
import dev.uncleanrecovery.localcluster.ClusterSecurity;
import dev.uncleanrecovery.localcluster.LastReplicaStandingOutage;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.NodeRole;
import dev.uncleanrecovery.localcluster.PartitionView;
import dev.uncleanrecovery.formats.PlanFile;
import dev.uncleanrecovery.formats.PlannedElection;
import dev.uncleanrecovery.probe.PartitionToProbe;
import dev.uncleanrecovery.probe.ProbeFanOut;
import dev.uncleanrecovery.probe.ProbeMode;
import dev.uncleanrecovery.probe.ProbeResult;
import dev.uncleanrecovery.probe.ProbeSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The native RPCs of the companion agent on a SASL/PLAIN cluster with ACLs, after the KIP-966 outage
 * (orders-0 offline, replicas [1,3,2], 2 holds the longest log). GetReplicaLogInfo needs DESCRIBE on
 * the topic (no READ: the agent reads the log itself); ElectLeaders v3 needs ALTER on the cluster, as
 * any ElectLeaders does.
 */
@KafkaClusterTest(security = ClusterSecurity.SASL_PLAIN_WITH_ACLS, patchAgentOn = {NodeRole.BROKER, NodeRole.CONTROLLER},
        saslUsers = SecuredPatchedClusterTest.PLANNER)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SecuredPatchedClusterTest {

    /** May plan (DESCRIBE, DESCRIBE_CONFIGS on the topic, DESCRIBE on the cluster) but not elect (no ALTER). */
    static final String PLANNER = "planner";
    private static final String TOPIC = "orders";
    private static final String KAFKA_CLUSTER = "kafka-cluster";
    private static final TopicPartition ORDERS_0 = new TopicPartition(TOPIC, 0);
    private static final List<Integer> SURVIVORS =
            List.of(LastReplicaStandingOutage.LONGEST_SURVIVOR, LastReplicaStandingOutage.SHORTEST_SURVIVOR);

    @TempDir
    static Path dir;

    @BeforeAll
    static void breakTheClusterAndGrantAcls(LocalKafkaCluster cluster) throws Exception {
        LastReplicaStandingOutage.reproduce(cluster, TOPIC, 1, 50, 10, s -> { });
        for (String user : List.of(PLANNER, ClusterAccess.RECOVERY_USER)) {
            cluster.access().allow(user, ResourceType.TOPIC, TOPIC, DESCRIBE, DESCRIBE_CONFIGS);
            cluster.access().allow(user, ResourceType.CLUSTER, KAFKA_CLUSTER, DESCRIBE);
        }
        cluster.access().allow(ClusterAccess.RECOVERY_USER, ResourceType.CLUSTER, KAFKA_CLUSTER, ALTER);
        for (String user : List.of(PLANNER, ClusterAccess.RECOVERY_USER)) {
            cluster.access().allow(user, ResourceType.TOPIC, RunLock.LOCK_TOPIC, PatternType.PREFIXED, CREATE, DELETE,
                    DESCRIBE);
        }
        // ACLs are metadata records: wait until the brokers authorize with them.
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "status", "--topic", TOPIC, "--command-config",
                cluster.access().writeCommandConfig(PLANNER).toString()).exitCode() != ExitCode.ATTENTION && System.nanoTime() < deadline) {
            Thread.sleep(500);
        }
    }

    @Test
    @Order(1)
    void get_replica_log_info_refuses_each_partition_to_a_principal_without_describe(LocalKafkaCluster cluster) {
        Map<TopicPartition, List<ReplicaEvidence>> nobody = probeNatively(cluster, ClusterAccess.NOBODY_USER);
        Map<TopicPartition, List<ReplicaEvidence>> planner = probeNatively(cluster, PLANNER);

        assertThat(nobody.get(ORDERS_0)).hasSize(2).allSatisfy(e -> {
            assertThat(e.source()).isEqualTo(EvidenceSource.NATIVE);
            assertThat(e.status()).isEqualTo(EvidenceStatus.ERROR);
            assertThat(e.error()).contains("answered GetReplicaLogInfo for orders-0 with TOPIC_AUTHORIZATION_FAILED",
                    "grant DESCRIBE on topic orders");
        });
        // DESCRIBE is enough: no READ, unlike the stock probe's Fetch.
        assertThat(planner.get(ORDERS_0)).hasSize(2).allSatisfy(e -> {
            assertThat(e.source()).isEqualTo(EvidenceSource.NATIVE);
            assertThat(e.status()).as(e.error()).isEqualTo(EvidenceStatus.OK);
        });
    }

    @Test
    @Order(2)
    void elect_leaders_v3_is_refused_without_alter_on_the_cluster_and_elects_the_planned_replica_with_it(
            LocalKafkaCluster cluster) throws Exception {
        Path plan = dir.resolve("plan.json");
        CliRun planned = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "plan", "--strategy", "proactive",
                "--probe-mode", "native", "--probe-timeout-ms", "10000", "--output-file", plan.toString(),
                "--command-config", cluster.access().writeCommandConfig(PLANNER).toString());
        assertThat(planned.exitCode()).as(planned.err() + planned.out()).isEqualTo(ExitCode.OK);
        PlannedElection election = PlanFile.read(plan).partitions().get(0);
        assertThat(election.designatedLeader()).isEqualTo(LastReplicaStandingOutage.LONGEST_SURVIVOR);

        CliRun refused = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test", "--accept-unknown-loss",
                "--plan", plan.toString(),
                "--result-file", dir.resolve("refused.json").toString(),
                "--command-config", cluster.access().writeCommandConfig(PLANNER).toString());

        assertThat(refused.exitCode()).as(refused.err() + refused.out()).isEqualTo(ExitCode.ATTENTION);
        assertThat(refused.out().replaceAll("\\s+", " ")).contains("CLUSTER_AUTHORIZATION_FAILED: the tool's principal needs ALTER on the cluster");
        assertThat(cluster.metadata().describePartition(ORDERS_0).leader()).isEqualTo(PartitionView.NO_LEADER);

        CliRun elected = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test", "--accept-unknown-loss",
                "--plan", plan.toString(),
                "--result-file", dir.resolve("elected.json").toString(),
                "--command-config", cluster.access().writeCommandConfig(ClusterAccess.RECOVERY_USER).toString());

        assertThat(elected.exitCode()).as(elected.err() + elected.out()).isEqualTo(ExitCode.OK);
        assertThat(cluster.metadata().awaitPartition(ORDERS_0,
                v -> v.leader() == LastReplicaStandingOutage.LONGEST_SURVIVOR,
                Duration.ofSeconds(30)).leader()).isEqualTo(LastReplicaStandingOutage.LONGEST_SURVIVOR);
    }

    /** The partition state as admin sees it; GetReplicaLogInfo to the survivors as {@code user}. */
    private static Map<TopicPartition, List<ReplicaEvidence>> probeNatively(LocalKafkaCluster cluster, String user) {
        Properties admin = new Properties();
        admin.putAll(cluster.clientProperties());
        ClusterSnapshot snapshot;
        try (ClusterDiscovery discovery = new ClusterDiscovery(admin, 30_000)) {
            snapshot = discovery.describe(new PartitionSelection.OneTopic(TOPIC, List.of(0)));
        }
        Properties asUser = ClientProperties.load(cluster.bootstrapServers(),
                cluster.access().writeCommandConfig(user), 30_000);
        Map<Integer, List<PartitionToProbe>> survivors = PartitionToProbe.everyReplica(snapshot.partitions())
                .entrySet().stream().filter(e -> SURVIVORS.contains(e.getKey()))
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
        try (BrokerConnections connections = BrokerConnections.open(asUser, snapshot.brokers())) {
            ProbeResult result = new ProbeFanOut(ProbeMode.NATIVE.source(connections),
                    ProbeSettings.defaults().withTimeout(Duration.ofSeconds(10)), connections::describe)
                    .run(survivors, progress -> { });
            return result.evidence();
        }
    }
}
