// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.formats.Json;
import dev.uncleanrecovery.formats.Plan;
import dev.uncleanrecovery.view.PagePlans;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code render}: a plan file, and its result file, shown from the files alone, without a cluster. */
class RenderCommandTest {

    @TempDir
    Path dir;

    private static void writePlanOfSeveralGroupsAndItsResult(Path planFile, Path resultFile) throws Exception {
        Plan plan = PagePlans.severalGroups();
        Files.writeString(planFile, Json.mapper().writeValueAsString(plan));
        Files.writeString(resultFile, Json.mapper().writeValueAsString(PagePlans.resultOf(plan)));
    }

    @Test
    void render_writes_the_page_of_a_plan_and_its_result_without_a_cluster() throws Exception {
        Path planFile = dir.resolve("plan.json");
        Path resultFile = dir.resolve("plan-result.json");
        writePlanOfSeveralGroupsAndItsResult(planFile, resultFile);
        Path page = dir.resolve("plan.html");

        CliRun run = CliRun.of("render", "--plan", planFile.toString(), "--result-file", resultFile.toString(),
                "--html", page.toString());

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("Page written to " + page.toAbsolutePath());
        assertThat(Files.readString(page)).contains("<h1>Recovery result</h1>", "plan-result.json", "payments-0");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(page))).isEqualTo("rw-------");
        // --result, the name render gave the option before every command spelled it --result-file, still reads
        Path again = dir.resolve("again.html");
        CliRun asBefore = CliRun.of("render", "--plan", planFile.toString(), "--result", resultFile.toString(),
                "--html", again.toString());
        assertThat(asBefore.exitCode()).as(asBefore.err()).isZero();
        assertThat(Files.readString(again)).isEqualTo(Files.readString(page));
    }

    @Test
    void render_with_json_output_says_what_it_wrote_in_json() throws Exception {
        Path page = dir.resolve("example.html");

        CliRun run = CliRun.of("render", "--plan", "examples/plan.json", "--html", page.toString(), "--output", "json");

        assertThat(run.exitCode()).as(run.err()).isZero();
        var written = Json.mapper().readTree(run.out());
        assertThat(written.get("page").asText()).isEqualTo(page.toAbsolutePath().toString());
        assertThat(written.get("bytes").asLong()).isEqualTo(Files.size(page));
        assertThat(written.get("partitions").asInt()).isEqualTo(1);
    }

    @Test
    void render_refuses_a_file_that_is_not_a_plan_in_one_line() throws Exception {
        Path notAPlan = Files.writeString(dir.resolve("plan.json"), "{\"version\": 4}");

        CliRun run = CliRun.of("render", "--plan", notAPlan.toString(), "--html", dir.resolve("p.html").toString());

        assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(run.err().lines().count()).isEqualTo(1);
        assertThat(dir.resolve("p.html")).doesNotExist();
    }

    @Test
    void render_text_prints_the_tables_of_a_plan_and_its_result_from_the_files_alone() throws Exception {
        Path planFile = dir.resolve("plan.json");
        Path resultFile = dir.resolve("plan-result.json");
        writePlanOfSeveralGroupsAndItsResult(planFile, resultFile);

        CliRun run = CliRun.of("render", "--plan", planFile.toString(), "--result-file", resultFile.toString(),
                "--text");

        assertThat(run.exitCode()).as(run.err()).isZero();
        List<String> lines = run.out().lines().toList();
        assertThat(lines).allSatisfy(line -> assertThat(line.length()).isLessThanOrEqualTo(120));
        // the plan's table, as plan printed it, then what execute did, as execute printed it
        assertThat(lines).anySatisfy(l -> assertThat(l).startsWith("orders-0..3 (4 partitions)")
                .contains("2 (epoch 3, LEO 4000, HW 1500)", "1 (UNREACHABLE);", "1: unknown;"));
        assertThat(lines).anySatisfy(l -> assertThat(l).contains("6: 1000 [2600..3600),"));
        assertThat(run.out()).contains("700 committed,", "Skipped: 1", "UNANSWERED broker 1",
                "Next: run 'kafka-unclean-recovery.sh inspect --log-dir <its log.dirs> --salvage-beyond",
                "What execute did: plan-result.json", "5 elected, 0 already recovered, 1 refused",
                "WARNING: Unclean elections happened");
        assertThat(lines).anySatisfy(l -> assertThat(l).matches("payments-0 +2 +REFUSED +leader epoch is 7.*"));
    }

    @Test
    void render_text_of_a_plan_alone_ends_with_the_commands_that_apply_it() {
        CliRun run = CliRun.of("render", "--plan", "examples/plan.json", "--text");

        assertThat(run.exitCode()).as(run.err()).isZero();
        // a command too long for a line goes on with a backslash, as a shell takes it when pasted
        assertThat(run.out().replaceAll(" \\\\\n +", " ")).contains("Partitions to elect: 1", "orders-0",
                "kafka-unclean-recovery.sh plan approve --plan examples/plan.json --by NAME --ssh-key KEY")
                .containsPattern("kafka-unclean-recovery.sh --bootstrap-server \\S+ execute --plan examples/plan.json");
    }

    @Test
    void render_asks_for_text_or_a_page_and_not_both() {
        CliRun neither = CliRun.of("render", "--plan", "examples/plan.json");
        CliRun both = CliRun.of("render", "--plan", "examples/plan.json", "--text", "--html", dir.resolve("p.html")
                .toString());

        for (CliRun run : List.of(neither, both)) {
            assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
            assertThat(run.err().strip()).isEqualTo("error: render shows the files either as tables (--text) or as a"
                    + " page (--html FILE): give one of them");
        }
        assertThat(dir.resolve("p.html")).doesNotExist();
    }
}
