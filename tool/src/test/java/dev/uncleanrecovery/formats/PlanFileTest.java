// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.formats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.uncleanrecovery.UserInputException;
import dev.uncleanrecovery.election.ExpectedTruncation;
import dev.uncleanrecovery.election.TruncationEstimate;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PlanFileTest {

    /** A plan file byte for byte: reviewers and scripts read these names. */
    static final String GOLDEN = """
            {
              "version" : 5,
              "createdAt" : "2026-11-29T03:04:05Z",
              "clusterId" : "q1Sh-9_ISia_zwGINzRvyQ",
              "tool" : "kafka-unclean-recovery 0.1.0",
              "strategy" : "balanced",
              "unansweredBrokers" : [ {
                "broker" : 1,
                "address" : "127.0.0.1:9091",
                "replicas" : 2,
                "replicasUnknown" : 2,
                "reason" : "broker 1 (127.0.0.1:9091) did not answer within 30 s: connection refused",
                "fenced" : true
              } ],
              "partitions" : [ {
                "topic" : "orders",
                "partition" : 3,
                "designatedLeader" : 2,
                "expected" : {
                  "leaderEpoch" : 7,
                  "replicas" : [ 1, 2, 3 ],
                  "isr" : [ ],
                  "eligibleLeaderReplicas" : [ ],
                  "lastKnownElr" : [ ]
                },
                "evidence" : [ {
                  "broker" : 1,
                  "source" : "stock",
                  "status" : "UNREACHABLE",
                  "error" : "timed out after 30000 ms",
                  "observedAt" : "2026-11-29T03:04:01Z"
                }, {
                  "broker" : 2,
                  "source" : "native",
                  "status" : "OK",
                  "logEndOffset" : 1042,
                  "lastWrittenLeaderEpoch" : 6,
                  "currentLeaderEpoch" : 7,
                  "brokerEpoch" : 311,
                  "observedAt" : "2026-11-29T03:04:01Z"
                }, {
                  "broker" : 3,
                  "source" : "stock",
                  "status" : "OK",
                  "logEndOffset" : 1059,
                  "lastWrittenLeaderEpoch" : 5,
                  "currentLeaderEpoch" : 7,
                  "observedAt" : "2026-11-29T03:04:01Z"
                } ],
                "reason" : "electing 2 loses at least 17 records: at least 0 committed, 17 of unknown commitment, and an unknown amount on 1; electing 3 would lose an unknown amount on 1, 2; highest last written epoch (6), LEO 1042; beats 3 (epoch 5, LEO 1059) and 1 (offline in metadata; unknown: its broker did not answer)",
                "expectedTruncation" : [ {
                  "broker" : 1,
                  "estimate" : "UNKNOWN"
                }, {
                  "broker" : 3,
                  "records" : 17,
                  "fromOffset" : 1042,
                  "toOffset" : 1059,
                  "estimate" : "AT_LEAST",
                  "unknownCommitmentRecords" : 17
                } ],
                "alternatives" : [ {
                  "broker" : 3,
                  "expectedTruncation" : [ {
                    "broker" : 1,
                    "estimate" : "UNKNOWN"
                  }, {
                    "broker" : 2,
                    "records" : 0,
                    "fromOffset" : 1042,
                    "toOffset" : 1042,
                    "estimate" : "AT_LEAST",
                    "committedRecords" : 0,
                    "unknownCommitmentRecords" : 0
                  } ]
                } ],
                "topicId" : "AAAAAAAAACoAAAAAAAAABw"
              } ],
              "skipped" : [ {
                "topic" : "orders",
                "partition" : 5,
                "reason" : "LastKnownELR member 1 is unknown: its broker did not answer — the balanced strategy waits for it: bring it back, pass its log with --evidence from 'inspect', or use --strategy proactive",
                "evidence" : [ {
                  "broker" : 1,
                  "source" : "stock",
                  "status" : "UNREACHABLE",
                  "error" : "connection refused",
                  "observedAt" : "2026-11-29T03:04:01Z"
                }, {
                  "broker" : 2,
                  "source" : "stock",
                  "status" : "OK",
                  "logEndOffset" : 10,
                  "lastWrittenLeaderEpoch" : 6,
                  "currentLeaderEpoch" : 7,
                  "observedAt" : "2026-11-29T03:04:01Z"
                } ]
              } ],
              "notes" : [ ],
              "bootstrapServer" : "127.0.0.1:9092"
            }
            """;

    /**
     * A plan as the tool wrote it before plans named their unanswered brokers and skipped partitions kept their
     * evidence: {@code execute} must still read the plans operators already have.
     */

    @TempDir
    Path dir;

    @Test
    void written_plan_has_the_field_names_and_shape_reviewers_and_scripts_read() throws IOException {
        // given
        Path file = dir.resolve("plan.json");

        // when
        PlanFile.write(file, SamplePlan.plan());

        // then
        assertThat(Files.readString(file)).isEqualTo(GOLDEN);
    }

    @Test
    void the_hash_a_write_returns_is_the_hash_of_the_file_as_read_back_and_as_sha256sum_names_it() throws Exception {
        Path file = dir.resolve("plan.json");

        String written = PlanFile.write(file, SamplePlan.plan());

        assertThat(written).matches("[0-9a-f]{64}").isEqualTo(PlanFile.sha256(file))
                .isEqualTo(java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                        .digest(Files.readAllBytes(file))));
    }

    @Test
    void a_plan_written_before_unanswered_brokers_and_skipped_evidence_still_reads() throws IOException {
        // The golden plan as older versions wrote it: without those two fields.
        ObjectNode old = (ObjectNode) Json.mapper().readTree(GOLDEN);
        old.remove("unansweredBrokers");
        old.get("skipped").forEach(skipped -> ((ObjectNode) skipped).remove("evidence"));

        Plan plan = PlanFile.parse("old-plan.json", Json.mapper().writeValueAsBytes(old));

        assertThat(plan.unansweredBrokers()).isEmpty();
        assertThat(plan.skipped()).singleElement().satisfies(s -> {
            assertThat(s.evidence()).isEmpty();
            assertThat(s.reason()).isEqualTo(PlanFile.parse("golden", GOLDEN.getBytes(StandardCharsets.UTF_8))
                    .skipped().get(0).reason());
        });
        assertThat(plan.partitions()).singleElement().satisfies(p -> assertThat(p.designatedLeader()).isEqualTo(2));
    }

    @Test
    void a_version_2_plan_with_its_partition_epoch_still_reads() throws IOException {
        ObjectNode old = (ObjectNode) Json.mapper().readTree(GOLDEN);
        old.put("version", 2);
        old.get("partitions").forEach(p -> ((ObjectNode) p.get("expected")).put("partitionEpoch", -1)
                .remove(List.of("isr", "eligibleLeaderReplicas", "lastKnownElr")));

        Plan plan = PlanFile.parse("v2-plan.json", Json.mapper().writeValueAsBytes(old));

        assertThat(plan.partitions()).singleElement()
                .satisfies(p -> assertThat(p.expected()).isEqualTo(new ExpectedState(7, List.of(1, 2, 3))));
    }

    @Test
    void unanswered_brokers_and_skipped_evidence_round_trip() throws IOException {
        Path file = dir.resolve("plan.json");
        Plan plan = SamplePlan.plan();

        PlanFile.write(file, plan);

        Plan read = PlanFile.read(file);
        assertThat(read.unansweredBrokers()).isEqualTo(plan.unansweredBrokers()).singleElement()
                .extracting(PlanUnansweredBroker::broker).isEqualTo(1);
        assertThat(read.skipped().get(0).evidence()).isEqualTo(plan.skipped().get(0).evidence()).hasSize(2);
    }

    @Test
    void plan_read_back_equals_the_plan_written() throws IOException {
        Path file = dir.resolve("plan.json");
        Plan plan = SamplePlan.plan();

        PlanFile.write(file, plan);

        assertThat(PlanFile.read(file)).isEqualTo(plan);
    }

    @Test
    void high_watermarks_and_committed_losses_round_trip() throws IOException {
        Path file = dir.resolve("plan.json");
        Plan sample = SamplePlan.plan();
        PlannedElection first = sample.partitions().get(0);
        PlannedElection withCommitted = new PlannedElection(first.topic(), first.partition(), first.designatedLeader(),
                first.expected(), first.evidence().stream().map(e -> e.status() != EvidenceStatus.OK ? e
                        : new PlanEvidence(e.broker(), e.source(), e.status(), e.logEndOffset(), e.lastWrittenLeaderEpoch(),
                                e.currentLeaderEpoch(), e.brokerEpoch(), e.error(), e.observedAt(), 7L)).toList(),
                first.reason(), List.of(new PlanTruncation(3, 17L, 1042L, 1059L, TruncationEstimate.EXACT, 5L, null)));
        Plan plan = new Plan(sample.version(), sample.createdAt(), sample.clusterId(), sample.tool(), sample.strategy(),
                sample.unansweredBrokers(), List.of(withCommitted), sample.skipped());

        PlanFile.write(file, plan);

        assertThat(Files.readString(file)).contains("\"committedRecords\" : 5", "\"highWatermark\" : 7");
        assertThat(PlanFile.read(file)).isEqualTo(plan);
    }

    @Test
    void a_loss_past_every_known_high_watermark_states_its_unknown_commitment_under_the_leader_and_each_alternative()
            throws IOException {
        // given: 30 records lost past a high watermark that proves none of them (a follower's lags), and 30 where no
        // high watermark was read at all
        ExpectedTruncation belowNoHighWatermark = new ExpectedTruncation(3, 30, 100, 130, TruncationEstimate.EXACT, 0);
        ExpectedTruncation withoutHighWatermark = new ExpectedTruncation(1, 30, 100, 130, TruncationEstimate.EXACT);
        PlannedElection first = SamplePlan.plan().partitions().get(0);
        PlannedElection election = new PlannedElection(first.topic(), first.partition(), first.designatedLeader(),
                first.expected(), first.evidence(), first.reason(), List.of(PlanTruncation.from(belowNoHighWatermark)),
                List.of(new PlanAlternative(3, List.of(PlanTruncation.from(withoutHighWatermark)))), null, null);
        Plan sample = SamplePlan.plan();
        Plan plan = new Plan(sample.version(), sample.createdAt(), sample.clusterId(), sample.tool(), sample.strategy(),
                sample.unansweredBrokers(), List.of(election), sample.skipped());
        Path file = dir.resolve("plan.json");

        // when
        PlanFile.write(file, plan);

        // then: a script reads the unknown count, and 0 committed only where a high watermark proves it
        JsonNode written = Json.mapper().readTree(file.toFile()).get("partitions").get(0);
        JsonNode underLeader = written.get("expectedTruncation").get(0);
        assertThat(underLeader.get("committedRecords").asLong()).isZero();
        assertThat(underLeader.get("unknownCommitmentRecords").asLong()).isEqualTo(30);
        JsonNode underAlternative = written.get("alternatives").get(0).get("expectedTruncation").get(0);
        assertThat(underAlternative.has("committedRecords")).as("no high watermark: not written as 0").isFalse();
        assertThat(underAlternative.get("unknownCommitmentRecords").asLong()).isEqualTo(30);
        assertThat(PlanFile.read(file)).isEqualTo(plan);
    }

    @Test
    void a_version_3_plan_reads_its_unknown_commitment_from_what_the_other_counts_leave() throws IOException {
        ObjectNode old = (ObjectNode) Json.mapper().readTree(GOLDEN);
        old.put("version", 3);
        old.findParents("unknownCommitmentRecords").forEach(t -> ((ObjectNode) t).remove("unknownCommitmentRecords"));

        Plan plan = PlanFile.parse("v3-plan.json", Json.mapper().writeValueAsBytes(old));

        assertThat(plan.partitions().get(0).expectedTruncation()).filteredOn(t -> t.broker() == 3).singleElement()
                .satisfies(t -> {
                    assertThat(t.committedRecords()).isNull();
                    assertThat(t.unknownCommitmentRecords()).isEqualTo(17L);
                });
        assertThat(plan.partitions()).isEqualTo(SamplePlan.plan().partitions());
    }

    @Test
    void plan_with_no_partitions_round_trips() throws IOException {
        Path file = dir.resolve("plan.json");

        PlanFile.write(file, SamplePlan.empty());

        Plan read = PlanFile.read(file);
        assertThat(read).isEqualTo(SamplePlan.empty());
        assertThat(read.partitions()).isEmpty();
        assertThat(Files.readString(file)).contains("\"partitions\" : [ ]", "\"strategy\" : \"proactive\"");
    }

    @Test
    void written_plan_is_valid_input_for_kafka_leader_election() throws IOException {
        // given: a plan with an election, and one with none
        Path plan = dir.resolve("plan.json");
        Path empty = dir.resolve("empty.json");
        PlanFile.write(plan, SamplePlan.plan());
        PlanFile.write(empty, SamplePlan.empty());

        // then: both parse the way LeaderElectionCommand parses --path-to-json-file
        assertThat(kafkaLeaderElectionPartitions(plan)).containsExactly("orders-3");
        assertThat(kafkaLeaderElectionPartitions(empty)).isEmpty();
    }

    /**
     * LeaderElectionCommand.parseReplicaElectionData: a plain Jackson readTree (its own mapper, not ours, on
     * purpose), "partitions" must exist and be an array, each {@code topic} isTextual(), each {@code partition}
     * isInt(), other fields ignored, duplicates rejected.
     */
    private static List<String> kafkaLeaderElectionPartitions(Path file) throws IOException {
        JsonNode root = new ObjectMapper().readTree(Files.readString(file));
        JsonNode partitions = root.get("partitions");
        assertThat(partitions).as("\"partitions\" field").isNotNull();
        assertThat(partitions.isArray()).as("partitions is an array").isTrue();
        Set<String> seen = new HashSet<>();
        return Stream.iterate(0, i -> i < partitions.size(), i -> i + 1).map(partitions::get).map(entry -> {
            assertThat(entry.isObject()).isTrue();
            assertThat(entry.get("topic").isTextual()).as("topic isTextual").isTrue();
            assertThat(entry.get("partition").isInt()).as("partition isInt").isTrue();
            String tp = entry.get("topic").textValue() + "-" + entry.get("partition").intValue();
            assertThat(seen.add(tp)).as("no duplicate " + tp).isTrue();
            return tp;
        }).toList();
    }

    @Test
    void write_refuses_to_replace_an_existing_plan() throws IOException {
        // given: a plan under review
        Path file = dir.resolve("plan.json");
        Files.writeString(file, "under review");

        // when / then
        assertThatThrownBy(() -> PlanFile.write(file, SamplePlan.plan()))
                .isInstanceOf(UserInputException.class)
                .hasMessage(file + " already exists; the tool never writes over a file: name a new file, or move the"
                        + " old one away");
        assertThat(Files.readString(file)).isEqualTo("under review");
        assertThat(dir).isDirectoryNotContaining("glob:**.tmp");
    }

    @Test
    void write_into_a_missing_directory_says_which() {
        Path file = dir.resolve("no/such/dir/plan.json");

        assertThatThrownBy(() -> PlanFile.write(file, SamplePlan.plan()))
                .isInstanceOf(UserInputException.class)
                .hasMessageContaining("directory " + dir.resolve("no/such/dir") + " does not exist");
    }

    @Test
    void reading_a_missing_plan_says_so() {
        Path file = dir.resolve("plan.json");

        assertThatThrownBy(() -> PlanFile.read(file))
                .isInstanceOf(UserInputException.class)
                .hasMessage(file + ": no such plan; write one with 'kafka-unclean-recovery.sh plan' first");
    }
}
