// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.salvage;

import static dev.uncleanrecovery.salvage.SalvageFixture.PLAN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.uncleanrecovery.UserInputException;
import dev.uncleanrecovery.plan.ResultFile;
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
        ResultFile.write(dir.resolve("empty-result.json"), SalvageFixture.resultRecording(ResultFile.VERSION, null));

        assertThatThrownBy(() -> SalvageChain.check(SalvageDirectory.read(dir.resolve("plan-salvage")),
                Map.of(dir.resolve("empty-result.json"), ResultFile.read(dir.resolve("empty-result.json")))))
                .isInstanceOf(UserInputException.class)
                .hasMessageStartingWith(salvaged.manifest() + ": orders-2 broker 3 [1, 13) is not in the salvage "
                        + dir.resolve("empty-result.json") + " records");
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
