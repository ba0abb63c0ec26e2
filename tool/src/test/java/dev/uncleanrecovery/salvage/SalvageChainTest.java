// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.salvage;

import static dev.uncleanrecovery.salvage.SalvageFixture.PLAN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.uncleanrecovery.UserInputException;
import dev.uncleanrecovery.formats.ResultFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A salvage checked against the result file of the run that made it, result → manifest → segments: what execute
 * salvaged passes; a manifest edited since, a range no run recorded and a recorded range gone are refused; a result
 * file from before version 5, which records no SHA-256 of the manifests, is checked as far as it goes, with a warning.
 * A copy {@code inspect --salvage-beyond} made that no result records is replayed when a run elected its partition,
 * left when the runs named it but did not elect it, and refused when none named it.
 */
class SalvageChainTest {

    @TempDir
    Path dir;

    private SalvagedFile salvaged;
    private Path resultFile;

    @BeforeEach
    void salvagedByARun() throws Exception {
        salvaged = SalvageFixture.copied().writeTo(SalvageStore.open(dir.resolve("plan-salvage"), PLAN));
        resultFile = dir.resolve("plan-result.json");
        ResultFile.write(resultFile, SalvageFixture.resultRecording(ResultFile.VERSION, salvaged));
    }

    @Test
    void the_salvage_a_run_recorded_passes() throws Exception {
        SalvageChain.Checked checked = check();

        assertThat(checked.resultFiles()).containsExactly(resultFile);
        assertThat(checked.warnings()).isEmpty();
    }

    @Test
    void a_manifest_changed_since_the_run_is_refused_though_its_segments_match_it() throws Exception {
        // manifest and segments changed together pass the manifest's own check; only the result file tells
        String manifest = Files.readString(salvaged.manifest());
        Files.writeString(salvaged.manifest(), manifest.replace("\"/ops/plan.json\"", "\"/ops/other-plan.json\""));

        assertThatThrownBy(this::check).isInstanceOf(UserInputException.class)
                .hasMessage(salvaged.manifest() + ": another SHA-256 than " + resultFile + " records for orders-2"
                        + " broker 3 [1, 13); the salvage changed after the run that made it: not replaying");
    }

    @Test
    void a_range_the_result_file_does_not_record_is_refused() throws Exception {
        // orders-2 was elected, but this range was fetched from a live replica: only a run's result vouches for it
        ResultFile.write(dir.resolve("empty-result.json"), SalvageFixture.resultRecording(ResultFile.VERSION, null));

        assertThatThrownBy(() -> SalvageChain.check(SalvageDirectory.read(dir.resolve("plan-salvage")),
                Map.of(dir.resolve("empty-result.json"), ResultFile.read(dir.resolve("empty-result.json")))))
                .isInstanceOf(UserInputException.class)
                .hasMessageStartingWith(salvaged.manifest() + ": orders-2 broker 3 [1, 13) is not in the salvage "
                        + dir.resolve("empty-result.json") + " records");
    }

    @Test
    void a_disk_copy_of_a_partition_the_run_elected_is_replayed_on_its_manifest_alone() throws Exception {
        // broker 2 was down when the run elected 1 (its loss unknown); inspect copied its tail off its disk after
        SalvagedFile copy = SalvageFixture.copiedOffTheDiskOf(2).writeTo(SalvageStore.open(dir.resolve("plan-salvage"),
                PLAN));

        SalvageChain.Checked checked = check();

        assertThat(checked.diskCopies()).singleElement().satisfies(c -> {
            assertThat(c.range().manifestFile()).isEqualTo(copy.manifest());
            assertThat(c.replayed()).isTrue();
            assertThat(c.why()).isEqualTo("copied off broker 2's disk by 'inspect --salvage-beyond'; " + resultFile
                    + " records orders-2 ELECTED (leader 1), so broker 2 cuts these records when it rejoins: replayed,"
                    + " checked against its own manifest only");
        });
        assertThat(checked.left()).isEmpty();
        // the range the run recorded is still held to the result file
        Files.writeString(salvaged.manifest(), Files.readString(salvaged.manifest()).replace("\"records\" : 13",
                "\"records\" : 14"));
        assertThatThrownBy(this::check).isInstanceOf(UserInputException.class)
                .hasMessageStartingWith(salvaged.manifest() + ": another SHA-256 than " + resultFile);
    }

    @Test
    void a_disk_copy_of_a_partition_the_run_refused_is_left_in_the_directory() throws Exception {
        Path refusedSalvage = dir.resolve("refused-salvage");
        SalvagedFile copy = SalvageFixture.copiedOffTheDiskOf(2).writeTo(SalvageStore.open(refusedSalvage, PLAN));
        Path refused = dir.resolve("refused-result.json");
        ResultFile.write(refused, SalvageFixture.resultRecording(ResultFile.VERSION, "REFUSED", null));

        SalvageChain.Checked checked = SalvageChain.check(SalvageDirectory.read(refusedSalvage),
                Map.of(refused, ResultFile.read(refused)));

        assertThat(checked.diskCopies()).singleElement().satisfies(c -> {
            assertThat(c.replayed()).isFalse();
            assertThat(c.why()).isEqualTo("not cut: no run named elected orders-2 (" + refused + " REFUSED); its copy"
                    + " stays in the directory");
        });
        assertThat(checked.left()).singleElement().satisfies(r -> assertThat(r.manifestFile())
                .isEqualTo(copy.manifest()));
        assertThat(SalvageDirectory.read(refusedSalvage).without(checked.left()).ranges()).isEmpty();
    }

    @Test
    void a_disk_copy_of_a_partition_refused_because_another_replica_leads_it_is_replayed() throws Exception {
        // Kafka's own unclean election made 4 leader after the plan: the run refused, broker 2 still follows 4
        Path ledSalvage = dir.resolve("led-salvage");
        SalvageFixture.copiedOffTheDiskOf(2).writeTo(SalvageStore.open(ledSalvage, PLAN));
        ResultFile one = SalvageFixture.resultRecording(ResultFile.VERSION, "REFUSED", null);
        ResultFile.State ledBy4 = new ResultFile.State(4, 9, List.of(2, 4, 1), List.of(4), List.of(), List.of());
        Path refused = dir.resolve("led-result.json");
        ResultFile.write(refused, new ResultFile(one.version(), one.clusterId(), one.planFile(), one.tool(),
                one.startedAt(), one.elapsedMs(), one.elector(), one.summary(), List.of(new ResultFile.Partition(
                "orders", 2, 1, "REFUSED", "has a leader again (4, leader epoch 9); not touched", ledBy4, null, null,
                null, null)), List.of(), null, null, null, one.leadersShownMs()));

        SalvageChain.Checked checked = SalvageChain.check(SalvageDirectory.read(ledSalvage),
                Map.of(refused, ResultFile.read(refused)));

        assertThat(checked.diskCopies()).singleElement().satisfies(c -> {
            assertThat(c.replayed()).isTrue();
            assertThat(c.why()).contains(refused + " records orders-2 REFUSED (leader 4), so broker 2 cuts these");
        });
    }

    @Test
    void a_disk_copy_of_a_partition_no_result_names_is_refused() throws Exception {
        Path otherSalvage = dir.resolve("other-salvage");
        SalvagedFile copy = SalvageFixture.copiedOffTheDiskOf(2).writeTo(SalvageStore.open(otherSalvage, PLAN));
        ResultFile elected = SalvageFixture.resultRecording(ResultFile.VERSION, null);
        ResultFile.Partition orders2 = elected.partitions().get(0);
        Path other = dir.resolve("other-result.json");
        // a run of another partition, orders-5, elected
        ResultFile.write(other, new ResultFile(elected.version(), elected.clusterId(), elected.planFile(),
                elected.tool(), elected.startedAt(), elected.elapsedMs(), elected.elector(), elected.summary(),
                List.of(new ResultFile.Partition(orders2.topic(), 5, 1, "ELECTED", "leader 1", null, null, null, null,
                        null)), List.of(), null, null, null, elected.leadersShownMs()));

        assertThatThrownBy(() -> SalvageChain.check(SalvageDirectory.read(otherSalvage),
                Map.of(other, ResultFile.read(other))))
                .isInstanceOf(UserInputException.class)
                .hasMessageStartingWith(copy.manifest() + ": orders-2 broker 2 [1, 13) is not in the salvage " + other
                        + " records");
    }

    @Test
    void a_recorded_range_missing_from_the_directory_is_refused() throws Exception {
        // the run salvaged broker 4's range too; the directory lost it since
        ResultFile.Salvaged broker4 = new ResultFile.Salvaged(4, 1, 13, 13, 7, 100, List.of("DISK"),
                "plan-salvage/orders-2/broker-4/00000000000000000000.log", "plan-salvage/orders-2/broker-4/manifest.json",
                "0".repeat(64));
        ResultFile one = SalvageFixture.resultRecording(ResultFile.VERSION, salvaged);
        ResultFile.Partition partition = one.partitions().get(0);
        ResultFile both = new ResultFile(one.version(), one.clusterId(), one.planFile(), one.tool(), one.startedAt(),
                one.elapsedMs(), one.elector(), one.summary(), List.of(new ResultFile.Partition(partition.topic(),
                partition.partition(), partition.designatedLeader(), partition.outcome(), partition.detail(), null, null,
                null, List.of(partition.salvaged().get(0), broker4), null)), List.of(), null, one.salvageDir(), null,
                one.leadersShownMs());

        assertThatThrownBy(() -> SalvageChain.check(SalvageDirectory.read(dir.resolve("plan-salvage")),
                Map.of(resultFile, both)))
                .isInstanceOf(UserInputException.class)
                .hasMessage(resultFile + " records the salvage of orders-2 broker 4 [1, 13)"
                        + " (plan-salvage/orders-2/broker-4/manifest.json), which --salvage-dir "
                        + dir.resolve("plan-salvage") + " does not hold: name the directory that run salvaged into"
                        + " (" + dir.resolve("plan-salvage") + ")");
    }

    @Test
    void a_result_file_before_version_5_is_checked_by_offsets_and_counts_with_a_warning() throws Exception {
        Path older = dir.resolve("older-result.json");
        ResultFile.write(older, SalvageFixture.resultRecording(4, salvaged));

        SalvageChain.Checked checked = SalvageChain.check(SalvageDirectory.read(dir.resolve("plan-salvage")),
                Map.of(older, ResultFile.read(older)));

        assertThat(ResultFile.read(older).version()).isEqualTo(4);
        assertThat(checked.warnings()).singleElement().asString().isEqualTo(older + " is a version 4 result file, which"
                + " records no SHA-256 of the salvage manifests: each range was checked against the offsets, counts"
                + " and size it records, and each segment file against its manifest's SHA-256");
        Files.writeString(older, Files.readString(older).replace("\"records\" : 13", "\"records\" : 12"));
        assertThatThrownBy(() -> SalvageChain.check(SalvageDirectory.read(dir.resolve("plan-salvage")),
                Map.of(older, ResultFile.read(older))))
                .isInstanceOf(UserInputException.class)
                .hasMessageStartingWith(salvaged.manifest() + ": other counts (13 records, 7 batches, ");
    }

    private SalvageChain.Checked check() throws Exception {
        return SalvageChain.check(SalvageDirectory.read(dir.resolve("plan-salvage")),
                Map.of(resultFile, ResultFile.read(resultFile)));
    }
}
