// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.uncleanrecovery.election.Strategy;
import dev.uncleanrecovery.election.TruncationEstimate;
import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.logdir.InspectIsReadOnlyTest;
import dev.uncleanrecovery.logdir.LogDirFixture;
import dev.uncleanrecovery.formats.ExpectedState;
import dev.uncleanrecovery.formats.Json;
import dev.uncleanrecovery.formats.Plan;
import dev.uncleanrecovery.formats.PlanEvidence;
import dev.uncleanrecovery.formats.PlanFile;
import dev.uncleanrecovery.formats.PlanTruncation;
import dev.uncleanrecovery.formats.PlannedElection;
import dev.uncleanrecovery.salvage.SalvageStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code inspect --salvage-beyond} on log dirs laid out as a broker writes them: broker 1, the dead last leader,
 * holds records past where the designated leader 2's log ends.
 */
class InspectSalvageBeyondTest {

    private static final int DEAD = 1;
    private static final int DESIGNATED = 2;

    @TempDir
    Path tmp;

    private LogDirFixture logDir;
    private LogDirFixture.Partition story;
    private LogDirFixture.Segment storyFirst;
    private LogDirFixture.Segment storySecond;
    private LogDirFixture.Partition recreated;
    private LogDirFixture.Partition behind;

    /** story-0 ends at 40 across two segments with a torn write after it; the plan's leader 2 ends at 15. */
    private void deadLeaderAfterKill9() {
        logDir = LogDirFixture.formatted(tmp.resolve("data"), DEAD);
        story = logDir.partition("story", 0).leaderEpochs("0 0", "3 20");
        storyFirst = story.segment(0).batch(0, 0, 10).batch(0, 10, 10);
        storySecond = story.segment(20).batch(3, 20, 10).batch(3, 30, 10)
                .appendRaw(new byte[] {0, 0, 0, 0, 0, 0, 0, 50, 0, 0, 1, 0, 0}); // a write cut short by kill -9
        recreated = logDir.partition("recreated", 0).leaderEpochs("0 0");
        recreated.segment(0).batch(0, 0, 30);
        behind = logDir.partition("behind", 0).leaderEpochs("0 0");
        behind.segment(0).batch(0, 0, 8);
    }

    private Path plan(PlannedElection... partitions) throws IOException {
        Path file = tmp.resolve("plan.json");
        PlanFile.write(file, new Plan(Plan.VERSION, Instant.parse("2026-12-02T14:00:00Z"), LogDirFixture.CLUSTER_ID,
                "kafka-unclean-recovery test", Strategy.PROACTIVE, List.of(), List.of(partitions), List.of()));
        return file;
    }

    private static PlannedElection election(String topic, Uuid topicId, long leaderLogEnd, PlanTruncation... cuts) {
        return new PlannedElection(topic, 0, DESIGNATED, new ExpectedState(5, List.of(DEAD, 3, DESIGNATED)), List.of(
                new PlanEvidence(DESIGNATED, EvidenceSource.STOCK, EvidenceStatus.OK, leaderLogEnd, 3, 5, null, null,
                        Instant.EPOCH, leaderLogEnd)),
                "longest log", List.of(cuts), List.of(), List.of(), false, topicId == null ? null : topicId.toString());
    }

    @Test
    void a_topic_name_longer_than_a_line_is_said_whole_within_120_columns() throws IOException {
        String topic = "orders.eu-west-1.payments-service.v2." + "settlement-events-".repeat(11);
        logDir = LogDirFixture.formatted(tmp.resolve("data"), DEAD);
        LogDirFixture.Partition longName = logDir.partition(topic, 0).leaderEpochs("0 0");
        longName.segment(0).batch(0, 0, 15).batch(0, 15, 5);
        Path plan = plan(election(topic, longName.topicId, 15, new PlanTruncation(DEAD, null, null, null,
                TruncationEstimate.UNKNOWN)));

        CliRun run = CliRun.inspect("--log-dir", logDir.dir.toString(), "--salvage-beyond", plan.toString());

        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.OK);
        // the name is cut where a line ends, never with a space put into it
        assertThat(run.out().replaceAll("\\n +", "")).contains(topic + "-0: ");
        assertThat(run.outWords()).contains("1 copied (5 records");
    }

    @Test
    void copies_from_the_leaders_planned_log_end_across_segments_and_leaves_the_torn_write_out() throws IOException {
        deadLeaderAfterKill9();
        Path plan = plan(election("story", story.topicId, 15, new PlanTruncation(DEAD, null, null, null,
                TruncationEstimate.UNKNOWN)));
        InspectIsReadOnlyTest.ageEverything(logDir.dir);
        Map<String, String> before = InspectIsReadOnlyTest.snapshot(logDir.dir);

        CliRun run = CliRun.inspect("--log-dir", logDir.dir.toString(), "--salvage-beyond", plan.toString());

        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.OK);
        assertThat(run.out()).containsPattern("story-0 +COPIED +15\\.\\.39 from the leader's planned log end 15: 30"
                        + " records, 3 batches")
                .contains("story-0: left out 13 bytes after offset 39 (a torn write)")
                .contains("1 copied (30 records");
        assertThat(run.out().lines().filter(l -> l.startsWith("story-0"))).allMatch(l -> l.length() <= 120);
        assertThat(InspectIsReadOnlyTest.snapshot(logDir.dir)).isEqualTo(before);
        byte[] first = Files.readAllBytes(storyFirst.log);
        byte[] second = Files.readAllBytes(storySecond.log);
        byte[] expected = concat(Arrays.copyOfRange(first, LogDirFixture.positionOf(first, 10), first.length),
                Arrays.copyOfRange(second, 0, second.length - 13));
        assertThat(salvagedSegment(SalvageStore.besidePlan(plan))).isEqualTo(expected);

        // a second run finds the same copy already there and keeps it
        CliRun again = CliRun.inspect("--log-dir", logDir.dir.toString(), "--salvage-beyond", plan.toString());
        assertThat(again.exitCode()).as(again.out() + again.err()).isEqualTo(ExitCode.OK);
        assertThat(again.out()).containsPattern("story-0 +COPIED +15\\.\\.39");
        assertThat(salvagedSegment(SalvageStore.besidePlan(plan))).isEqualTo(expected);
    }

    @Test
    void a_topic_selection_narrows_the_plan_and_evidence_options_are_refused() throws IOException {
        deadLeaderAfterKill9();
        Path plan = plan(election("story", story.topicId, 40), election("behind", behind.topicId, 12));

        CliRun run = CliRun.inspect("--log-dir", logDir.dir.toString(), "--salvage-beyond", plan.toString(),
                "--topic", "behind");
        CliRun both = CliRun.inspect("--log-dir", logDir.dir.toString(), "--salvage-beyond", plan.toString(),
                "--output-file", tmp.resolve("evidence.json").toString());
        CliRun none = CliRun.inspect("--log-dir", logDir.dir.toString(), "--salvage-beyond", plan.toString(),
                "--topic", "unplanned");

        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.OK);
        assertThat(run.out()).contains("behind-0").doesNotContain("story-0").contains("1 partition(s)");
        assertThat(both.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(both.err()).contains("--output-file").contains("--salvage-beyond");
        assertThat(none.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(none.err()).contains("elects no partition of topic unplanned");
    }

    @Test
    void an_exact_planned_cut_wins_over_the_leaders_log_end() throws IOException {
        deadLeaderAfterKill9();
        Path plan = plan(election("story", story.topicId, 15, new PlanTruncation(DEAD, 8L, 30L, 38L,
                TruncationEstimate.EXACT)));
        Path salvage = tmp.resolve("elsewhere");

        CliRun run = CliRun.of("--output", "json", "inspect", "--log-dir", logDir.dir.toString(),
                "--salvage-beyond", plan.toString(), "--salvage-dir", salvage.toString());

        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.OK);
        JsonNode partition = Json.mapper().readTree(run.out()).get("partitions").get(0);
        assertThat(partition.get("status").asText()).isEqualTo("COPIED");
        assertThat(partition.get("fromSource").asText()).isEqualTo("PLANNED_TRUNCATION");
        assertThat(partition.get("fromOffset").asLong()).isEqualTo(30);
        assertThat(partition.get("firstOffset").asLong()).isEqualTo(30);
        assertThat(partition.get("lastOffset").asLong()).isEqualTo(39);
        assertThat(partition.get("records").asLong()).isEqualTo(10);
        assertThat(partition.get("notes").toString()).contains("the plan saw broker 1's log end at 38, the disk holds"
                + " it at 40");
        byte[] second = Files.readAllBytes(storySecond.log);
        assertThat(salvagedSegment(salvage)).isEqualTo(Arrays.copyOfRange(second, LogDirFixture.positionOf(second, 30),
                second.length - 13));
    }

    @Test
    void an_at_least_cut_copies_from_the_leaders_log_end_and_says_the_cut_may_come_earlier() throws IOException {
        deadLeaderAfterKill9();
        Path plan = plan(election("story", story.topicId, 25, new PlanTruncation(DEAD, 15L, 25L, 40L,
                TruncationEstimate.AT_LEAST)));

        CliRun run = CliRun.inspect("--log-dir", logDir.dir.toString(), "--salvage-beyond", plan.toString());

        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.OK);
        assertThat(run.outWords()).containsPattern("story-0 +COPIED +25\\.\\.39 from the leader's planned log end 25: 20"
                        + " records, 2 batches")
                .contains("story-0: the plan's truncation of broker 1 is AT_LEAST from 25")
                .contains("the cut may come earlier than 25, and records before it are not copied");
    }

    @Test
    void partitions_not_held_of_another_topic_id_or_not_beyond_the_cut_copy_nothing() throws IOException {
        deadLeaderAfterKill9();
        Path plan = plan(election("story", story.topicId, 40),
                election("recreated", Uuid.randomUuid(), 10),
                election("behind", behind.topicId, 12),
                election("elsewhere", Uuid.randomUuid(), 3));

        CliRun run = CliRun.inspect("--log-dir", logDir.dir.toString(), "--salvage-beyond", plan.toString());

        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.OK);
        assertThat(run.out())
                .containsPattern("story-0 +NOTHING-BEYOND +log ends at 40, at or before the leader's planned log end 40")
                .containsPattern("recreated-0 +SKIPPED +topic id on disk " + recreated.topicId + " is not the plan's")
                .containsPattern("behind-0 +NOTHING-BEYOND +log ends at 8")
                .containsPattern("elsewhere-0 +SKIPPED +not on this broker's disk")
                .contains("4 partition(s): 0 copied");
        assertThat(SalvageStore.besidePlan(plan)).satisfiesAnyOf(
                d -> assertThat(d).doesNotExist(), d -> assertThat(d).isEmptyDirectory());
    }

    @Test
    void a_corrupt_batch_inside_the_range_needs_attention_and_exits_3() throws IOException {
        deadLeaderAfterKill9();
        byte[] first = Files.readAllBytes(storyFirst.log);
        first[LogDirFixture.positionOf(first, 10) + 80] ^= 0x5A;
        Files.write(storyFirst.log, first);
        Path plan = plan(election("story", story.topicId, 15));

        CliRun run = CliRun.inspect("--log-dir", logDir.dir.toString(), "--salvage-beyond", plan.toString());

        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.ATTENTION);
        assertThat(run.out()).contains("story-0").contains("NEEDS-ATTENTION").contains("fails its CRC check")
                .contains("Do NOT restart broker 1");
    }

    @Test
    void the_salvage_dir_is_never_inside_a_log_dir() throws IOException {
        deadLeaderAfterKill9();
        Path plan = plan(election("story", story.topicId, 15));

        CliRun run = CliRun.inspect("--log-dir", logDir.dir.toString(), "--salvage-beyond", plan.toString(),
                "--salvage-dir", logDir.dir.resolve("salvage").toString());

        assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(run.err()).contains("--salvage-dir").contains("is inside log dir");
        assertThat(logDir.dir.resolve("salvage")).doesNotExist();
    }

    /** The one segment file the salvage directory holds. */
    static byte[] salvagedSegment(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            List<Path> segments = files.filter(f -> f.getFileName().toString().endsWith(".log")).toList();
            assertThat(segments).hasSize(1);
            return Files.readAllBytes(segments.get(0));
        }
    }


    private static byte[] concat(byte[]... parts) {
        List<Byte> all = new ArrayList<>();
        for (byte[] part : parts) {
            for (byte b : part) {
                all.add(b);
            }
        }
        byte[] bytes = new byte[all.size()];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = all.get(i);
        }
        return bytes;
    }
}
