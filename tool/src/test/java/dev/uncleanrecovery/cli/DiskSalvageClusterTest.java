// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.LastReplicaStandingOutage;
import dev.uncleanrecovery.logdir.InspectIsReadOnlyTest;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.PartitionView;
import dev.uncleanrecovery.localcluster.RoundProducer;
import dev.uncleanrecovery.localcluster.StopMode;
import dev.uncleanrecovery.formats.Json;
import dev.uncleanrecovery.formats.PlanFile;
import dev.uncleanrecovery.formats.PlannedElection;
import dev.uncleanrecovery.formats.ResultFile;
import dev.uncleanrecovery.salvage.SalvageDirectory;
import dev.uncleanrecovery.salvage.SalvageReplay;
import dev.uncleanrecovery.salvage.SalvageSource;
import dev.uncleanrecovery.salvage.SalvageStore;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The last leader of {@code story} took acks=1 records while its followers were gone, then died by kill -9 with its
 * disk intact; the plan elects another replica. {@code inspect --salvage-beyond} on the dead broker's log dir copies
 * exactly the records only it has, byte for byte as its segment file holds them. It copies those of {@code saga} too,
 * whose only other replica then dies, so execute refuses it: replay produces what the broker cuts of {@code story},
 * and leaves {@code saga}'s copy, whose records the broker keeps. (Seed 7 of the fault-injection suite: a refused
 * partition's disk copy once made replay refuse the whole salvage directory.)
 */
@KafkaClusterTest
class DiskSalvageClusterTest {

    private static final TopicPartition STORY_0 = new TopicPartition("story", 0);
    private static final int ACKED_BY_ALL = 20;
    private static final int ACKED_BY_LEADER_ONLY = 5;
    private static final TopicPartition SAGA_0 = new TopicPartition("saga", 0);
    private static final int SAGA_SURVIVOR = LastReplicaStandingOutage.SHORTEST_SURVIVOR;

    @TempDir
    static Path dir;

    @BeforeAll
    static void lastLeaderDiesHoldingAcksOneRecords(LocalKafkaCluster cluster) {
        // broker 1 ends at 45, its last 5 (round-3, acks=1) on no other replica; 2 ends at 40, 3 at 20
        // saga-0 on [1, 3]: 3 ends at 20 with round 1, broker 1 at 25 with 5 acks=1 records taken while 3 was gone
        cluster.createTopic(SAGA_0.topic(), List.of(LastReplicaStandingOutage.LAST_LEADER, SAGA_SURVIVOR), 2);
        RoundProducer.produce(cluster, List.of(SAGA_0), ACKED_BY_ALL, "all", "saga-1", Duration.ofSeconds(30));
        LastReplicaStandingOutage.reproduce(cluster, "story", 1, ACKED_BY_ALL, ACKED_BY_LEADER_ONLY, step -> {
            // the step before broker 1 dies: 2 and 3 are down, 1 alone leads saga-0 and takes acks=1 writes
            if (step.startsWith("kill -9 broker " + LastReplicaStandingOutage.LAST_LEADER + ",")) {
                RoundProducer.produce(cluster, List.of(SAGA_0), ACKED_BY_LEADER_ONLY, "1", "saga-3",
                        Duration.ofSeconds(30));
            }
        });
        cluster.metadata().awaitPartition(SAGA_0, v -> v.leader() == PartitionView.NO_LEADER, Duration.ofSeconds(60));
    }

    @Test
    void the_dead_leaders_records_are_copied_off_its_disk_byte_for_byte_and_replayed_where_it_cuts_them(
            LocalKafkaCluster cluster) throws Exception {
        Path plan = dir.resolve("plan.json");
        Path selection = Files.writeString(dir.resolve("offline.json"), "{\"partitions\": [{\"topic\": \"story\","
                + " \"partition\": 0}, {\"topic\": \"saga\", \"partition\": 0}]}");
        CliRun planned = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "plan", "--strategy", "proactive",
                "--probe-timeout-ms", "3000", "--path-to-json-file", selection.toString(), "--output-file",
                plan.toString());
        assertThat(planned.exitCode()).as(planned.out() + planned.err()).isEqualTo(ExitCode.OK);
        PlannedElection election = PlanFile.read(plan).partitions().stream()
                .filter(p -> p.topicPartition().equals(STORY_0)).findFirst().orElseThrow();
        assertThat(election.designatedLeader()).isEqualTo(LastReplicaStandingOutage.LONGEST_SURVIVOR);
        assertThat(PlanFile.read(plan).partitions()).filteredOn(p -> p.topicPartition().equals(SAGA_0))
                .singleElement().satisfies(p -> assertThat(p.designatedLeader()).isEqualTo(SAGA_SURVIVOR));
        assertThat(election.topicId()).isNotNull();
        int dead = LastReplicaStandingOutage.LAST_LEADER;
        long leaderEnd = 2L * ACKED_BY_ALL;
        byte[] onDisk = segmentBytesFrom(cluster.disk().replicaDirectory(dead, STORY_0), leaderEnd);
        byte[] sagaOnDisk = segmentBytesFrom(cluster.disk().replicaDirectory(dead, SAGA_0), ACKED_BY_ALL);
        var before = InspectIsReadOnlyTest.snapshot(cluster.logDir(dead));

        CliRun text = CliRun.of("inspect", "--log-dir", cluster.logDir(dead).toString(), "--salvage-beyond",
                plan.toString(), "--salvage-dir", dir.resolve("text").toString());
        CliRun run = CliRun.of("--output", "json", "inspect", "--log-dir", cluster.logDir(dead).toString(),
                "--salvage-beyond", plan.toString());

        assertThat(InspectIsReadOnlyTest.snapshot(cluster.logDir(dead))).as("the log dir is left as it was")
                .isEqualTo(before);
        assertThat(text.exitCode()).as(text.out() + text.err()).isEqualTo(ExitCode.OK);
        assertThat(text.out()).containsPattern("story-0 +COPIED +40\\.\\.44 from the leader's planned log end 40: 5"
                + " records");
        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.OK);
        JsonNode partition = partition(Json.mapper().readTree(run.out()), STORY_0);
        assertThat(partition.get("status").asText()).isEqualTo("COPIED");
        assertThat(partition.get("fromSource").asText()).isEqualTo("LEADER_LOG_END");
        assertThat(partition.get("fromOffset").asLong()).isEqualTo(leaderEnd);
        assertThat(partition.get("lastOffset").asLong()).isEqualTo(leaderEnd + ACKED_BY_LEADER_ONLY - 1);

        byte[] salvaged = InspectSalvageBeyondTest.salvagedSegment(Path.of(partition.get("segment").asText()).getParent());
        assertThat(salvaged).isEqualTo(onDisk);
        List<String> produced = new ArrayList<>();
        for (int i = 0; i < ACKED_BY_LEADER_ONLY; i++) {
            produced.add("round-3-" + i + "=record " + i + " of round-3 (acks=1)");
        }
        assertThat(keysAndValues(salvaged)).containsExactlyElementsOf(produced);
        assertThat(partition.get("sha256").asText()).isEqualTo(sha256(salvaged));
        assertManifestChecksums(Path.of(partition.get("manifest").asText()), salvaged);
        JsonNode saga = partition(Json.mapper().readTree(run.out()), SAGA_0);
        assertThat(saga.get("status").asText()).isEqualTo("COPIED");
        assertThat(saga.get("fromOffset").asLong()).isEqualTo(ACKED_BY_ALL);
        Path sagaCopy = Path.of(saga.get("segment").asText());
        assertThat(Files.readAllBytes(sagaCopy)).isEqualTo(sagaOnDisk);
        // and the store reads it back whole, every file checked against its manifest
        assertThat(SalvageDirectory.read(SalvageStore.besidePlan(plan)).ranges())
                .filteredOn(r -> r.range().partition().equals(STORY_0)).singleElement().satisfies(r -> {
            assertThat(r.range().broker()).isEqualTo(dead);
            assertThat(r.range().fromOffset()).isEqualTo(leaderEnd);
            assertThat(r.range().toOffset()).isEqualTo(leaderEnd + ACKED_BY_LEADER_ONLY);
            assertThat(r.range().topicId().toString()).isEqualTo(election.topicId());
            assertThat(r.sources()).containsExactly(SalvageSource.DISK);
        });

        // saga's designated leader dies: execute elects story (broker 1's loss NOT KNOWN to it) and refuses saga
        cluster.stopBroker(SAGA_SURVIVOR, StopMode.ABRUPT);
        cluster.metadata().awaitBrokerFenced(SAGA_SURVIVOR);
        Path result = dir.resolve("result.json");
        CliRun executed = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test", "--accept-unknown-loss", "--plan",
                plan.toString(), "--result-file", result.toString());
        assertThat(executed.exitCode()).as(executed.out() + executed.err()).isEqualTo(ExitCode.ATTENTION);
        ResultFile recorded = ResultFile.read(result);
        assertThat(recorded.partitions()).extracting(p -> p.topic() + "-" + p.partition() + " " + p.outcome())
                .containsExactlyInAnyOrder(STORY_0 + " ELECTED", SAGA_0 + " REFUSED");
        assertThat(recorded.partitions()).allSatisfy(p -> assertThat(p.salvaged()).as("no run recorded inspect's copies")
                .isNull());

        // replay takes story's copy on the strength of the run that elected it, and leaves saga's
        cluster.createTopic("recovered", List.of(LastReplicaStandingOutage.LONGEST_SURVIVOR), Map.of());
        CliRun replayed = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "replay", "--salvage-dir",
                SalvageStore.besidePlan(plan).toString(), "--to-topic", "recovered", "--result-file", result.toString(),
                "--execute", "--reason", "test");
        assertThat(replayed.exitCode()).as(replayed.out() + replayed.err()).isEqualTo(ExitCode.OK);
        assertThat(replayed.out().replaceAll("\\s+", " ")).contains(STORY_0 + " broker " + dead + " [40, 45): copied"
                        + " off broker " + dead + "'s disk by 'inspect --salvage-beyond'; " + result + " records "
                        + STORY_0 + " ELECTED (leader 2), so broker " + dead + " cuts these records when it rejoins:"
                        + " replayed, checked against its own manifest only",
                SAGA_0 + " broker " + dead + " [20, 25): not cut: no run named elected " + SAGA_0 + " (" + result
                        + " REFUSED); its copy stays in the directory",
                "Produced " + ACKED_BY_LEADER_ONLY + " record(s) into recovered");
        TopicPartition recovered = new TopicPartition("recovered", 0);
        List<String> inTarget = ReplayClusterTest.consume(cluster, recovered, 0,
                        ReplayClusterTest.endOffset(cluster, recovered), IsolationLevel.READ_COMMITTED).stream()
                .map(r -> new String(r.headers().lastHeader(SalvageReplay.TOPIC_HEADER).value(), StandardCharsets.UTF_8)
                        + "@" + new String(r.headers().lastHeader(SalvageReplay.OFFSET_HEADER).value(),
                        StandardCharsets.UTF_8) + " " + new String(r.key(), StandardCharsets.UTF_8) + "="
                        + new String(r.value(), StandardCharsets.UTF_8)).toList();
        List<String> cut = new ArrayList<>();
        for (int i = 0; i < ACKED_BY_LEADER_ONLY; i++) {
            cut.add("story@" + (leaderEnd + i) + " " + produced.get(i));
        }
        assertThat(inTarget).containsExactlyElementsOf(cut);
        assertThat(sagaCopy).as("saga's copy stays in the directory").exists();

        // what was copied is what Kafka destroys: elected 2 leads, and restarted 1 cuts its log exactly there
        cluster.startBroker(dead);
        cluster.metadata().awaitPartition(STORY_0, v -> v.leader() == LastReplicaStandingOutage.LONGEST_SURVIVOR
                && v.isr().contains(dead), Duration.ofSeconds(60));
        assertThat(cluster.nodes().logSinceLastStart(dead)).containsPattern("Truncating to offset " + leaderEnd + "\\b.*"
                + STORY_0 + "\\b|" + STORY_0 + "\\b.*Truncating to offset " + leaderEnd + "\\b");
        // and the records replayed are those it cut: its log ends at the leader's end now, 5 short of before
        assertThat(segmentBytesFrom(cluster.disk().replicaDirectory(dead, STORY_0), leaderEnd)).isEmpty();
        // nothing cut saga's: the broker keeps the records replay left alone
        assertThat(segmentBytesFrom(cluster.disk().replicaDirectory(dead, SAGA_0), ACKED_BY_ALL)).isEqualTo(sagaOnDisk);
    }

    private static JsonNode partition(JsonNode report, TopicPartition tp) {
        for (JsonNode p : report.get("partitions")) {
            if (p.get("topic").asText().equals(tp.topic()) && p.get("partition").asInt() == tp.partition()) {
                return p;
            }
        }
        throw new AssertionError(tp + " is not in " + report);
    }

    /** The broker's own segment bytes from the batch holding {@code fromOffset} to the last valid batch. */
    private static byte[] segmentBytesFrom(Path partitionDir, long fromOffset) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (Stream<Path> files = Files.list(partitionDir)) {
            for (Path segment : files.filter(f -> f.getFileName().toString().endsWith(".log")).sorted().toList()) {
                byte[] bytes = Files.readAllBytes(segment);
                int position = 0;
                for (RecordBatch batch : MemoryRecords.readableRecords(ByteBuffer.wrap(bytes)).batches()) {
                    if (batch.lastOffset() >= fromOffset) {
                        out.write(bytes, position, batch.sizeInBytes());
                    }
                    position += batch.sizeInBytes();
                }
            }
        }
        return out.toByteArray();
    }

    private static List<String> keysAndValues(byte[] segment) {
        List<String> records = new ArrayList<>();
        for (Record record : MemoryRecords.readableRecords(ByteBuffer.wrap(segment)).records()) {
            records.add(StandardCharsets.UTF_8.decode(record.key()) + "=" + StandardCharsets.UTF_8.decode(record.value()));
        }
        return records;
    }

    /** Every file the manifest lists has the size and SHA-256 it states. */
    private static void assertManifestChecksums(Path manifest, byte[] salvaged) throws IOException {
        JsonNode files = Json.mapper().readTree(manifest.toFile()).get("files");
        assertThat(files).isNotNull().hasSize(1);
        JsonNode file = files.get(0);
        Path segment = manifest.resolveSibling(file.get("name").asText());
        assertThat(Files.readAllBytes(segment)).isEqualTo(salvaged);
        assertThat(file.get("bytes").asLong()).isEqualTo(salvaged.length);
        assertThat(file.get("sha256").asText()).isEqualTo(sha256(salvaged));
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
