// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.formats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** Every way a hand edit can break a plan gives one line: the file, the JSON path, what to fix. */
class PlanFileMalformedTest {

    private static String readError(String json) {
        PlanFormatException e = catchThrowableOfType(PlanFormatException.class,
                () -> PlanFile.parse("plan.json", json.getBytes(StandardCharsets.UTF_8)));
        assertThat(e).as("a PlanFormatException for:\n" + json).isNotNull();
        assertThat(e.getMessage()).doesNotContain("\n").startsWith("plan.json: ");
        return e.getMessage();
    }

    /** The golden plan with one edit applied to its tree. */
    private static String edited(Consumer<ObjectNode> edit) {
        try {
            ObjectNode root = (ObjectNode) Json.mapper().readTree(PlanFileTest.GOLDEN);
            edit.accept(root);
            return Json.mapper().writeValueAsString(root);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static ObjectNode election(ObjectNode root) {
        return (ObjectNode) root.get("partitions").get(0);
    }

    @Test
    void the_unedited_golden_plan_reads() {
        assertThat(PlanFile.parse("plan.json", PlanFileTest.GOLDEN.getBytes(StandardCharsets.UTF_8)))
                .isEqualTo(SamplePlan.plan());
    }

    @Test
    void unanswered_broker_without_a_reason() {
        assertThat(readError(edited(root -> ((ObjectNode) root.get("unansweredBrokers").get(0)).remove("reason"))))
                .isEqualTo("plan.json: unansweredBrokers[0].reason is missing");
    }

    @Test
    void unanswered_broker_listed_twice() {
        assertThat(readError(edited(root -> ((com.fasterxml.jackson.databind.node.ArrayNode) root.get("unansweredBrokers"))
                .add(root.get("unansweredBrokers").get(0).deepCopy()))))
                .isEqualTo("plan.json: unansweredBrokers[1] is broker 1 again; keep one of them");
    }

    @Test
    void skipped_evidence_is_checked_like_an_election_s() {
        assertThat(readError(edited(root -> ((ObjectNode) root.get("skipped").get(0).get("evidence").get(1))
                .remove("logEndOffset"))))
                .isEqualTo("plan.json: skipped[0].evidence[1].logEndOffset is missing");
    }

    @Test
    void partition_as_a_string() {
        assertThat(readError(edited(root -> election(root).put("partition", "3"))))
                .isEqualTo("plan.json: partitions[0].partition must be an integer, found \"3\"");
    }

    @Test
    void partition_as_a_decimal() {
        // kafka-leader-election.sh rejects 3.0 too (isInt())
        assertThat(readError(edited(root -> election(root).put("partition", 3.0))))
                .isEqualTo("plan.json: partitions[0].partition must be an integer, found 3.0");
    }

    @Test
    void partition_beyond_32_bits() {
        assertThat(readError(edited(root -> election(root).put("partition", 3_000_000_000L))))
                .isEqualTo("plan.json: partitions[0].partition must be an integer that fits in 32 bits, found 3000000000");
    }

    @Test
    void negative_partition() {
        assertThat(readError(edited(root -> election(root).put("partition", -1))))
                .isEqualTo("plan.json: partitions[0].partition must be >= 0, found -1");
    }

    @Test
    void topic_as_a_number() {
        assertThat(readError(edited(root -> election(root).put("topic", 7))))
                .isEqualTo("plan.json: partitions[0].topic must be a string, found 7");
    }

    @Test
    void misspelled_required_field() {
        assertThat(readError(edited(root -> election(root).set("designatedleader", election(root).remove("designatedLeader")))))
                .isEqualTo("plan.json: partitions[0].designatedLeader is missing (is \"designatedleader\" a misspelling of it?)");
    }

    @Test
    void misspelled_optional_field() {
        assertThat(readError(edited(root -> ((ObjectNode) election(root).get("evidence").get(0)).put("eror", "x"))))
                .isEqualTo("plan.json: partitions[0].evidence[0].eror is not a field of a plan here"
                        + " (did you mean error?); fix the spelling or remove it");
    }

    @Test
    void unknown_field_lists_the_known_ones() {
        assertThat(readError(edited(root -> root.put("comment", "reviewed by alice"))))
                .isEqualTo("plan.json: comment is not a field of a plan here (fields here: bootstrapServer, clusterId,"
                        + " createdAt, notes, partitions, skipped, strategy, tool, unansweredBrokers, version); fix the"
                        + " spelling or remove it");
    }

    @Test
    void missing_designated_leader() {
        assertThat(readError(edited(root -> election(root).remove("designatedLeader"))))
                .isEqualTo("plan.json: partitions[0].designatedLeader is missing");
    }

    @Test
    void missing_topic() {
        assertThat(readError(edited(root -> election(root).remove("topic"))))
                .isEqualTo("plan.json: partitions[0].topic is missing");
    }

    @Test
    void null_topic() {
        assertThat(readError(edited(root -> election(root).putNull("topic"))))
                .isEqualTo("plan.json: partitions[0].topic must be a string, found null");
    }

    @Test
    void null_partition() {
        assertThat(readError(edited(root -> election(root).putNull("partition"))))
                .isEqualTo("plan.json: partitions[0].partition must be an integer, found null");
    }

    @Test
    void missing_skipped_list() {
        assertThat(readError(edited(root -> root.remove("skipped"))))
                .isEqualTo("plan.json: skipped is missing");
    }

    @Test
    void partitions_not_an_array() {
        assertThat(readError(edited(root -> root.putObject("partitions"))))
                .isEqualTo("plan.json: partitions must be an array, found an object");
    }

    @Test
    void newer_version() {
        assertThat(readError(edited(root -> root.put("version", 6).put("someNewField", true))))
                .isEqualTo("plan.json: version is 6, but this tool reads version 1 to 5 plans; use the tool version"
                        + " that wrote it");
    }

    @Test
    void version_as_a_string() {
        assertThat(readError(edited(root -> root.put("version", "1"))))
                .isEqualTo("plan.json: version must be an integer, found \"1\"");
    }

    @Test
    void duplicate_partition() {
        assertThat(readError(edited(root -> ((ArrayNode) root.get("partitions")).add(election(root).deepCopy()))))
                .isEqualTo("plan.json: partitions[1] is orders-3 again (already partitions[0]); keep one of them");
    }

    @Test
    void partition_both_elected_and_skipped() {
        assertThat(readError(edited(root -> ((ObjectNode) root.get("skipped").get(0)).put("partition", 3))))
                .isEqualTo("plan.json: skipped[0] is orders-3 again (already partitions[0]); keep one of them");
    }

    @Test
    void designated_leader_outside_the_replicas() {
        assertThat(readError(edited(root -> election(root).put("designatedLeader", 5))))
                .isEqualTo("plan.json: partitions[0].designatedLeader 5 is not one of expected.replicas [1, 2, 3];"
                        + " designate one of those brokers");
    }

    @Test
    void replica_listed_twice() {
        assertThat(readError(edited(root -> ((ArrayNode) election(root).get("expected").get("replicas")).set(1, 1))))
                .isEqualTo("plan.json: partitions[0].expected.replicas [1, 1, 3] lists broker 1 twice");
    }

    @Test
    void unknown_strategy() {
        assertThat(readError(edited(root -> root.put("strategy", "aggressive"))))
                .isEqualTo("plan.json: strategy must be one of \"balanced\", \"proactive\", found \"aggressive\"");
    }

    @Test
    void unknown_evidence_status() {
        assertThat(readError(edited(root -> ((ObjectNode) election(root).get("evidence").get(0)).put("status", "SLEEPING"))))
                .isEqualTo("plan.json: partitions[0].evidence[0].status must be one of \"OK\", \"UNREACHABLE\", \"ERROR\","
                        + " \"STALE\", \"LOG_DIR_OFFLINE\", found \"SLEEPING\"");
    }

    @Test
    void answered_evidence_without_its_log_end_offset() {
        assertThat(readError(edited(root -> ((ObjectNode) election(root).get("evidence").get(1)).remove("logEndOffset"))))
                .isEqualTo("plan.json: partitions[0].evidence[1].logEndOffset is missing");
    }

    @Test
    void known_truncation_without_records() {
        assertThat(readError(edited(root -> ((ObjectNode) election(root).get("expectedTruncation").get(1)).remove("records"))))
                .isEqualTo("plan.json: partitions[0].expectedTruncation[1].records is missing");
    }

    @Test
    void unknown_commitment_that_does_not_add_up_to_the_records() {
        assertThat(readError(edited(root -> ((ObjectNode) election(root).get("expectedTruncation").get(1))
                .put("committedRecords", 5))))
                .isEqualTo("plan.json: partitions[0].expectedTruncation[1].unknownCommitmentRecords 17 must be records 17"
                        + " less committedRecords and neverCommittedRecords: 12");
    }

    @Test
    void created_at_that_is_not_a_timestamp() {
        assertThat(readError(edited(root -> root.put("createdAt", "yesterday"))))
                .isEqualTo("plan.json: createdAt must be a UTC timestamp like \"2026-01-31T03:00:00Z\", found \"yesterday\"");
    }

    @Test
    void field_written_twice() {
        String json = PlanFileTest.GOLDEN.replace("\"designatedLeader\" : 2,", "\"designatedLeader\" : 2, \"designatedLeader\" : 3,");

        assertThat(readError(json)).isEqualTo("plan.json: partitions[0].designatedLeader appears twice at line 18, column 50; keep one");
    }

    @Test
    void trailing_comma() {
        String json = PlanFileTest.GOLDEN.replace("\"lastKnownElr\" : [ ]", "\"lastKnownElr\" : [ ],");

        assertThat(readError(json)).isEqualTo("plan.json: not valid JSON at line 25, column 5: a comma before this"
                + " '}': JSON allows none after the last entry; remove it");
    }

    @Test
    void cut_short_in_our_words() {
        String json = PlanFileTest.GOLDEN.substring(0, PlanFileTest.GOLDEN.indexOf("[ 1, 2, 3 ]") + 9);

        assertThat(readError(json)).isEqualTo("plan.json: not valid JSON at line 21, column 29: the file ends before"
                + " the array opened at line 21, column 20 is closed (cut short, or a missing ']')");
    }

    @Test
    void cut_short_inside_a_string() {
        String json = PlanFileTest.GOLDEN.substring(0, PlanFileTest.GOLDEN.indexOf("\"orders\"") + 4);

        assertThat(readError(json)).endsWith(": the file ends inside a string (cut short, or a missing '\"')");
    }

    @Test
    void missing_comma_between_fields_keeps_the_parser_s_sentence_and_where() {
        String json = PlanFileTest.GOLDEN.replace("\"designatedLeader\" : 2,", "\"designatedLeader\" : 2");

        // the parser's own words, whatever a Jackson version makes of them, after the line and column
        assertThat(readError(json)).startsWith("plan.json: not valid JSON at line 19, column 5: ").contains("comma")
                .doesNotContain("Source", "REDACTED", "StreamReadFeature");
    }

    @Test
    void null_inside_an_array() {
        assertThat(readError(edited(root -> ((ArrayNode) root.get("partitions")).addNull())))
                .isEqualTo("plan.json: partitions[1] must be an object, found null");
    }

    @Test
    void evidence_status_as_a_number() {
        // Jackson would otherwise take 1 for the second constant, UNREACHABLE
        assertThat(readError(edited(root -> ((ObjectNode) election(root).get("evidence").get(0)).put("status", 1))))
                .isEqualTo("plan.json: partitions[0].evidence[0].status must be one of \"OK\", \"UNREACHABLE\", \"ERROR\","
                        + " \"STALE\", \"LOG_DIR_OFFLINE\", found 1");
    }

    @Test
    void something_other_than_json_after_the_plan() {
        assertThat(readError(PlanFileTest.GOLDEN + "\nreviewed: alice"))
                .isEqualTo("plan.json: content after the plan's closing brace at line 103, column 1; the file holds one"
                        + " JSON object");
    }

    @Test
    void cut_short_between_fields_in_our_words() {
        String json = PlanFileTest.GOLDEN.substring(0, PlanFileTest.GOLDEN.indexOf("\"designatedLeader\""));

        assertThat(readError(json)).startsWith("plan.json: not valid JSON at line ")
                .endsWith("the file ends before the object opened at line 15, column 20 is closed (cut short, or a"
                        + " missing '}')");
    }

    @Test
    void a_file_cut_after_an_opening_bracket_names_where_the_array_opened() {
        assertThat(readError("{\"version\": 2, \"partitions\": [\n")).isEqualTo("plan.json: not valid JSON at line 2,"
                + " column 1: the file ends before the array opened at line 1, column 30 is closed (cut short, or a"
                + " missing ']')");
    }

    @Test
    void wrong_closing_bracket_in_our_words() {
        String json = PlanFileTest.GOLDEN.replace("\"replicas\" : [ 1, 2, 3 ]", "\"replicas\" : [ 1, 2, 3 }");

        assertThat(readError(json)).isEqualTo("plan.json: not valid JSON at line 21, column 30: unexpected '}':"
                        + " expected ']' to close the array opened at line 21, column 20")
                .doesNotContain("Source", "REDACTED", "StreamReadFeature");
    }

    @Test
    void two_plans_in_one_file() {
        assertThat(readError(PlanFileTest.GOLDEN + PlanFileTest.GOLDEN))
                .isEqualTo("plan.json: content after the plan's closing brace at line 102, column 1; the file holds one JSON object");
    }

    @Test
    void empty_file() {
        assertThat(readError("  \n")).isEqualTo("plan.json: empty file; expected a plan written by 'kafka-unclean-recovery.sh plan'");
    }

    @Test
    void not_an_object() {
        JsonNode kafkaStyle = Json.mapper().createArrayNode().add(1);
        assertThat(readError(kafkaStyle.toString())).isEqualTo("plan.json: not a plan: expected a JSON object, found an array");
    }
}
