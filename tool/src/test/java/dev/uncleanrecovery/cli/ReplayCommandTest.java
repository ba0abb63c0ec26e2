// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.formats.ResultFile;
import dev.uncleanrecovery.salvage.SalvageDirectory;
import dev.uncleanrecovery.salvage.SalvageFixture;
import dev.uncleanrecovery.salvage.SalvageStore;
import dev.uncleanrecovery.salvage.SalvagedFile;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What replay says about a salvage without a cluster: the dry run's counts, and the refusals it makes up front. */
class ReplayCommandTest {

    @TempDir
    Path dir;

    @BeforeEach
    void salvaged() throws Exception {
        SalvageFixture.copied().writeTo(SalvageStore.open(dir, SalvageFixture.PLAN));
    }

    @Test
    void a_dry_run_without_a_cluster_counts_every_kind_of_skipped_record() {
        CliRun run = CliRun.of("replay", "--salvage-dir", dir.toString(), "--to-topic", "orders-replayed");

        assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCode.OK);
        assertThat(run.out()).contains("Into topic 'orders-replayed' (not checked: no --bootstrap-server)");
        String row = run.out().lines().filter(l -> l.startsWith("orders-2 ")).findFirst().orElseThrow();
        assertThat(row.split("\\s{2,}")).containsExactly("orders-2", "3", "[1, 13)", "6", "2", "2", "2", "1");
        assertThat(run.out()).contains(
                "2 record(s) of transactions with no marker in the salvage were never committed: not replayed.",
                "1 record(s) lie below a range's first offset, which the new leader keeps: not replayed.");
        // the first five records replayed: offset 0 lies below the range, 5 to 10 are skipped
        assertThat(run.out().lines().dropWhile(l -> !l.startsWith("OFFSET")).skip(1).takeWhile(l -> !l.isBlank())
                .map(l -> l.split("\\s{2,}")[0]))
                .containsExactly("1", "2", "3", "4", "11");
        String last = run.out().lines().filter(l -> l.startsWith("11 ")).findFirst().orElseThrow();
        assertThat(last.split("\\s{2,}")).containsExactly("11", "2026-12-01T10:00:00.011Z", "key-11", "value-11");
        assertThat(run.out().lines()).allMatch(l -> l.length() <= 120);
    }

    @Test
    void the_dry_run_in_json_gives_the_counts_per_range() throws Exception {
        CliRun run = CliRun.of("replay", "--salvage-dir", dir.toString(), "--to-topic", "orders-replayed",
                "--output", "json");

        assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCode.OK);
        var report = dev.uncleanrecovery.formats.Json.mapper().readTree(run.out());
        assertThat(report.get("executed").asBoolean()).isFalse();
        assertThat(report.get("partitionMap").asText()).isEqualTo("same");
        assertThat(report.get("ranges").toString()).isEqualTo("[{\"topic\":\"orders\",\"partition\":2,\"broker\":3,"
                + "\"fromOffset\":1,\"toOffset\":13,\"replayed\":6,\"alreadyReplayed\":0,\"control\":2,\"aborted\":2,"
                + "\"noMarker\":2,\"beforeRange\":1}]");
    }

    @Test
    void the_original_topic_is_refused_before_any_connection() {
        CliRun run = CliRun.of("replay", "--salvage-dir", dir.toString(), "--to-topic", "orders");

        assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(run.err()).startsWith("error: --to-topic orders is the topic these records were salvaged from");
    }

    @Test
    void execute_needs_a_cluster_and_a_directory_needs_manifests() {
        CliRun noCluster = CliRun.of("replay", "--salvage-dir", dir.toString(), "--to-topic", "x", "--execute", "--reason", "test",
                "--without-result");
        CliRun noSalvage = CliRun.of("replay", "--salvage-dir", dir.resolve("orders-2").resolve("none").toString(),
                "--to-topic", "x");

        assertThat(noCluster.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(noCluster.err()).contains("--bootstrap-server is required");
        assertThat(noSalvage.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(noSalvage.err()).contains("is not a directory");
    }

    @Test
    void execute_without_the_result_file_is_refused_and_told_where_execute_wrote_it() throws Exception {
        Path ops = Files.createDirectory(dir.resolve("ops"));
        SalvagedFile salvaged = SalvageFixture.copied().writeTo(SalvageStore.open(ops.resolve("plan-salvage"),
                SalvageFixture.PLAN));
        ResultFile.write(ops.resolve("plan-result.json"), SalvageFixture.resultRecording(ResultFile.VERSION, salvaged));

        CliRun run = CliRun.of("--bootstrap-server", "127.0.0.1:1", "replay", "--salvage-dir",
                ops.resolve("plan-salvage").toString(), "--to-topic", "orders-replayed", "--execute", "--reason", "test");

        assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(run.err().strip()).isEqualTo("error: replay checks the salvage against the result file of the run"
                + " that made it: pass --result-file FILE (execute wrote " + ops.resolve("plan-result.json") + "), or"
                + " --without-result for a salvage no result file records ('inspect --salvage-beyond' writes none)");
    }

    @Test
    void a_dry_run_checked_against_the_result_file_names_it() throws Exception {
        Path result = dir.resolve("orders-2").resolve("result.json");
        Path salvage = dir;
        ResultFile.write(result, SalvageFixture.resultRecording(ResultFile.VERSION,
                SalvageDirectory.read(salvage).ranges().get(0).asSalvagedFile()));

        CliRun text = CliRun.of("replay", "--salvage-dir", salvage.toString(), "--to-topic", "orders-replayed",
                "--result-file", result.toString());
        CliRun json = CliRun.of("replay", "--salvage-dir", salvage.toString(), "--to-topic", "orders-replayed",
                "--result-file", result.toString(), "--output", "json");

        assertThat(text.exitCode()).as(text.err()).isEqualTo(ExitCode.OK);
        assertThat(text.out()).contains("Checked against " + result).doesNotContain("WARNING");
        var report = dev.uncleanrecovery.formats.Json.mapper().readTree(json.out());
        assertThat(report.get("checkedAgainst").toString()).isEqualTo("[\"" + result + "\"]");
        assertThat(report.get("warnings").toString()).isEqualTo("[]");
        assertThat(report.get("alreadyReplayed").asLong()).isZero();
    }

    @Test
    void a_salvage_changed_since_the_run_that_made_it_is_refused() throws Exception {
        SalvagedFile salvaged = SalvageDirectory.read(dir).ranges().get(0).asSalvagedFile();
        Path result = Files.createDirectory(dir.resolve("ops")).resolve("plan-result.json");
        ResultFile.write(result, SalvageFixture.resultRecording(ResultFile.VERSION, salvaged));
        // whoever changes the records and writes the manifest to match passes the manifest's own check
        Files.writeString(salvaged.manifest(), Files.readString(salvaged.manifest()).replace("\"records\" : 13",
                "\"records\" : 14"));

        CliRun run = CliRun.of("--bootstrap-server", "127.0.0.1:1", "replay", "--salvage-dir", dir.toString(),
                "--to-topic", "orders-replayed", "--result-file", result.toString(), "--execute", "--reason", "test");

        assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(run.err().strip()).isEqualTo("error: " + salvaged.manifest() + ": another SHA-256 than " + result
                + " records for orders-2 broker 3 [1, 13); the salvage changed after the run that made it: not"
                + " replaying");
    }

    @Test
    void a_disk_copy_of_a_refused_partition_is_left_and_said_and_of_an_elected_one_replayed() throws Exception {
        Path ops = Files.createDirectory(dir.resolve("ops"));
        SalvageFixture.copiedOffTheDiskOf(2).writeTo(SalvageStore.open(ops.resolve("plan-salvage"),
                SalvageFixture.PLAN));
        Path refused = ops.resolve("refused-result.json");
        ResultFile.write(refused, SalvageFixture.resultRecording(ResultFile.VERSION, "REFUSED", null));
        Path elected = ops.resolve("elected-result.json");
        ResultFile.write(elected, SalvageFixture.resultRecording(ResultFile.VERSION, "ELECTED", null));

        CliRun left = CliRun.of("replay", "--salvage-dir", ops.resolve("plan-salvage").toString(), "--to-topic",
                "orders-replayed", "--result-file", refused.toString());
        CliRun json = CliRun.of("replay", "--salvage-dir", ops.resolve("plan-salvage").toString(), "--to-topic",
                "orders-replayed", "--result-file", refused.toString(), "--output", "json");
        // --result, the name replay gave the option before every command spelled it --result-file, still reads
        CliRun replayed = CliRun.of("replay", "--salvage-dir", ops.resolve("plan-salvage").toString(), "--to-topic",
                "orders-replayed", "--result-file", refused.toString(), "--result", elected.toString());

        assertThat(left.exitCode()).as(left.err()).isEqualTo(ExitCode.OK);
        assertThat(left.out()).contains("Salvage: 1 range(s) in " + ops.resolve("plan-salvage") + ", 1 of them left"
                + " there (not cut)");
        assertThat(left.out().replaceAll("\\s+", " ")).contains("orders-2 broker 2 [1, 13): not cut: no run named"
                + " elected orders-2 (" + refused + " REFUSED); its copy stays in the directory");
        assertThat(left.out().lines()).noneMatch(l -> l.matches("orders-2 {2,}.*")).allMatch(l -> l.length() <= 120);
        var report = dev.uncleanrecovery.formats.Json.mapper().readTree(json.out());
        assertThat(report.get("ranges").toString()).isEqualTo("[]");
        assertThat(report.get("diskCopies").get(0).get("replayed").asBoolean()).isFalse();
        // a second run of the plan that elected orders-2: broker 2 cuts those records when it rejoins
        assertThat(replayed.exitCode()).as(replayed.err()).isEqualTo(ExitCode.OK);
        String row = replayed.out().lines().filter(l -> l.matches("orders-2 {2,}.*")).findFirst().orElseThrow();
        assertThat(row.split("\\s{2,}")).startsWith("orders-2", "2", "[1, 13)", "6");
        assertThat(replayed.out().replaceAll("\\s+", " ")).contains(elected + " records orders-2 ELECTED (leader 1)");
    }

    @Test
    void shown_keys_and_values_are_text_when_they_are_text_and_hex_otherwise() {
        assertThat(ReplayCommand.shown(null)).isEqualTo("null");
        assertThat(ReplayCommand.shown("entry-1".getBytes())).isEqualTo("entry-1");
        assertThat(ReplayCommand.shown(new byte[] {0, 1, (byte) 0xff})).isEqualTo("0x0001ff");
        assertThat(ReplayCommand.shown("x".repeat(100).getBytes())).hasSize(40).endsWith("...");
    }
}
