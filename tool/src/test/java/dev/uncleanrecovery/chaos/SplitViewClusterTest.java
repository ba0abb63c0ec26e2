// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.chaos;

import static dev.uncleanrecovery.chaos.LastReplicaStandingByPartitions.produce;
import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.chaos.LastReplicaStandingByPartitions.Acknowledged;
import com.fasterxml.jackson.databind.JsonNode;
import dev.uncleanrecovery.cli.ToolJvm;
import dev.uncleanrecovery.formats.Json;
import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.ClusterNetwork;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.NetworkHost;
import dev.uncleanrecovery.localcluster.NodeNetwork;
import dev.uncleanrecovery.localcluster.PartitionView;
import dev.uncleanrecovery.localcluster.StopMode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tool's view of the brokers differs from the controller's: real Kafka 4.4.0 nodes, each a host of its own, the
 * tool run from the clients' host. The controller is node 1000; broker 4 holds no replica and is the tool's and the
 * harness's bootstrap, so that no answer about the cluster comes from a broker the controller cut off (such a broker
 * answers from the metadata it had).
 */
@KafkaClusterTest(kafkaVersion = "4.4.0", brokers = 4, network = NodeNetwork.HOSTS,
        brokerProperties = "replica.lag.time.max.ms=3000")
class SplitViewClusterTest {

    private static final int CONTROLLER = 1000;
    private static final int BYSTANDER = 4;
    private static final Duration STEP = Duration.ofSeconds(60);
    private static final Duration TOOL_RUN = Duration.ofMinutes(3);

    @AfterEach
    void healAndBringEveryBrokerBack(LocalKafkaCluster cluster) {
        cluster.network().heal();
        for (int broker : cluster.brokerIds()) {
            if (!cluster.isRunning(broker)) {
                cluster.startBroker(broker);
            }
            cluster.metadata().awaitBrokerUnfenced(broker, STEP);
        }
    }

    /**
     * Broker 1 alone holds the last 20 writes and is cut off from the controller, which fences it; the tool still
     * reaches it. Balanced names it and waits; once its link to the controller heals, Kafka elects it and nothing is
     * lost. Proactive elects 2 and says in the plan what that costs on 1.
     */
    @Test
    void a_fenced_broker_the_tool_reaches_with_the_longest_log_is_waited_for_and_nothing_is_elected_in_its_place(
            LocalKafkaCluster cluster, @TempDir Path dir) throws Exception {
        ClusterNetwork network = cluster.network();
        TopicPartition tp = new TopicPartition("fenced-longest", 0);
        cluster.createTopic(tp.topic(), List.of(1, 2), 1);
        List<Acknowledged> acknowledged = new ArrayList<>(produce(cluster, List.of(tp), "both", 30, "all"));
        cluster.stopBroker(2, StopMode.ABRUPT);
        await(cluster, tp, "2 out of the ISR", v -> v.isr().equals(List.of(1)));
        acknowledged.addAll(produce(cluster, List.of(tp), "only-on-1", 20, "1"));

        // broker 1 goes on running and answering the clients' host; the controller and the harness no longer hear it
        network.partition(List.of(network.node(1)), List.of(network.node(CONTROLLER), network.harness()));
        cluster.metadata().awaitBrokerFenced(1, STEP);
        await(cluster, tp, "1 fenced", PartitionView::isLeaderless);
        cluster.startBroker(2);
        cluster.metadata().awaitBrokerUnfenced(2, STEP);
        assertThat(cluster.metadata().describePartition(tp).isLeaderless()).isTrue();

        ToolJvm.Run balanced = tool(cluster, dir, "plan", "--topic", tp.topic(), "--output-file",
                dir.resolve("balanced.json").toString());
        assertThat(balanced.output()).as(balanced.output()).contains("1 (fenced; epoch ")
                .contains(", LEO 50) answered with a better log but cannot be elected while the controller fences it;"
                        + " electing 2 now, it loses 20 records (30..50)")
                .contains("which waiting for it saves");
        JsonNode waiting = Json.mapper().readTree(dir.resolve("balanced.json").toFile());
        assertThat(waiting.get("partitions")).as("nothing elected in its place").isEmpty();
        assertThat(waiting.get("skipped")).hasSize(1);

        ToolJvm.Run proactive = tool(cluster, dir, "plan", "--topic", tp.topic(), "--strategy", "proactive",
                "--output-file", dir.resolve("proactive.json").toString());
        assertThat(proactive.exitCode()).as(proactive.output()).isZero();
        assertThat(proactive.output()).contains(", LEO 50) has a better log but cannot lead while fenced: it loses 20"
                + " records (30..50)");
        assertThat(cluster.metadata().describePartition(tp).isLeaderless()).as("plans change nothing").isTrue();

        // waiting: the link heals, the controller unfences 1 and elects it, and every acknowledged write is there
        network.heal();
        await(cluster, tp, "1 elected by Kafka once unfenced", v -> v.leader() == 1);
        Map<Long, String> after = ChaosTrial.readAll(cluster, List.of(tp)).get(tp);
        assertThat(acknowledged).hasSize(50)
                .allMatch(write -> write.value().equals(after.get(write.offset())));
    }

    /**
     * Broker 2 holds 20 writes more than 3 and is out of the ISR; 1, the leader, is gone. The controller sees 2
     * unfenced, the clients' host cannot reach it: its loss is unknown. Electing 3 would make 2 truncate at once,
     * unsalvaged: execute refuses the partition (exit 3) unless --accept-unknown-loss; 3 is never elected as if 2 held
     * nothing.
     */
    @Test
    void an_unfenced_broker_the_tool_cannot_reach_is_an_unknown_loss_and_refuses_the_election(
            LocalKafkaCluster cluster, @TempDir Path dir) throws Exception {
        ClusterNetwork network = cluster.network();
        TopicPartition tp = new TopicPartition("unreachable-unfenced", 0);
        cluster.createTopic(tp.topic(), List.of(1, 2, 3), 1);
        produce(cluster, List.of(tp), "all-three", 20, "all");
        cluster.stopBroker(3, StopMode.ABRUPT);
        await(cluster, tp, "3 out of the ISR", v -> v.isr().equals(List.of(1, 2)));
        List<Acknowledged> onTwo = produce(cluster, List.of(tp), "on-1-and-2", 20, "all");
        // 2 stops fetching from 1: the leader drops it from the ISR after replica.lag.time.max.ms
        network.partition(1, 2);
        await(cluster, tp, "2 out of the ISR", v -> v.isr().equals(List.of(1)));
        cluster.stopBroker(1, StopMode.ABRUPT);
        await(cluster, tp, "1 gone", PartitionView::isLeaderless);
        network.heal();
        cluster.startBroker(3);
        cluster.metadata().awaitBrokerUnfenced(3, STEP);
        NetworkHost clients = network.clients();
        network.partition(List.of(clients), List.of(network.node(2)));

        Path plan = dir.resolve("plan.json");
        ToolJvm.Run planned = tool(cluster, dir, "plan", "--topic", tp.topic(), "--strategy", "proactive",
                "--probe-timeout-ms", "3000", "--output-file", plan.toString());
        assertThat(planned.exitCode()).as(planned.output()).isZero();
        assertThat(planned.output()).contains("2 (unknown: its broker did not answer)");
        ToolJvm.Run refused = tool(cluster, dir, "execute", "--plan", plan.toString(), "--reprobe-timeout-ms",
                "3000", "--reason", "split view: 2 unreachable from here");
        assertThat(refused.exitCode()).as(refused.output()).isEqualTo(3);
        assertThat(refused.output()).contains("did not answer this host but the controller sees them unfenced");
        assertThat(cluster.metadata().describePartition(tp).isLeaderless()).as("nothing elected").isTrue();

        // from a host that reaches 2, the plan sees its log and elects it: nothing acknowledged is lost
        network.heal();
        Path again = dir.resolve("plan-again.json");
        ToolJvm.Run replanned = tool(cluster, dir, "plan", "--topic", tp.topic(), "--strategy", "proactive",
                "--output-file", again.toString());
        assertThat(replanned.exitCode()).as(replanned.output()).isZero();
        ToolJvm.Run executed = tool(cluster, dir, "execute", "--plan", again.toString(), "--reason", "healed");
        assertThat(executed.exitCode()).as(executed.output()).isZero();
        await(cluster, tp, "2 elected", v -> v.leader() == 2);
        Map<Long, String> after = ChaosTrial.readAll(cluster, List.of(tp)).get(tp);
        assertThat(onTwo).allMatch(write -> write.value().equals(after.get(write.offset())));
    }

    private static ToolJvm.Run tool(LocalKafkaCluster cluster, Path dir, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("--bootstrap-server", cluster.brokerAddress(BYSTANDER)));
        command.addAll(List.of(args));
        return ToolJvm.runToTheEndOn(cluster.network(), cluster.network().clients(), dir, TOOL_RUN,
                command.toArray(String[]::new));
    }

    private static PartitionView await(LocalKafkaCluster cluster, TopicPartition tp, String step,
                                       Predicate<PartitionView> expected) {
        PartitionView view = cluster.metadata().awaitPartition(tp, expected, STEP);
        System.out.println(step + ": " + view);
        return view;
    }
}
