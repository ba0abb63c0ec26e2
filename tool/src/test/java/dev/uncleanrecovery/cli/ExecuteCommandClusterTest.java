// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.LastReplicaStandingOutage;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.LogTailCut;
import dev.uncleanrecovery.localcluster.PartitionView;
import dev.uncleanrecovery.localcluster.StopMode;
import dev.uncleanrecovery.formats.Json;
import dev.uncleanrecovery.formats.PlanFile;
import dev.uncleanrecovery.formats.PlannedElection;
import dev.uncleanrecovery.formats.ResultFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The proposal's own system test, for real: unclean election disabled, every ISR member killed with kill -9,
 * the partition offline while replicas 3 (50 records) and 2 (100 records) are alive, replicas [1,3,2].
 */
@KafkaClusterTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ExecuteCommandClusterTest {

    private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);
    private static final TopicPartition ORDERS_1 = new TopicPartition("orders", 1);
    private static final TopicPartition ORDERS_2 = new TopicPartition("orders", 2);

    @TempDir
    static Path dir;

    private static LastReplicaStandingOutage.Result outage;

    @BeforeAll
    static void killEveryIsrMember(LocalKafkaCluster cluster) {
        outage = LastReplicaStandingOutage.reproduce(cluster, "orders", 3, 50, 10, s -> { });
    }

    @Test
    @Order(0)
    void recover_that_cannot_write_its_plan_elects_nothing(LocalKafkaCluster cluster) throws Exception {
        // The plan is written while the partitions are re-read: the election must still wait for it, and not happen.
        Path notADirectory = Files.writeString(dir.resolve("not-a-directory"), "");
        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "recover", "--accept-unknown-loss", "--automated-recovery", "--reason", "test",
                "--strategy", "proactive", "--probe-timeout-ms", "3000", "--topic", "orders", "--partition", "0",
                "--output-file", notADirectory.resolve("orders-0.json").toString());

        assertThat(run.exitCode()).as(run.out() + run.err()).isNotEqualTo(ExitCode.OK);
        assertThat(run.err()).contains("error:", "not-a-directory");
        assertThat(run.err()).doesNotContain("electing");
        assertThat(cluster.metadata().describePartition(ORDERS_0).leader()).isEqualTo(PartitionView.NO_LEADER);
    }

    @Test
    @Order(1)
    void recover_elects_the_longest_log_of_the_highest_epoch_from_outside_the_isr(LocalKafkaCluster cluster) throws Exception {
        PartitionView before = cluster.metadata().describePartition(ORDERS_0);
        Path planFile = dir.resolve("orders-0.json");

        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "recover", "--accept-unknown-loss", "--automated-recovery", "--reason", "test",
                "--strategy", "proactive", "--probe-timeout-ms", "3000", "--topic", "orders", "--partition", "0",
                "--output-file", planFile.toString());

        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.OK);
        assertThat(before.leader()).isEqualTo(PartitionView.NO_LEADER);
        assertThat(before.isr()).doesNotContain(LastReplicaStandingOutage.LONGEST_SURVIVOR);
        PartitionView after = cluster.metadata().awaitPartition(ORDERS_0, v -> v.leader() != PartitionView.NO_LEADER,
                Duration.ofSeconds(30));
        assertThat(after.leader()).isEqualTo(LastReplicaStandingOutage.LONGEST_SURVIVOR);
        // The restore is committed before the tool returns; the broker we ask may learn it a moment later.
        assertThat(cluster.metadata().awaitPartition(ORDERS_0, v -> v.replicas().equals(before.replicas()),
                Duration.ofSeconds(30))
                .replicas()).as("original order restored").isEqualTo(before.replicas());

        ResultFile result = ResultFile.read(dir.resolve("orders-0-result.json"));
        ResultFile.Partition outcome = result.partitions().get(0);
        assertThat(outcome.outcome()).isEqualTo("ELECTED");
        assertThat(outcome.after().leaderEpoch()).isEqualTo(outcome.before().leaderEpoch() + 1);
        // "after" is the order the controller confirmed, even when the read-back still saw the best-first one.
        assertThat(outcome.after().replicas()).isEqualTo(before.replicas());
        // [1,3,2] with 1 down: 3 stood before the designated 2, so the replicas were reordered, then restored.
        assertThat(outcome.detail()).contains("; replica order " + before.replicas() + " restored");
        // none: no producer ever began a transaction here, so the cluster has no __transaction_state and no leader
        // is asked for its producers
        try (Admin admin = cluster.createAdmin()) {
            assertThat(admin.listTopics(new ListTopicsOptions().listInternal(true)).names().get())
                    .doesNotContain("__transaction_state");
        }
        assertThat(result.hangingTransactions()).isEmpty();
        assertThat(result.warnings()).noneSatisfy(w -> assertThat(w).contains("find-hanging"));
        assertThat(run.out().replaceAll("\\s+", " ")).contains("Hanging transactions on the elected partitions: none"
                + " (__transaction_state does not exist: no transaction was ever begun on this cluster)");

        // Every record up to the new leader's log end offset is readable, and what is lost is what the plan said:
        // nothing on replica 3 (it is behind), only the acks=1 records that lived on the dead last leader.
        PlannedElection planned = PlanFile.read(planFile).partitions().get(0);
        long plannedLeo = planned.evidence().stream().filter(e -> e.broker() == 2).findFirst().orElseThrow().logEndOffset();
        assertThat(planned.expectedTruncation()).filteredOn(t -> t.broker() == 3).singleElement()
                .satisfies(t -> assertThat(t.records()).isZero());
        List<ConsumerRecord<String, String>> records = consumeAll(cluster, ORDERS_0);
        assertThat(records).hasSize((int) plannedLeo);
        assertThat(plannedLeo).isEqualTo(outage.survivorLogEndOffsets().get(LastReplicaStandingOutage.LONGEST_SURVIVOR));
        assertThat(outage.acknowledged() - records.size()).isEqualTo(outage.ackedByLeaderOnly());
        assertThat(records).extracting(ConsumerRecord::offset).containsExactlyElementsOf(
                java.util.stream.LongStream.range(0, plannedLeo).boxed().toList());

        // and executing the recovered plan again is a harmless no-op: same leader and assignment (the ISR may
        // still grow as replica 3 catches up: that is not our doing)
        PartitionView recovered = cluster.metadata().describePartition(ORDERS_0);
        CliRun again = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test", "--accept-unknown-loss", "--plan",
                planFile.toString(), "--result-file", dir.resolve("again.json").toString());
        assertThat(again.exitCode()).as(again.out() + again.err()).isEqualTo(ExitCode.OK);
        assertThat(ResultFile.read(dir.resolve("again.json")).partitions().get(0).outcome()).isEqualTo("ALREADY_RECOVERED");
        PartitionView now = cluster.metadata().describePartition(ORDERS_0);
        assertThat(now.leader()).isEqualTo(recovered.leader());
        assertThat(now.replicas()).isEqualTo(recovered.replicas());
    }

    @Test
    @Order(3)
    void a_plan_edited_to_a_broker_outside_the_replica_set_is_refused(LocalKafkaCluster cluster) throws Exception {
        Path plan = planOrders12(cluster, "orders-1-2.json");
        Path edited = edit(plan, "edited.json", (partition, node) -> node.put("designatedLeader", 7));

        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test", "--accept-unknown-loss", "--plan", edited.toString());

        assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(run.err()).contains("designatedLeader 7 is not one of expected.replicas");
        assertThat(cluster.metadata().describePartition(ORDERS_1).leader()).isEqualTo(PartitionView.NO_LEADER);
    }

    @Test
    @Order(4)
    void a_stale_plan_is_refused_and_nothing_changes(LocalKafkaCluster cluster) throws Exception {
        Path plan = planOrders12(cluster, "orders-1-2-stale.json");
        Path stale = edit(plan, "stale.json", (partition, node) -> {
            ObjectNode expected = (ObjectNode) node.get("expected");
            expected.put("leaderEpoch", expected.get("leaderEpoch").asInt() + 5);
        });

        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test", "--accept-unknown-loss", "--plan", stale.toString());

        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.ATTENTION);
        assertThat(run.out().replaceAll("\\s+", " ")).contains("REFUSED", "stale plan");
        assertThat(cluster.metadata().describePartition(ORDERS_1).leader()).isEqualTo(PartitionView.NO_LEADER);
        assertThat(cluster.metadata().describePartition(ORDERS_2).leader()).isEqualTo(PartitionView.NO_LEADER);
    }

    @Test
    @Order(5)
    void a_designated_broker_fenced_after_the_plan_is_refused_and_the_others_are_done(LocalKafkaCluster cluster)
            throws Exception {
        // orders-1 keeps designated leader 2; orders-2 is edited to designate 3 (also probed and alive).
        Path plan = edit(planOrders12(cluster, "orders-1-2-fenced.json"), "fenced.json", (partition, node) -> {
            if (partition == 2) {
                node.put("designatedLeader", LastReplicaStandingOutage.SHORTEST_SURVIVOR);
            }
        });
        cluster.stopBroker(LastReplicaStandingOutage.LONGEST_SURVIVOR, StopMode.ABRUPT);
        cluster.metadata().awaitBrokerFenced(LastReplicaStandingOutage.LONGEST_SURVIVOR);
        try {
            // electing 3 on orders-2 cuts fenced 2's longer log, which no Fetch can read now: only --no-salvage elects it
            CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test", "--accept-unknown-loss", "--plan", plan.toString(),
                    "--reprobe-timeout-ms", "3000", "--no-salvage");

            assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.ATTENTION);
            Map<String, String> outcomes = outcomes(ResultFile.read(dir.resolve("fenced-result.json")));
            assertThat(outcomes).containsEntry("orders-1", "REFUSED").containsEntry("orders-2", "ELECTED");
            assertThat(ResultFile.read(dir.resolve("fenced-result.json")).salvage()).isEqualTo("--no-salvage: nothing was kept");
            assertThat(run.out().replaceAll("\\s+", " ")).contains("designated broker 2 is fenced");
            assertThat(cluster.metadata().describePartition(ORDERS_2).leader()).isEqualTo(LastReplicaStandingOutage.SHORTEST_SURVIVOR);
            // 3 was the first live replica of [1,3,2] (1 dead, 2 fenced): elected without touching the assignment.
            assertThat(run.err()).contains("not touched");
            assertThat(ResultFile.read(dir.resolve("fenced-result.json")).partitions()).filteredOn(p -> p.partition() == 2)
                    .singleElement().satisfies(p -> assertThat(p.detail()).contains("replicas not reordered"));
            assertThat(cluster.metadata().describePartition(ORDERS_2).replicas()).containsExactly(1, 3, 2);
            assertThat(cluster.metadata().describePartition(ORDERS_1).leader()).isEqualTo(PartitionView.NO_LEADER);
        } finally {
            cluster.startBroker(LastReplicaStandingOutage.LONGEST_SURVIVOR);
        }
    }

    @Test
    @Order(6)
    void a_designated_log_that_shrank_after_the_plan_is_refused_and_nothing_changes(LocalKafkaCluster cluster)
            throws Exception {
        // given: a plan for orders-1 (still offline), designating the longest survivor; then that broker is killed,
        // loses the tail of its log on disk (no clean-shutdown marker: its log recovery truncates the cut batch)
        // and comes back
        Path plan = plan(cluster, "orders-1.json", "--topic", "orders", "--partition", "1");
        PlannedElection election = PlanFile.read(plan).partitions().get(0);
        assertThat(election.designatedLeader()).isEqualTo(LastReplicaStandingOutage.LONGEST_SURVIVOR);
        long plannedLeo = election.evidence().stream().filter(e -> e.broker() == election.designatedLeader())
                .findFirst().orElseThrow().logEndOffset();
        PartitionView before = cluster.metadata().describePartition(ORDERS_1);
        cluster.stopBroker(LastReplicaStandingOutage.LONGEST_SURVIVOR, StopMode.ABRUPT);
        cluster.metadata().awaitBrokerFenced(LastReplicaStandingOutage.LONGEST_SURVIVOR);
        cluster.disk().truncateReplicaLog(ORDERS_1, LastReplicaStandingOutage.LONGEST_SURVIVOR,
                LogTailCut.dropBytes(100));
        cluster.startBroker(LastReplicaStandingOutage.LONGEST_SURVIVOR);

        // when
        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test", "--accept-unknown-loss", "--plan", plan.toString(),
                "--reprobe-timeout-ms", "10000");

        // then: the second look finds the shorter log, the partition is refused, nothing is touched
        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.ATTENTION);
        ResultFile.Partition outcome = ResultFile.read(dir.resolve("orders-1-result.json")).partitions().get(0);
        assertThat(outcome.outcome()).isEqualTo("REFUSED");
        assertThat(outcome.detail()).contains("designated replica 2 log shrank since the plan", "LEO " + plannedLeo + " ->");
        PartitionView after = cluster.metadata().describePartition(ORDERS_1);
        assertThat(after.leader()).isEqualTo(PartitionView.NO_LEADER);
        assertThat(after.replicas()).isEqualTo(before.replicas());
        assertThat(run.err()).doesNotContain("reordering", "electing");
    }

    private static Path planOrders12(LocalKafkaCluster cluster, String name) throws Exception {
        Path selection = Files.writeString(dir.resolve("select-" + name),
                "{\"partitions\":[{\"topic\":\"orders\",\"partition\":1},{\"topic\":\"orders\",\"partition\":2}]}");
        return plan(cluster, name, "--path-to-json-file", selection.toString());
    }

    /** 'plan' (proactive) of the selected partitions into {@code name} in the test's directory; it must succeed. */
    private static Path plan(LocalKafkaCluster cluster, String name, String... selection) {
        Path file = dir.resolve(name);
        List<String> args = new java.util.ArrayList<>(List.of("--bootstrap-server", cluster.bootstrapServers(), "plan",
                "--strategy", "proactive", "--probe-timeout-ms", "3000", "--output-file", file.toString()));
        args.addAll(List.of(selection));
        CliRun run = CliRun.of(args.toArray(String[]::new));
        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.OK);
        return file;
    }

    private interface PartitionEdit {
        void apply(int partition, ObjectNode node);
    }

    private static Path edit(Path plan, String name, PartitionEdit edit) throws Exception {
        JsonNode root = Json.mapper().readTree(plan.toFile());
        for (JsonNode partition : (ArrayNode) root.get("partitions")) {
            edit.apply(partition.get("partition").asInt(), (ObjectNode) partition);
        }
        Path edited = dir.resolve(name);
        Json.mapper().writeValue(edited.toFile(), root);
        return edited;
    }

    private static Map<String, String> outcomes(ResultFile result) {
        return result.partitions().stream().collect(java.util.stream.Collectors.toMap(
                p -> p.topic() + "-" + p.partition(), ResultFile.Partition::outcome));
    }

    private static List<ConsumerRecord<String, String>> consumeAll(LocalKafkaCluster cluster, TopicPartition tp) {
        Properties props = new Properties();
        props.putAll(cluster.clientProperties());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer())) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long end = consumer.endOffsets(List.of(tp), Duration.ofSeconds(30)).get(tp);
            List<ConsumerRecord<String, String>> records = new java.util.ArrayList<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (consumer.position(tp) < end && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(500)).records(tp).forEach(records::add);
            }
            return records;
        }
    }
}
