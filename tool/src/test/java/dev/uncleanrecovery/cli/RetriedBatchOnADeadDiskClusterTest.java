// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.uncleanrecovery.formats.Json;
import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.PartitionView;
import dev.uncleanrecovery.localcluster.StopMode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seed 44 of the fault-injection suite: the batch a leader appended without acknowledging it is sent again to the next
 * leader, which appends it first in its own epoch and then leads alone; that one dies with its disk intact and the
 * first comes back, out of the ISR: offline. Under the live replica the dead one cuts where its epoch starts, but the
 * batch there is the one the live replica holds at the same offsets: the plan, from the disk's evidence, counted it
 * lost, the salvage copied it, and the group that had read it was set back to read it again. The plan now states the
 * loss from the batch after it, and the broker, once back, cuts exactly what the salvage holds.
 */
@KafkaClusterTest
class RetriedBatchOnADeadDiskClusterTest {

    private static final String TOPIC = "sent-again";
    private static final TopicPartition SENT_AGAIN_0 = new TopicPartition(TOPIC, 0);
    private static final int LIVE = 1;
    private static final int DEAD = 2;
    private static final int BY_BOTH = 20;
    private static final int RETRIED = 3;
    private static final int BY_THE_DEAD_ONE_ALONE = 5;
    private static final Duration STEP = Duration.ofSeconds(60);

    @TempDir
    static Path dir;

    private static final List<String> acknowledged = new ArrayList<>();
    private static final List<String> ledAlone = new ArrayList<>();

    @BeforeAll
    static void theProducerSendsTheBatchAgainToTheNextLeaderWhichDiesLeadingAlone(LocalKafkaCluster cluster)
            throws Exception {
        cluster.createTopic(TOPIC, List.of(LIVE, DEAD), Map.of(
                TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, "1",
                TopicConfig.UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG, "false"));
        cluster.metadata().awaitPartition(SENT_AGAIN_0, v -> v.leader() == LIVE && v.isr().size() == 2, STEP);
        try (KafkaProducer<String, String> producer = RetriedBatchClusterTest.producer(cluster)) {
            for (int i = 0; i < BY_BOTH; i++) {
                producer.send(new ProducerRecord<>(TOPIC, 0, "k", "both-" + i)).get();
                acknowledged.add("both-" + i);
            }
            // the follower hangs: the leader appends the next batch at [20, 23) and waits for it (acks=all waits for
            // the whole ISR, whatever min.insync.replicas says); it dies with it unacknowledged, the follower is
            // elected and sent the same batch, which it appends first in its own epoch, at the same offsets
            acknowledged.addAll(RetriedBatchClusterTest.sendAgainToTheNextLeader(cluster, producer, SENT_AGAIN_0, LIVE,
                    List.of(DEAD), DEAD, RETRIED, BY_BOTH));
            // it leads alone, then dies
            for (int i = 0; i < BY_THE_DEAD_ONE_ALONE; i++) {
                producer.send(new ProducerRecord<>(TOPIC, 0, "k", "alone-" + i)).get();
                ledAlone.add("alone-" + i);
            }
        }
        cluster.stopBroker(DEAD, StopMode.ABRUPT);
        cluster.metadata().awaitBrokerFenced(DEAD);
        cluster.startBroker(LIVE);
        cluster.metadata().awaitBrokerUnfenced(LIVE);
        cluster.metadata().awaitPartition(SENT_AGAIN_0, v -> v.leader() == PartitionView.NO_LEADER, STEP);
    }

    @Test
    void the_batch_sent_again_is_not_counted_lost_and_the_salvage_holds_what_the_broker_cuts(LocalKafkaCluster cluster)
            throws Exception {
        Path plan = CliRun.planWithTheDiskOf(cluster, DEAD, TOPIC, dir);
        JsonNode election = Json.mapper().readTree(plan.toFile()).get("partitions").get(0);
        assertThat(election.get("designatedLeader").asInt()).as(election.toString()).isEqualTo(LIVE);
        // the state this is about: the live replica holds [20, 23) in the older epoch, the dead one's epoch starts there
        JsonNode live = PlannedElections.evidenceOf(election, LIVE);
        assertThat(live.get("logEndOffset").asLong()).isEqualTo(BY_BOTH + RETRIED);
        JsonNode cut = PlannedElections.truncationOf(election, DEAD);
        assertThat(cut.get("estimate").asText()).as(cut.toString()).isEqualTo("EXACT");
        assertThat(cut.get("fromOffset").asLong()).as(cut.toString()).isEqualTo(BY_BOTH + RETRIED);
        assertThat(cut.get("records").asLong()).as(cut.toString()).isEqualTo(BY_THE_DEAD_ONE_ALONE);

        CliRun copied = CliRun.of("inspect", "--log-dir", cluster.logDir(DEAD).toString(), "--salvage-beyond",
                plan.toString());
        assertThat(copied.exitCode()).as(copied.out() + copied.err()).isEqualTo(ExitCode.OK);
        Path result = dir.resolve("plan-result.json");
        CliRun executed = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test",
                "--plan", plan.toString(), "--result-file", result.toString());
        assertThat(executed.exitCode()).as(executed.out() + executed.err()).isEqualTo(ExitCode.OK);

        // the broker, back, cuts where its epoch starts and fetches the same batch back
        cluster.startBroker(DEAD);
        cluster.metadata().awaitPartition(SENT_AGAIN_0, v -> v.leader() == LIVE && v.isr().contains(DEAD), STEP);
        assertThat(cluster.nodes().logSinceLastStart(DEAD)).containsPattern("Truncating to offset " + BY_BOTH
                + "\\b.*" + SENT_AGAIN_0 + "\\b|" + SENT_AGAIN_0 + "\\b.*Truncating to offset " + BY_BOTH + "\\b");
        Map<Long, String> log = RetriedBatchClusterTest.read(cluster, SENT_AGAIN_0);
        assertThat(log.values()).containsExactlyElementsOf(acknowledged);

        // what it cut and did not get back is the salvage, no more: replayed, it is what the dead one led alone
        TopicPartition salvaged = new TopicPartition("sent-again-salvaged", 0);
        try (Admin admin = cluster.createAdmin()) {
            admin.createTopics(List.of(new NewTopic(salvaged.topic(), 1, (short) 2))).all().get();
        }
        CliRun replayed = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "replay", "--salvage-dir",
                dir.resolve("plan-salvage").toString(), "--to-topic", salvaged.topic(), "--result-file", result.toString(),
                "--execute", "--reason", "test");
        assertThat(replayed.exitCode()).as(replayed.out() + replayed.err()).isEqualTo(ExitCode.OK);
        assertThat(RetriedBatchClusterTest.read(cluster, salvaged).values()).containsExactlyElementsOf(ledAlone);
    }
}
