// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * examples/ holds one of each file an incident leaves, made by a real run ({@link ExampleFilesClusterTest}): each
 * follows its schema and they agree with each other; the commands that read them work on them without a cluster;
 * and the docs say which command reads which.
 */
class ExampleFilesTest {

    private static final Path EXAMPLES = Path.of("examples");

    @TempDir
    Path dir;

    @Test
    void the_examples_follow_their_schemas_and_are_the_files_of_one_incident() throws Exception {
        ExampleFiles.assertConsistent(EXAMPLES);
    }

    @Test
    void the_plan_and_its_result_are_shown_from_the_files_alone() {
        CliRun run = CliRun.of("render", "--plan", "examples/plan.json", "--result-file", "examples/plan-result.json",
                "--text");

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("orders-0", "What execute did: plan-result.json", "1 elected");
        assertThat(run.out().lines()).allSatisfy(l -> assertThat(l.length()).isLessThanOrEqualTo(120));
    }

    @Test
    void the_approval_is_checked_against_the_plan_and_the_allowed_signers_without_a_cluster() throws Exception {
        // approve writes beside the plan: a copy, so that examples/ stays as it is
        Path plan = Files.copy(EXAMPLES.resolve(ExampleFiles.PLAN), dir.resolve(ExampleFiles.PLAN));

        CliRun run = CliRun.of("plan", "approve", "--plan", plan.toString(), "--by", "reviewer@example.com");

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(dir.resolve(ExampleFiles.APPROVAL)).isRegularFile();
    }

    @Test
    void the_docs_say_which_command_reads_each_example() throws Exception {
        String docs = Files.readString(Path.of("README.md")) + Files.readString(Path.of("docs", "reference.md"));
        List<String> examples;
        try (Stream<Path> files = Files.walk(EXAMPLES)) {
            examples = files.filter(Files::isRegularFile).filter(f -> !f.getFileName().toString().endsWith(".log"))
                    .map(f -> EXAMPLES.relativize(f).toString()).toList();
        }
        assertThat(examples).containsAll(ExampleFiles.FILES);
        for (String example : examples) {
            assertThat(docs).as("README.md or docs/reference.md names examples/" + example)
                    .contains("examples/" + example);
        }
    }
}
