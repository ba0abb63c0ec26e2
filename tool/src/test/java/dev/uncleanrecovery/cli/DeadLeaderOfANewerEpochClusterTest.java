// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.LastReplicaStandingOutage;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.PartitionView;
import dev.uncleanrecovery.localcluster.RecordCount;
import dev.uncleanrecovery.localcluster.RoundProducer;
import dev.uncleanrecovery.localcluster.StopMode;
import dev.uncleanrecovery.formats.Json;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seed 7 of the fault-injection suite: the broker that stays down led the partition last, in a newer epoch than any
 * live replica, and that epoch starts below the log end of the replica the plan elects. Where it cuts under the new
 * leader is not the leader's log end but where its own newer epoch starts: only its epoch cache, read off its disk
 * by {@code inspect}, says where. Without it the plan knew a lower bound only, and execute refused (a copy from the
 * leader's log end would miss the records below it). With it the plan states the exact cut, {@code inspect
 * --salvage-beyond} copies it, execute elects, and the broker, once back, cuts exactly there.
 */
@KafkaClusterTest
class DeadLeaderOfANewerEpochClusterTest {

    private static final String TOPIC = "ledger";
    private static final TopicPartition LEDGER_0 = new TopicPartition(TOPIC, 0);
    private static final int LEADER_OF_EPOCH_0 = 1;
    private static final int LEADER_OF_EPOCH_1 = 2;
    private static final int BEHIND = 3;
    private static final int BY_ALL = 20;
    private static final int BY_FIRST_LEADER_ONLY = 10;
    private static final int BY_SECOND_LEADER_ONLY = 15;
    private static final Duration STEP = Duration.ofSeconds(60);

    @TempDir
    static Path dir;

    @BeforeAll
    static void theLastLeaderOfANewerEpochDies(LocalKafkaCluster cluster) throws Exception {
        LastReplicaStandingOutage.createTopic(cluster, TOPIC, 1, List.of(LEADER_OF_EPOCH_0, LEADER_OF_EPOCH_1, BEHIND));
        cluster.metadata().awaitPartition(LEDGER_0, v -> v.leader() == LEADER_OF_EPOCH_0 && v.isr().size() == 3, STEP);
        produce(cluster, BY_ALL, "all", "round-1");                      // everyone: [0, 20) in epoch 0
        killAndAwaitFence(cluster, BEHIND);
        killAndAwaitFence(cluster, LEADER_OF_EPOCH_1);
        produce(cluster, BY_FIRST_LEADER_ONLY, "1", "round-2");          // broker 1 alone: [20, 30) in epoch 0
        killAndAwaitFence(cluster, LEADER_OF_EPOCH_0);
        // broker 2 comes back holding [0, 20) and is elected uncleanly: its epoch 1 starts at 20, below broker 1's 30
        cluster.startBroker(LEADER_OF_EPOCH_1);
        try (Admin admin = cluster.createAdmin()) {
            admin.electLeaders(ElectionType.UNCLEAN, Set.of(LEDGER_0)).partitions().get();
        }
        cluster.metadata().awaitPartition(LEDGER_0, v -> v.leader() == LEADER_OF_EPOCH_1, STEP);
        produce(cluster, BY_SECOND_LEADER_ONLY, "1", "round-3");         // broker 2 alone: [20, 35) in epoch 1
        killAndAwaitFence(cluster, LEADER_OF_EPOCH_1);
        cluster.startBroker(LEADER_OF_EPOCH_0);
        cluster.startBroker(BEHIND);
        cluster.metadata().awaitPartition(LEDGER_0, v -> v.leader() == PartitionView.NO_LEADER, STEP);
    }

    @Test
    void the_disk_s_epoch_cache_gives_the_exact_cut_which_is_copied_elected_and_what_the_broker_cuts(
            LocalKafkaCluster cluster) throws Exception {
        int dead = LEADER_OF_EPOCH_1;
        long epoch1Start = BY_ALL;
        long deadEnd = BY_ALL + BY_SECOND_LEADER_ONLY;
        Path evidence = dir.resolve("evidence.json");
        CliRun inspected = CliRun.of("inspect", "--log-dir", cluster.logDir(dead).toString(), "--output-file",
                evidence.toString());
        assertThat(inspected.exitCode()).as(inspected.out() + inspected.err()).isEqualTo(ExitCode.OK);
        JsonNode logged = partition(Json.mapper().readTree(evidence.toFile()).get("partitions"));
        // the epoch cache as Kafka loads it: epoch 0 from 0, then broker 2's own (the controller's number) from 20
        JsonNode cache = logged.get("leaderEpochs");
        assertThat(cache).hasSize(2);
        assertThat(cache.get(0).toString()).isEqualTo("{\"epoch\":0,\"startOffset\":0}");
        assertThat(cache.get(1).get("epoch").asInt()).isEqualTo(logged.get("lastWrittenLeaderEpoch").asInt()).isPositive();
        assertThat(cache.get(1).get("startOffset").asLong()).isEqualTo(epoch1Start);

        Path plan = dir.resolve("plan.json");
        CliRun planned = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "plan", "--strategy", "proactive",
                "--probe-timeout-ms", "3000", "--topic", TOPIC, "--evidence", evidence.toString(), "--output-file",
                plan.toString());
        assertThat(planned.exitCode()).as(planned.out() + planned.err()).isEqualTo(ExitCode.OK);
        JsonNode election = partition(Json.mapper().readTree(plan.toFile()).get("partitions"));
        assertThat(election.get("designatedLeader").asInt()).isEqualTo(LEADER_OF_EPOCH_0);
        JsonNode cut = PlannedElections.truncationOf(election, dead);
        // the leader's log end (30) would be a lower bound only: broker 2's own epoch 1 starts at 20
        assertThat(cut.get("estimate").asText()).isEqualTo("EXACT");
        assertThat(cut.get("fromOffset").asLong()).isEqualTo(epoch1Start);
        assertThat(cut.get("toOffset").asLong()).isEqualTo(deadEnd);

        CliRun copied = CliRun.of("inspect", "--log-dir", cluster.logDir(dead).toString(), "--salvage-beyond",
                plan.toString());
        assertThat(copied.exitCode()).as(copied.out() + copied.err()).isEqualTo(ExitCode.OK);
        Path result = dir.resolve("plan-result.json");
        CliRun executed = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test", "--plan",
                plan.toString(), "--result-file", result.toString());
        assertThat(executed.exitCode()).as(executed.out() + executed.err()).isEqualTo(ExitCode.OK);

        // the broker's own cut is the plan's
        cluster.startBroker(dead);
        cluster.metadata().awaitPartition(LEDGER_0, v -> v.leader() == LEADER_OF_EPOCH_0 && v.isr().contains(dead),
                STEP);
        assertThat(cluster.nodes().logSinceLastStart(dead)).containsPattern("Truncating to offset " + epoch1Start + "\\b.*"
                + LEDGER_0 + "\\b|" + LEDGER_0 + "\\b.*Truncating to offset " + epoch1Start + "\\b");

        // and the replay gives back every record it cut, the whole of round 3
        try (Admin admin = cluster.createAdmin()) {
            admin.createTopics(List.of(new NewTopic("ledger-salvaged", 1, (short) 3))).all().get();
        }
        CliRun replayed = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "replay", "--salvage-dir",
                dir.resolve("plan-salvage").toString(), "--to-topic", "ledger-salvaged", "--result-file", result.toString(),
                "--execute", "--reason", "test");
        assertThat(replayed.exitCode()).as(replayed.out() + replayed.err()).isEqualTo(ExitCode.OK);
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < BY_SECOND_LEADER_ONLY; i++) {
            expected.add("round-3-" + i);
        }
        assertThat(RecordCount.keys(cluster, new TopicPartition("ledger-salvaged", 0), STEP))
                .containsExactlyElementsOf(expected);
    }

    private static JsonNode partition(JsonNode partitions) {
        for (JsonNode p : partitions) {
            if (p.get("topic").asText().equals(TOPIC) && p.get("partition").asInt() == 0) {
                return p;
            }
        }
        throw new AssertionError("no " + LEDGER_0 + " in " + partitions);
    }

    private static void produce(LocalKafkaCluster cluster, int count, String acks, String round) {
        RoundProducer.produce(cluster, List.of(LEDGER_0), count, acks, round, Duration.ofSeconds(30));
    }

    private static void killAndAwaitFence(LocalKafkaCluster cluster, int broker) {
        cluster.stopBroker(broker, StopMode.ABRUPT);
        cluster.metadata().awaitBrokerFenced(broker);
    }

}
