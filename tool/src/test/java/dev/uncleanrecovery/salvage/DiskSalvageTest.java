// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.salvage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.election.Strategy;
import dev.uncleanrecovery.election.TruncationEstimate;
import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.logdir.LogDirFixture;
import dev.uncleanrecovery.logdir.LogDirInspector;
import dev.uncleanrecovery.logdir.LogDirReport;
import dev.uncleanrecovery.logdir.PartitionFilter;
import dev.uncleanrecovery.formats.ExpectedState;
import dev.uncleanrecovery.formats.Plan;
import dev.uncleanrecovery.formats.PlanEvidence;
import dev.uncleanrecovery.formats.PlanTruncation;
import dev.uncleanrecovery.formats.PlannedElection;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link DiskSalvage} when the log dir changes under the copy: broker 1 is restarted while {@code inspect
 * --salvage-beyond} copies story-0, and its log recovery truncates the segment being read.
 */
class DiskSalvageTest {

    private static final int DEAD = 1;
    private static final int DESIGNATED = 2;
    private static final TopicPartition STORY = new TopicPartition("story", 0);

    @TempDir
    Path tmp;

    @Test
    void a_segment_truncated_while_it_is_copied_needs_attention_and_leaves_nothing_in_the_salvage_directory() {
        LogDirFixture logDir = LogDirFixture.formatted(tmp.resolve("data"), DEAD);
        LogDirFixture.Partition story = logDir.partition("story", 0).leaderEpochs("0 0");
        story.segment(0).batch(0, 0, 10).batch(0, 10, 10);
        LogDirFixture.Segment active = story.segment(20).batch(0, 20, 10).batch(0, 30, 10);
        LogDirReport report = new LogDirInspector().inspect(List.of(logDir.dir), PartitionFilter.exactly(List.of(STORY)));
        Plan plan = new Plan(Plan.VERSION, Instant.parse("2026-12-02T14:00:00Z"), LogDirFixture.CLUSTER_ID, "test",
                Strategy.PROACTIVE, List.of(), List.of(new PlannedElection("story", 0, DESIGNATED,
                new ExpectedState(5, List.of(DEAD, DESIGNATED)), List.of(new PlanEvidence(DESIGNATED,
                EvidenceSource.STOCK, EvidenceStatus.OK, 10L, 0, 5, null, null, Instant.EPOCH, 10L)), "longest log",
                List.of(new PlanTruncation(DEAD, 30L, 10L, 40L, TruncationEstimate.EXACT)), List.of(), List.of(),
                false, story.topicId.toString())), List.of());
        Path salvage = tmp.resolve("plan-salvage");
        SalvageStore store = SalvageStore.open(salvage, SalvageFixture.PLAN);
        // the first segment's batches are written by then; the broker's recovery cuts the active segment the moment
        // the copy has checked its last batch, before it reads the batches to write them
        List<Path> writtenAtTheRestart = new ArrayList<>();
        DiskSalvage.Progress restartAtTheLastBatch = (partition, bytes, records) -> {
            if (records == 30) {
                writtenAtTheRestart.addAll(filesUnder(salvage));
                truncate(active.log, 100);
            }
        };

        List<DiskSalvage.Outcome> outcomes = new DiskSalvage(plan, report, store, restartAtTheLastBatch).run();

        assertThat(outcomes).singleElement().satisfies(o -> {
            assertThat(o.status()).isEqualTo(DiskSalvage.Status.NEEDS_ATTENTION);
            assertThat(o.detail()).startsWith("cannot read the segments: file ended at position");
            assertThat(o.file()).isNull();
        });
        assertThat(writtenAtTheRestart).as("the first segment's batches were being written").isNotEmpty();
        assertThat(filesUnder(salvage)).as("no segment, manifest or temporary file").isEmpty();
    }

    private static void truncate(Path file, long size) {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.truncate(size);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<Path> filesUnder(Path dir) {
        if (!Files.exists(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
