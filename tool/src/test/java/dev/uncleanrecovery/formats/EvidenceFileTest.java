// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.formats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.uncleanrecovery.UserInputException;
import dev.uncleanrecovery.evidence.EpochStart;
import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.evidence.ReplicaEvidence;
import dev.uncleanrecovery.logdir.LogDirReport;
import dev.uncleanrecovery.logdir.EpochEntry;
import dev.uncleanrecovery.logdir.LogDirSummary;
import dev.uncleanrecovery.logdir.PartitionLogSummary;
import dev.uncleanrecovery.logdir.SkippedDirectory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.function.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EvidenceFileTest {

    private static final Instant AT = Instant.parse("2026-11-29T16:00:00Z");
    private static final Path DATA = Path.of("/var/lib/kafka/data");
    private static final Uuid ORDERS_ID = Uuid.fromString("m0uMP1nXQ4mAkRTb3e6u1Q");

    /** What inspect writes for broker 2 after a kill -9: one readable log, one unreadable, one skipped dir. */
    static final String GOLDEN = """
            {
              "version" : 1,
              "createdAt" : "2026-11-29T16:00:00Z",
              "tool" : "kafka-unclean-recovery 0.1.0",
              "brokerId" : 2,
              "clusterId" : "q1Sh-9_ISia_zwGINzRvyQ",
              "cleanShutdown" : false,
              "logDirs" : [ {
                "path" : "/var/lib/kafka/data",
                "directoryId" : "Ae3cS0yBQSS0UnKe8lGUBg",
                "cleanShutdown" : false,
                "notes" : [ "no clean-shutdown marker" ]
              } ],
              "partitions" : [ {
                "topic" : "orders",
                "partition" : 3,
                "topicId" : "m0uMP1nXQ4mAkRTb3e6u1Q",
                "logDir" : "/var/lib/kafka/data",
                "logStartOffset" : 0,
                "logEndOffset" : 1042,
                "lastWrittenLeaderEpoch" : 6,
                "lastBatchLeaderEpoch" : 6,
                "leaderEpochs" : [ {
                  "epoch" : 4,
                  "startOffset" : 0
                }, {
                  "epoch" : 6,
                  "startOffset" : 980
                } ],
                "invalidTailBytes" : 118,
                "notes" : [ "118 bytes after the last valid batch" ]
              }, {
                "topic" : "orders",
                "partition" : 4,
                "logDir" : "/var/lib/kafka/data",
                "invalidTailBytes" : 0,
                "notes" : [ ],
                "error" : "permission denied reading 00000000000000000000.log"
              } ],
              "skipped" : [ {
                "logDir" : "/var/lib/kafka/data",
                "directory" : "orders-1.7e0c1d9a2b3c4d5e6f708192a3b4c5d6-delete",
                "reason" : "marked for deletion"
              } ]
            }
            """;

    static LogDirReport report() {
        return new LogDirReport(AT,
                List.of(new LogDirSummary(DATA, 2, "q1Sh-9_ISia_zwGINzRvyQ", "Ae3cS0yBQSS0UnKe8lGUBg", false, -1,
                        List.of("no clean-shutdown marker"), null)),
                List.of(new PartitionLogSummary("orders", 3, ORDERS_ID, 2, DATA, 0, 1042, 6, 6, 118, false, -1,
                                List.of("118 bytes after the last valid batch"), null, null,
                                List.of(new EpochEntry(4, 0), new EpochEntry(6, 980))),
                        new PartitionLogSummary("orders", 4, null, 2, DATA, -1, -1, -1, -1, 0, false, -1, List.of(),
                                "permission denied reading 00000000000000000000.log")),
                List.of(new SkippedDirectory(DATA, "orders-1.7e0c1d9a2b3c4d5e6f708192a3b4c5d6-delete", "marked for deletion")));
    }

    @Test
    void inspect_report_is_written_as_the_golden_evidence_file() {
        EvidenceFile file = EvidenceFile.from(report(), "kafka-unclean-recovery 0.1.0");

        assertThat(file.toJson()).isEqualToIgnoringNewLines(GOLDEN);
    }

    @Test
    void the_golden_file_reads_back_to_the_same_evidence() {
        EvidenceFile read = EvidenceFile.parse("b2.json", GOLDEN.getBytes(StandardCharsets.UTF_8));

        assertThat(read).isEqualTo(EvidenceFile.from(report(), "kafka-unclean-recovery 0.1.0"));
    }

    @Test
    void written_and_read_from_disk_without_replacing_an_existing_file(@TempDir Path tmp) throws IOException {
        EvidenceFile file = EvidenceFile.from(report(), "kafka-unclean-recovery 0.1.0");
        Path path = tmp.resolve("broker-2.json");

        file.write(path);
        byte[] written = Files.readAllBytes(path);

        assertThat(EvidenceFile.read(path)).isEqualTo(file);
        assertThatThrownBy(() -> file.write(path)).isInstanceOf(UserInputException.class)
                .hasMessageContaining("already exists");
        assertThat(Files.readAllBytes(path)).isEqualTo(written);
        assertThatThrownBy(() -> EvidenceFile.read(tmp.resolve("nope.json")))
                .isInstanceOf(UserInputException.class).hasMessageContaining("no such broker evidence file");
    }

    @Test
    void a_topic_name_kafka_would_refuse_is_refused_before_it_names_anything() {
        String hostile = GOLDEN.replaceFirst("\"topic\" : \"orders\"", "\"topic\" : \"../../etc\"");

        assertThatThrownBy(() -> EvidenceFile.parse("b2.json", hostile.getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(UserInputException.class)
                .hasMessageStartingWith("b2.json: partitions[0].topic '../../etc' is not a Kafka topic name (");
    }

    @Test
    void a_clean_shutdown_keeps_its_broker_epoch() {
        LogDirReport clean = new LogDirReport(AT,
                List.of(new LogDirSummary(DATA, 2, null, null, true, 311, List.of(), null)), List.of(), List.of());

        EvidenceFile file = EvidenceFile.from(clean, "t");

        assertThat(file.cleanShutdown()).isTrue();
        assertThat(file.brokerEpoch()).isEqualTo(311);
        assertThat(file.toJson()).contains("\"brokerEpoch\" : 311");
    }

    @Test
    void readable_logs_become_disk_evidence_and_unreadable_ones_errors() {
        List<ReplicaEvidence> evidence = EvidenceFile.parse("b2.json", GOLDEN.getBytes(StandardCharsets.UTF_8))
                .toReplicaEvidence();

        assertThat(evidence).containsExactly(
                ReplicaEvidence.answered(new TopicPartition("orders", 3), 2, EvidenceSource.DISK, 1042, 6, -1, -1, AT)
                        .withEpochCache(List.of(new EpochStart(4, 0), new EpochStart(6, 980))),
                ReplicaEvidence.failed(new TopicPartition("orders", 4), 2, EvidenceSource.DISK, EvidenceStatus.ERROR,
                        "log dir /var/lib/kafka/data: permission denied reading 00000000000000000000.log", AT));
    }

    @Test
    void a_report_without_a_known_broker_cannot_become_evidence() {
        LogDirReport unknown = new LogDirReport(AT,
                List.of(new LogDirSummary(DATA, -1, null, null, false, -1, List.of(), "meta.properties is missing")),
                List.of(), List.of());

        assertThatThrownBy(() -> EvidenceFile.from(unknown, "t")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("meta.properties");
    }

    // ---- every way a file can be wrong gives one line with the path ----

    @Test
    void an_unknown_field_is_named_with_its_path() {
        assertThat(readError(edited(root -> partition(root, 0).put("logEndOfset", 3))))
                .isEqualTo("b2.json: partitions[0].logEndOfset is not a field of a broker evidence file here"
                        + " (did you mean logEndOffset?); fix the spelling or remove it");
    }

    @Test
    void a_wrong_type_says_what_was_expected() {
        assertThat(readError(edited(root -> partition(root, 0).put("logEndOffset", "1042"))))
                .isEqualTo("b2.json: partitions[0].logEndOffset must be an integer, found \"1042\"");
        assertThat(readError(edited(root -> root.put("createdAt", "yesterday"))))
                .isEqualTo("b2.json: createdAt must be a UTC timestamp like \"2026-01-31T03:00:00Z\", found \"yesterday\"");
        assertThat(readError(edited(root -> root.put("cleanShutdown", "yes"))))
                .isEqualTo("b2.json: cleanShutdown must be true or false, found \"yes\"");
    }

    @Test
    void a_missing_field_is_named() {
        assertThat(readError(edited(root -> partition(root, 0).remove("logDir"))))
                .isEqualTo("b2.json: partitions[0].logDir is missing");
        assertThat(readError(edited(root -> root.remove("brokerId")))).isEqualTo("b2.json: brokerId is missing");
    }

    @Test
    void impossible_values_are_refused() {
        assertThat(readError(edited(root -> partition(root, 0).put("logEndOffset", -5))))
                .isEqualTo("b2.json: partitions[0].logEndOffset must be >= 0, found -5");
        assertThat(readError(edited(root -> partition(root, 0).remove("lastWrittenLeaderEpoch"))))
                .isEqualTo("b2.json: partitions[0].lastWrittenLeaderEpoch is missing");
        assertThat(readError(edited(root -> partition(root, 0).put("topicId", "not-a-uuid"))))
                .contains("partitions[0].topicId 'not-a-uuid' is not a base64 topic id");
        assertThat(readError(edited(root -> root.put("cleanShutdown", true))))
                .isEqualTo("b2.json: brokerEpoch must be >= 0 when cleanShutdown is true");
    }

    @Test
    void the_epoch_cache_becomes_the_disk_answers_cache_and_one_kafka_would_not_hold_is_refused() {
        EvidenceFile file = EvidenceFile.parse("b2.json", GOLDEN.getBytes(StandardCharsets.UTF_8));
        assertThat(file.toReplicaEvidence().get(0).epochCache())
                .containsExactly(new EpochStart(4, 0), new EpochStart(6, 980));
        assertThat(file.toReplicaEvidence().get(1).epochCache()).isNull();
        // an older inspect's file has none: the replica's cut is then a bound, as before
        String older = GOLDEN.replaceAll("(?s)\\s*\"leaderEpochs\" : \\[.*?\\} \\],", "");
        assertThat(older).doesNotContain("leaderEpochs");
        assertThat(EvidenceFile.parse("old.json", older.getBytes(StandardCharsets.UTF_8)).toReplicaEvidence().get(0)
                .epochCache()).isNull();

        assertThat(refusal(GOLDEN.replace("\"startOffset\" : 980", "\"startOffset\" : 1042")))
                .contains("partitions[0].leaderEpochs", "epoch 6 starts at 1042, outside the log [0..1042)");
        assertThat(refusal(GOLDEN.replace("\"epoch\" : 6,", "\"epoch\" : 5,")))
                .contains("partitions[0].leaderEpochs", "ends at epoch 5, but lastWrittenLeaderEpoch is 6");
        assertThat(refusal(GOLDEN.replace("\"epoch\" : 4,", "\"epoch\" : 7,")))
                .contains("partitions[0].leaderEpochs", "epoch 6 from 980 does not follow epoch 7 from 0");
    }

    private static String refusal(String json) {
        return catchThrowableOfType(UserInputException.class, () -> EvidenceFile.parse("b2.json",
                json.getBytes(StandardCharsets.UTF_8))).getMessage();
    }

    @Test
    void a_newer_version_is_named_as_such() {
        assertThat(readError(edited(root -> root.put("version", 2).put("newField", 1))))
                .isEqualTo("b2.json: version is 2, but this tool reads version 1 broker evidence files; use the tool version that wrote it");
    }

    @Test
    void not_json_or_not_an_object_is_refused() {
        assertThat(readError("{ \"version\": 1,")).startsWith("b2.json: not valid JSON at line 1");
        assertThat(readError("[1, 2]")).isEqualTo("b2.json: not a broker evidence file: expected a JSON object, found an array");
        assertThat(readError("")).startsWith("b2.json: empty file; expected a broker evidence file written by");
    }

    private static String readError(String json) {
        var e = catchThrowableOfType(EvidenceFile.InvalidEvidenceFileException.class,
                () -> EvidenceFile.parse("b2.json", json.getBytes(StandardCharsets.UTF_8)));
        assertThat(e).as("an InvalidEvidenceFileException for:\n" + json).isNotNull();
        assertThat(e).isInstanceOf(UserInputException.class);
        assertThat(e.getMessage()).doesNotContain("\n");
        return e.getMessage();
    }

    private static String edited(Consumer<ObjectNode> edit) {
        try {
            ObjectNode root = (ObjectNode) Json.mapper().readTree(GOLDEN);
            edit.accept(root);
            return Json.mapper().writeValueAsString(root);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static ObjectNode partition(ObjectNode root, int index) {
        return (ObjectNode) root.get("partitions").get(index);
    }
}
