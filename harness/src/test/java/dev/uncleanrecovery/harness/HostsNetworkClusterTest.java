// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.harness;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.localcluster.ClusterNetwork;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.NetworkHost;
import dev.uncleanrecovery.localcluster.NodeNetwork;
import dev.uncleanrecovery.localcluster.PartitionView;
import dev.uncleanrecovery.localcluster.RoundProducer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Real Kafka 4.4.0 nodes, each a host of its own, cut apart at the router between them: the controller fences what it
 * cannot hear from, the leader drops from the ISR what cannot fetch, and both undo it once the network heals. The
 * brokers never stop running: only packets are lost.
 */
@KafkaClusterTest(brokers = 3, network = NodeNetwork.HOSTS)
class HostsNetworkClusterTest {

    private static final Duration STATE_TIMEOUT = Duration.ofSeconds(60);

    @AfterEach
    void healAndAwaitEveryBroker(LocalKafkaCluster cluster) {
        cluster.network().heal();
        for (int broker : cluster.brokerIds()) {
            cluster.metadata().awaitBrokerUnfenced(broker, STATE_TIMEOUT);
        }
    }

    @Test
    void every_node_runs_in_a_host_of_its_own_listening_on_its_address(LocalKafkaCluster cluster) throws Exception {
        ClusterNetwork network = cluster.network();
        String ownNamespace = Files.readSymbolicLink(Path.of("/proc/self/ns/net")).toString();
        for (int node : cluster.nodes().ids()) {
            long pid = cluster.nodes().pid(node).orElseThrow();
            assertThat(Files.readSymbolicLink(Path.of("/proc/" + pid + "/ns/net")).toString())
                    .as("the network namespace of node %d", node).isNotEqualTo(ownNamespace);
        }
        assertThat(cluster.brokerAddress(2)).isEqualTo(network.node(2).address() + ":9092");
        // the clients' host reaches every broker's listener
        for (int broker : cluster.brokerIds()) {
            assertThat(tcpConnect(network, network.clients(), cluster.brokerAddress(broker), 10)).isZero();
        }
        TopicPartition hosted = new TopicPartition("hosted", 0);
        cluster.createTopic(hosted.topic(), List.of(1, 2, 3), 2);
        RoundProducer.produce(cluster, List.of(hosted), 50, "all", "hosted", Duration.ofSeconds(30));
    }

    @Test
    void an_isolated_broker_is_fenced_and_leaves_the_isr_while_it_runs_on_then_rejoins_once_healed(
            LocalKafkaCluster cluster) {
        TopicPartition isolated = new TopicPartition("isolated", 0);
        cluster.createTopic(isolated.topic(), List.of(1, 2, 3), 2);

        cluster.network().isolate(3);
        cluster.metadata().awaitBrokerFenced(3, STATE_TIMEOUT);
        PartitionView shrunk = cluster.metadata().awaitPartition(isolated, view -> !view.isr().contains(3),
                STATE_TIMEOUT);
        assertThat(shrunk.isr()).containsExactlyInAnyOrder(1, 2);
        assertThat(cluster.isRunning(3)).as("broker 3 is cut off, not stopped").isTrue();
        RoundProducer.produce(cluster, List.of(isolated), 20, "all", "while-3-is-cut-off", Duration.ofSeconds(30));
        assertThat(cluster.network().droppedPackets()).isPositive();

        cluster.network().heal();
        cluster.metadata().awaitBrokerUnfenced(3, STATE_TIMEOUT);
        cluster.metadata().awaitPartition(isolated, view -> view.isr().size() == 3, STATE_TIMEOUT);
    }

    @Test
    void a_broker_cut_from_the_controller_alone_is_fenced_while_clients_still_reach_it(LocalKafkaCluster cluster)
            throws Exception {
        ClusterNetwork network = cluster.network();
        network.partition(2, cluster.controllers().firstId());
        cluster.metadata().awaitBrokerFenced(2, STATE_TIMEOUT);
        assertThat(tcpConnect(network, network.clients(), cluster.brokerAddress(2), 10)).isZero();
        assertThat(tcpConnect(network, network.node(1), cluster.brokerAddress(2), 10)).isZero();
        assertThat(tcpConnect(network, network.node(cluster.controllers().firstId()), cluster.brokerAddress(2), 2))
                .as("the controller's SYN is dropped: timeout's status").isEqualTo(124);
    }

    @Test
    void writes_through_a_lossy_leader_are_all_acknowledged(LocalKafkaCluster cluster) {
        TopicPartition lossy = new TopicPartition("lossy", 0);
        cluster.createTopic(lossy.topic(), List.of(1, 2, 3), 2);
        long droppedBefore = cluster.network().droppedPackets();

        cluster.network().lossy(1, 10);
        RoundProducer.produce(cluster, List.of(lossy), 300, "all", "lossy", Duration.ofSeconds(60));
        assertThat(cluster.network().droppedPackets()).isGreaterThan(droppedBefore);
    }

    /** bash's /dev/tcp connect from {@code from}, under timeout(1): 0 connected, 124 timed out (the SYN vanished). */
    private static int tcpConnect(ClusterNetwork network, NetworkHost from, String hostPort, int seconds)
            throws Exception {
        String[] address = hostPort.split(":");
        Process connect = new ProcessBuilder(network.commandOn(from, List.of("timeout", String.valueOf(seconds),
                "bash", "-c", "exec 3<>/dev/tcp/" + address[0] + "/" + address[1])))
                .redirectErrorStream(true).start();
        String output = new String(connect.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(connect.waitFor(seconds + 10L, TimeUnit.SECONDS)).as(output).isTrue();
        return connect.exitValue();
    }
}
