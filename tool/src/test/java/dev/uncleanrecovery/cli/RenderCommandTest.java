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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code render}: a plan file, and its result file, shown from the files alone, without a cluster. */
class RenderCommandTest {

    @TempDir
    Path dir;

    @Test
    void render_writes_the_page_of_a_plan_and_its_result_without_a_cluster() throws Exception {
        Plan plan = PagePlans.severalGroups();
        Path planFile = dir.resolve("plan.json");
        Path resultFile = dir.resolve("plan-result.json");
        Files.writeString(planFile, Json.mapper().writeValueAsString(plan));
        Files.writeString(resultFile, Json.mapper().writeValueAsString(PagePlans.resultOf(plan)));
        Path page = dir.resolve("plan.html");

        CliRun run = CliRun.of("render", "--plan", planFile.toString(), "--result", resultFile.toString(),
                "--html", page.toString());

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("Page written to " + page.toAbsolutePath());
        assertThat(Files.readString(page)).contains("<h1>Recovery result</h1>", "plan-result.json", "payments-0");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(page))).isEqualTo("rw-------");
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
}
