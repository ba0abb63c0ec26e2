// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.chaos;

import static dev.uncleanrecovery.chaos.LastReplicaStandingByPartitions.produce;
import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.chaos.LastReplicaStandingByPartitions.Acknowledged;
import com.fasterxml.jackson.databind.JsonNode;
import dev.uncleanrecovery.cli.HostProducer;
import dev.uncleanrecovery.cli.ToolJvm;
import dev.uncleanrecovery.formats.ReorderJournal;
import dev.uncleanrecovery.formats.ResultFile;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
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
    private static final List<Integer> ASSIGNMENT = List.of(1, 3, 2);

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
        JsonNode waiting = Json.mapper().readTree(dir.resolve("balanced.json").toFile());
        assertThat(waiting.get("partitions")).as("nothing elected in its place: %s", balanced.output()).isEmpty();
        assertThat(waiting.get("skipped")).hasSize(1);
        assertThat(waiting.get("skipped").get(0).get("reason").asText()).as(balanced.output())
                .startsWith("1 (fenced; epoch ")
                .contains(", LEO 50) answered with a better log but cannot be elected while the controller fences it;"
                        + " electing 2 now, it loses 20 records (30..50)")
                .contains("which waiting for it saves");

        ToolJvm.Run proactive = tool(cluster, dir, "plan", "--topic", tp.topic(), "--strategy", "proactive",
                "--output-file", dir.resolve("proactive.json").toString());
        assertThat(proactive.exitCode()).as(proactive.output()).isZero();
        JsonNode elects = Json.mapper().readTree(dir.resolve("proactive.json").toFile()).get("partitions").get(0);
        assertThat(elects.get("designatedLeader").asInt()).isEqualTo(2);
        assertThat(elects.get("reason").asText()).as(proactive.output()).contains(", LEO 50) has a better log but"
                + " cannot lead while fenced: it loses 20 records (30..50)");
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
        // 2 stops fetching from 1: once 1 has writes 2 lacks, it drops 2 from the ISR after replica.lag.time.max.ms
        network.partition(1, 2);
        produce(cluster, List.of(tp), "on-1-alone", 5, "1");
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
        JsonNode elects = Json.mapper().readTree(plan.toFile()).get("partitions").get(0);
        assertThat(elects.get("designatedLeader").asInt()).as(planned.output()).isEqualTo(3);
        assertThat(elects.get("expectedTruncation")).as(planned.output()).anySatisfy(t -> {
            assertThat(t.get("broker").asInt()).isEqualTo(2);
            assertThat(t.get("estimate").asText()).isEqualTo("UNKNOWN");
        });
        ToolJvm.Run refused = tool(cluster, dir, "execute", "--plan", plan.toString(), "--reprobe-timeout-ms",
                "3000", "--reason", "split view: 2 unreachable from here");
        assertThat(refused.exitCode()).as(refused.output()).isEqualTo(3);
        ResultFile.Partition outcome = ResultFile.read(dir.resolve("plan-result.json")).partitions().get(0);
        assertThat(outcome.outcome()).as(refused.output()).isEqualTo("REFUSED");
        assertThat(outcome.detail()).startsWith("broker(s) 2 did not answer this host but the controller sees them"
                + " unfenced");
        assertThat(cluster.metadata().describePartition(tp).isLeaderless()).as("nothing elected").isTrue();

        // from a host that reaches 2, the plan sees its log and elects it: nothing acknowledged is lost
        network.heal();
        Path again = dir.resolve("plan-again.json");
        ToolJvm.Run replanned = tool(cluster, dir, "plan", "--topic", tp.topic(), "--strategy", "proactive",
                "--output-file", again.toString());
        assertThat(replanned.exitCode()).as(replanned.output()).isZero();
        ToolJvm.Run executed = tool(cluster, dir, "execute", "--plan", again.toString(), "--accept-unknown-loss",
                "--reason", "healed");
        assertThat(executed.exitCode()).as(executed.output()).isZero();
        await(cluster, tp, "2 elected", v -> v.leader() == 2);
        Map<Long, String> after = ChaosTrial.readAll(cluster, List.of(tp)).get(tp);
        assertThat(onTwo).allMatch(write -> write.value().equals(after.get(write.offset())));
    }

    /**
     * Leader 1 is cut off from the controller and the other brokers but not from its clients: the controller elects
     * 2, and 1 goes on appending the clients' acks=1 writes, a tail nobody else has. Then 3 falls out of the ISR and
     * 2 dies: offline. Once 1 is back, the plan elects 3 (the later epoch) and states 1's divergent tail exactly;
     * execute copies it before the election truncates it, and replay brings back every write 1 acknowledged there.
     */
    @Test
    void a_leader_cut_off_from_the_controller_has_its_acks_1_tail_stated_and_salvaged_before_truncation(
            LocalKafkaCluster cluster, @TempDir Path dir) throws Exception {
        ClusterNetwork network = cluster.network();
        TopicPartition tp = new TopicPartition("cut-off-leader", 0);
        cluster.createTopic(tp.topic(), List.of(1, 2, 3), 1);
        cluster.createTopic("cut-off-leader-replayed", List.of(4), 1);
        produce(cluster, List.of(tp), "before", 20, "all");

        List<HostProducer.Ack> onOne;
        try (HostProducer clients = HostProducer.start(network, network.clients(), cluster.bootstrapServers(), tp,
                "1", "to-the-cut-off-leader", Duration.ofMillis(50))) {
            clients.awaitAcks(5, STEP);
            network.partition(List.of(network.node(1)), List.of(network.node(CONTROLLER), network.node(2),
                    network.node(3), network.node(BYSTANDER), network.harness()));
            cluster.metadata().awaitBrokerFenced(1, STEP);
            await(cluster, tp, "2 elected in 1's place", v -> v.leader() == 2);
            int acked = clients.acknowledged().size();
            clients.awaitAcks(acked + 20, STEP);
            onOne = clients.acknowledged();
        }
        produce(cluster, List.of(tp), "under-2", 10, "all");
        network.partition(2, 3);
        produce(cluster, List.of(tp), "on-2-alone", 5, "1");
        await(cluster, tp, "3 out of the ISR", v -> v.isr().equals(List.of(2)));
        cluster.stopBroker(2, StopMode.ABRUPT);
        await(cluster, tp, "2 gone", PartitionView::isLeaderless);
        network.heal();
        cluster.metadata().awaitBrokerUnfenced(1, STEP);

        Path plan = dir.resolve("plan.json");
        ToolJvm.Run planned = tool(cluster, dir, "plan", "--topic", tp.topic(), "--strategy", "proactive",
                "--probe-timeout-ms", "5000", "--output-file", plan.toString());
        assertThat(planned.exitCode()).as(planned.output()).isZero();
        JsonNode partition = Json.mapper().readTree(plan.toFile()).get("partitions").get(0);
        assertThat(partition.get("designatedLeader").asInt()).as(planned.output()).isEqualTo(3);
        JsonNode tailOfOne = null;
        for (JsonNode truncation : partition.get("expectedTruncation")) {
            if (truncation.get("broker").asInt() == 1) {
                tailOfOne = truncation;
            }
        }
        assertThat(tailOfOne).as("the plan states what 1 loses: %s", planned.output()).isNotNull();
        assertThat(tailOfOne.get("estimate").asText()).isEqualTo("EXACT");
        long from = tailOfOne.get("fromOffset").asLong();
        long to = tailOfOne.get("toOffset").asLong();

        ToolJvm.Run executed = tool(cluster, dir, "execute", "--plan", plan.toString(), "--accept-unknown-loss",
                "--reason", "a leader cut off from the controller");
        assertThat(executed.exitCode()).as(executed.output()).isZero();
        await(cluster, tp, "3 elected, 1 following", v -> v.leader() == 3 && v.isr().contains(1));
        Map<Long, String> after = ChaosTrial.readAll(cluster, List.of(tp)).get(tp);
        List<HostProducer.Ack> divergent = onOne.stream()
                .filter(ack -> !ack.value().equals(after.get(ack.offset()))).toList();
        System.out.printf("1 acknowledged %d acks=1 writes, %d of them in its divergent tail [%d, %d)%n",
                onOne.size(), divergent.size(), from, to);
        assertThat(divergent).as("the cut-off leader acknowledged writes nobody else has").isNotEmpty()
                .allMatch(ack -> ack.offset() >= from && ack.offset() < to);

        ToolJvm.Run replayed = tool(cluster, dir, "replay", "--salvage-dir", dir.resolve("plan-salvage").toString(),
                "--to-topic", "cut-off-leader-replayed", "--result", dir.resolve("plan-result.json").toString(),
                "--execute", "--reason", "bring back the cut-off leader's tail");
        assertThat(replayed.exitCode()).as(replayed.output()).isZero();
        TopicPartition target = new TopicPartition("cut-off-leader-replayed", 0);
        List<String> back = List.copyOf(ChaosTrial.readAll(cluster, List.of(target)).get(target).values());
        assertThat(back).as("replayed from the salvage")
                .containsAll(divergent.stream().map(HostProducer.Ack::value).toList());
    }

    /**
     * The tool's own host loses 20% of its packets both ways: plan and execute still finish within their deadlines,
     * and every partition is elected with its replica order as it was.
     */
    @Test
    void on_a_lossy_link_the_run_completes_and_leaves_every_replica_order_as_it_was(LocalKafkaCluster cluster,
                                                                                      @TempDir Path dir)
            throws Exception {
        List<TopicPartition> partitions = offlineWithOneSurvivor(cluster, "lossy-link", 4);
        ClusterNetwork network = cluster.network();
        network.lossy(network.clients(), 20);

        Path plan = dir.resolve("plan.json");
        ToolJvm.Run planned = tool(cluster, dir, "plan", "--topic", "lossy-link", "--strategy", "proactive",
                "--probe-timeout-ms", "5000", "--output-file", plan.toString());
        assertThat(planned.exitCode()).as(planned.output()).isZero();
        ToolJvm.Run executed = tool(cluster, dir, "execute", "--plan", plan.toString(), "--accept-unknown-loss",
                "--reason", "lossy link");
        long dropped = network.droppedPackets();
        network.heal();
        System.out.printf("20%% loss on the tool's host: %d packets dropped; execute: exit %d%n", dropped,
                executed.exitCode());
        assertThat(executed.exitCode()).as(executed.output()).isZero();
        assertThat(dropped).isPositive();
        for (TopicPartition tp : partitions) {
            await(cluster, tp, "elected in order", v -> v.leader() == 2 && v.replicas().equals(ASSIGNMENT));
        }
    }

    /**
     * The tool's host loses its link the moment the controller has reordered the replicas: the run stops with its
     * journal; once the link is back, the next run puts the order back and elects each partition once.
     */
    @Test
    void a_link_that_dies_mid_run_leaves_the_journal_and_the_next_run_puts_everything_right(
            LocalKafkaCluster cluster, @TempDir Path dir) throws Exception {
        List<TopicPartition> partitions = offlineWithOneSurvivor(cluster, "dead-link", 2);
        ClusterNetwork network = cluster.network();
        Path plan = dir.resolve("plan.json");
        ToolJvm.Run planned = tool(cluster, dir, "plan", "--topic", "dead-link", "--strategy", "proactive",
                "--probe-timeout-ms", "5000", "--output-file", plan.toString());
        assertThat(planned.exitCode()).as(planned.output()).isZero();

        ToolJvm.Run cut = ToolJvm.runOn(network, network.clients(), dir, "Received ALTER_PARTITION_REASSIGNMENTS"
                        + " response", () -> network.isolate(network.clients()), ToolJvm.AtTrigger.LET_IT_RUN,
                "--bootstrap-server", cluster.brokerAddress(BYSTANDER), "--admin-timeout-ms", "5000", "execute",
                "--plan", plan.toString(), "--accept-unknown-loss", "--verify-timeout-ms", "5000", "--reason",
                "the link dies");
        System.out.printf("the link died mid-run: exit %d%n%s%n", cut.exitCode(), cut.output());
        assertThat(cut.triggered()).as(cut.output()).isTrue();
        assertThat(cut.exitCode()).as(cut.output()).isNotZero();
        Path journal = ReorderJournal.pathFor(plan);
        assertThat(journal).as(cut.output()).exists();

        network.heal();
        ToolJvm.Run again = tool(cluster, dir, "execute", "--plan", plan.toString(), "--accept-unknown-loss",
                "--reason", "the link is back");
        assertThat(again.exitCode()).as(again.output()).isZero();
        for (TopicPartition tp : partitions) {
            await(cluster, tp, "elected in order", v -> v.leader() == 2 && v.replicas().equals(ASSIGNMENT));
        }
        assertThat(journal).doesNotExist();
    }

    /**
     * Partitions on [1, 3, 2], min.insync.replicas 1: 3 dies, then 2, then 1, with writes in between; 3 and 2 come
     * back out of the ISR. 2 holds more than 3 and is elected, first reordered before 3; 1's loss is unknown (down,
     * no evidence).
     */
    private static List<TopicPartition> offlineWithOneSurvivor(LocalKafkaCluster cluster, String topic, int count)
            throws Exception {
        Map<Integer, List<Integer>> assignment = new HashMap<>();
        List<TopicPartition> partitions = new ArrayList<>();
        for (int p = 0; p < count; p++) {
            assignment.put(p, ASSIGNMENT);
            partitions.add(new TopicPartition(topic, p));
        }
        try (Admin admin = cluster.createAdmin()) {
            admin.createTopics(List.of(new NewTopic(topic, assignment).configs(Map.of(
                    TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, "1",
                    TopicConfig.UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG, "false")))).all().get();
        }
        partitions.forEach(tp -> await(cluster, tp, "created", v -> v.leader() == 1 && v.isr().size() == 3));
        produce(cluster, partitions, "all-three", 10, "all");
        cluster.stopBroker(3, StopMode.ABRUPT);
        partitions.forEach(tp -> await(cluster, tp, "3 out of the ISR", v -> v.isr().equals(List.of(1, 2))));
        produce(cluster, partitions, "1-and-2", 10, "all");
        cluster.stopBroker(2, StopMode.ABRUPT);
        partitions.forEach(tp -> await(cluster, tp, "2 out of the ISR", v -> v.isr().equals(List.of(1))));
        produce(cluster, partitions, "1-alone", 10, "1");
        cluster.stopBroker(1, StopMode.ABRUPT);
        partitions.forEach(tp -> await(cluster, tp, "1 gone", PartitionView::isLeaderless));
        cluster.startBrokers(List.of(2, 3));
        cluster.metadata().awaitBrokerUnfenced(2, STEP);
        cluster.metadata().awaitBrokerUnfenced(3, STEP);
        return partitions;
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
