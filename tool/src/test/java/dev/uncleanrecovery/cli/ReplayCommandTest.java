// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.salvage.SalvageFixture;
import dev.uncleanrecovery.salvage.SalvageStore;
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
        assertThat(run.out().lines().dropWhile(l -> !l.startsWith("OFFSET")).skip(1).map(l -> l.split("\\s{2,}")[0]))
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
        var report = dev.uncleanrecovery.plan.Json.mapper().readTree(run.out());
        assertThat(report.get("executed").asBoolean()).isFalse();
        assertThat(report.get("partitionMap").asText()).isEqualTo("same");
        assertThat(report.get("ranges").toString()).isEqualTo("[{\"topic\":\"orders\",\"partition\":2,\"broker\":3,"
                + "\"fromOffset\":1,\"toOffset\":13,\"replayed\":6,\"control\":2,\"aborted\":2,\"noMarker\":2,"
                + "\"beforeRange\":1}]");
    }

    @Test
    void the_original_topic_is_refused_before_any_connection() {
        CliRun run = CliRun.of("replay", "--salvage-dir", dir.toString(), "--to-topic", "orders");

        assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(run.err()).startsWith("error: --to-topic orders is the topic these records were salvaged from");
    }

    @Test
    void execute_needs_a_cluster_and_a_directory_needs_manifests() {
        CliRun noCluster = CliRun.of("replay", "--salvage-dir", dir.toString(), "--to-topic", "x", "--execute");
        CliRun noSalvage = CliRun.of("replay", "--salvage-dir", dir.resolve("orders-2").resolve("none").toString(),
                "--to-topic", "x");

        assertThat(noCluster.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(noCluster.err()).contains("--bootstrap-server is required");
        assertThat(noSalvage.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(noSalvage.err()).contains("is not a directory");
    }

    @Test
    void shown_keys_and_values_are_text_when_they_are_text_and_hex_otherwise() {
        assertThat(ReplayCommand.shown(null)).isEqualTo("null");
        assertThat(ReplayCommand.shown("entry-1".getBytes())).isEqualTo("entry-1");
        assertThat(ReplayCommand.shown(new byte[] {0, 1, (byte) 0xff})).isEqualTo("0x0001ff");
        assertThat(ReplayCommand.shown("x".repeat(100).getBytes())).hasSize(40).endsWith("...");
    }
}
