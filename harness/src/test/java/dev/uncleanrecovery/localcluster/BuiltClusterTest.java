// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.util.Map;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.SaslConfigs;
import org.junit.jupiter.api.Test;

/**
 * A cluster built but never started: its nodes, directories and users are fixed at build, and every facet answers
 * from them or refuses what the nodes' state forbids. No Kafka process runs here; the cluster tests cover the rest.
 */
class BuiltClusterTest {

    private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);

    @Test
    void a_built_cluster_names_its_nodes_and_their_directories() {
        try (LocalKafkaCluster cluster = LocalKafkaCluster.builder().brokers(3).controllers(3)
                .classDataSharing(false).build()) {
            assertThat(cluster.brokerIds()).containsExactly(1, 2, 3);
            assertThat(cluster.controllers().ids()).containsExactly(1000, 1001, 1002);
            assertThat(cluster.controllers().firstId()).isEqualTo(ClusterBuilder.DEFAULT_CONTROLLER_ID);
            assertThat(cluster.nodes().ids()).containsExactly(1000, 1001, 1002, 1, 2, 3);
            assertThat(cluster.bootstrapServers().split(","))
                    .containsExactly(cluster.brokerAddress(1), cluster.brokerAddress(2), cluster.brokerAddress(3))
                    .allSatisfy(address -> assertThat(address).startsWith("127.0.0.1:"));
            assertThat(cluster.clientProperties())
                    .containsExactly(Map.entry(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG,
                            cluster.bootstrapServers()));

            assertThat(cluster.nodes().directory(2)).isEqualTo(cluster.nodes().baseDirectory().resolve("broker-2"));
            assertThat(cluster.logDir(2)).isEqualTo(cluster.nodes().directory(2).resolve("data"));
            assertThat(cluster.logDir(1001)).isEqualTo(cluster.nodes().baseDirectory().resolve("controller-1001/data"));
            assertThat(cluster.disk().replicaDirectory(2, ORDERS_0)).isEqualTo(cluster.logDir(2).resolve("orders-0"));
            assertThat(cluster.nodes().logFile(3)).isEqualTo(cluster.nodes().directory(3).resolve("node.log"));

            assertThat(cluster.isRunning(1)).isFalse();
            assertThat(cluster.isPaused(1)).isFalse();
            assertThat(cluster.nodes().pid(1000)).isEmpty();
            assertThat(cluster.nodes().containerImage()).isEmpty();
            assertThat(cluster.nodes().backend()).isEqualTo(ClusterBackend.fromSystemProperty());
        }
    }

    @Test
    void a_broker_that_does_not_run_cannot_be_stopped_paused_or_resumed() {
        try (LocalKafkaCluster cluster = LocalKafkaCluster.builder().brokers(1).classDataSharing(false).build()) {
            assertThatThrownBy(() -> cluster.stopBroker(1, StopMode.ABRUPT))
                    .isInstanceOf(IllegalStateException.class).hasMessage("broker 1 is not running; start it before stopping it");
            assertThatThrownBy(() -> cluster.pauseBroker(1))
                    .isInstanceOf(IllegalStateException.class).hasMessage("broker 1 is not running; start it before pausing it");
            assertThatThrownBy(() -> cluster.resumeBroker(1))
                    .isInstanceOf(IllegalStateException.class).hasMessage("broker 1 is not paused");
            assertThatThrownBy(() -> cluster.controllers().stop(1000, StopMode.CLEAN))
                    .isInstanceOf(IllegalStateException.class).hasMessage("controller 1000 is not running; start it before stopping it");
            assertThatThrownBy(() -> cluster.stopBroker(7, StopMode.ABRUPT))
                    .isInstanceOf(IllegalArgumentException.class).hasMessage("no broker 7 in this cluster; brokers are [1]");
            assertThatThrownBy(() -> cluster.controllers().start(1))
                    .isInstanceOf(IllegalArgumentException.class).hasMessage("no controller 1; controllers are [1000]");
        }
    }

    @Test
    void a_disk_fault_needs_the_replica_on_disk() throws Exception {
        try (LocalKafkaCluster cluster = LocalKafkaCluster.builder().brokers(1).classDataSharing(false).build()) {
            assertThatThrownBy(() -> cluster.disk().truncateReplicaLog(ORDERS_0, 1, LogTailCut.dropBytes(10)))
                    .isInstanceOf(LocalClusterException.class)
                    .hasMessageStartingWith("broker 1 holds no replica of orders-0: ");

            Files.createDirectories(cluster.logDir(1));
            Files.createFile(cluster.logDir(1).resolve(".kafka_cleanshutdown"));
            assertThat(cluster.disk().hasCleanShutdownMarker(1)).isTrue();
            assertThat(cluster.disk().deleteCleanShutdownMarker(1)).isTrue();
            assertThat(cluster.disk().hasCleanShutdownMarker(1)).isFalse();
            assertThat(cluster.disk().deleteCleanShutdownMarker(1)).isFalse();
        }
    }

    @Test
    void a_cluster_without_sasl_refuses_logins_and_tls_questions() {
        try (LocalKafkaCluster cluster = LocalKafkaCluster.builder().brokers(1).classDataSharing(false).build()) {
            assertThat(cluster.access().security()).isEqualTo(ClusterSecurity.NONE);
            assertThat(cluster.access().saslUsers()).isEmpty();
            assertThatThrownBy(() -> cluster.access().clientProperties(ClusterAccess.RECOVERY_USER))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("cannot give a password of recovery: this cluster has no SASL users");
            assertThatThrownBy(() -> cluster.access().certificates())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("cannot give its certificates: this cluster does not use TLS");
        }
    }

    @Test
    void a_sasl_cluster_logs_its_users_in_with_their_passwords() {
        try (LocalKafkaCluster cluster = LocalKafkaCluster.builder().brokers(1).classDataSharing(false)
                .security(ClusterSecurity.SASL_PLAIN_WITH_ACLS).saslUser("planner").build()) {
            assertThat(cluster.access().saslUsers()).containsExactly("admin", "recovery", "nobody", "planner");
            assertThat(cluster.access().saslPassword("planner")).isEqualTo("planner-secret");
            assertThat(cluster.access().clientProperties("planner"))
                    .containsEntry(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers())
                    .containsEntry(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT")
                    .hasEntrySatisfying(SaslConfigs.SASL_JAAS_CONFIG, jaas -> assertThat(String.valueOf(jaas))
                            .contains("username=\"planner\"", "password=\"planner-secret\""));
            // the cluster's own clients log in as the super user
            assertThat(String.valueOf(cluster.clientProperties().get(SaslConfigs.SASL_JAAS_CONFIG)))
                    .contains("username=\"admin\"");
            assertThatThrownBy(() -> cluster.access().bootstrapServers(TlsListener.SASL_SSL))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("cannot name a TLS listener: this cluster does not use TLS");
        }
    }
}
