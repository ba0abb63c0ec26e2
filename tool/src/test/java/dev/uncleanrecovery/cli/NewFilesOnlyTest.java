// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * No command writes over a file: every file it writes is new, none is a file the same run reads, and an output path
 * that cannot be a new file (it exists, is a directory or a symbolic link, or its directory is missing) is refused
 * before anything is written or asked of the cluster, in one line naming the option and the path, exit 2. What was
 * there is left byte for byte as it was.
 *
 * <p>The commands that connect are given a bootstrap server nothing listens on: the refusal comes before any
 * connection, so the line is the file's and not the unreachable cluster's.
 */
class NewFilesOnlyTest {

    private static final String NOWHERE = "127.0.0.1:9";

    @TempDir
    Path dir;

    private Path plan;
    private byte[] planBytes;

    @BeforeEach
    void aPlanUnderReview() throws Exception {
        plan = Files.copy(Path.of("examples", "plan.json"), dir.resolve("plan.json"));
        planBytes = Files.readAllBytes(plan);
    }

    @Test
    void render_over_its_own_plan_is_refused_and_the_plan_is_left_as_it_was() throws Exception {
        CliRun run = CliRun.of("render", "--plan", plan.toString(), "--html", plan.toString());

        assertRefused(run, "--html " + plan + " is the file this run reads as --plan; the tool never writes over a"
                + " file: name a new file");
        assertThat(Files.readAllBytes(plan)).isEqualTo(planBytes);
    }

    @Test
    void render_over_the_plans_approval_is_refused_and_the_approval_is_left_as_it_was() throws Exception {
        CliRun approved = CliRun.of("plan", "approve", "--plan", plan.toString(), "--by", "alice@example.com");
        assertThat(approved.exitCode()).as(approved.err()).isZero();
        Path approval = dir.resolve("plan-approval.json");
        byte[] approvalBytes = Files.readAllBytes(approval);

        CliRun render = CliRun.of("render", "--plan", plan.toString(), "--html", approval.toString());
        CliRun execute = CliRun.of("--bootstrap-server", NOWHERE, "execute", "--plan", plan.toString(), "--dry-run",
                "--require-approval", "--html", approval.toString());

        for (CliRun run : List.of(render, execute)) {
            assertRefused(run, "--html " + approval + " already exists; the tool never writes over a file: name a new"
                    + " file, or move the old one away");
        }
        assertThat(Files.readAllBytes(approval)).isEqualTo(approvalBytes);
        assertThat(Files.readAllBytes(plan)).isEqualTo(planBytes);
    }

    @Test
    void plan_and_recover_with_the_page_and_the_plan_in_one_file_are_refused_before_they_ask_the_cluster() {
        Path both = dir.resolve("orders.json");

        for (String command : List.of("plan", "recover")) {
            CliRun run = CliRun.of("--bootstrap-server", NOWHERE, command, "--output-file", both.toString(),
                    "--html", both.toString());

            assertRefused(run, "--html " + both + " is also where --output-file " + both + " goes: name a different"
                    + " file for each");
            assertThat(both).as(command).doesNotExist();
        }
    }

    @Test
    void execute_over_its_own_plan_is_refused_before_it_asks_the_cluster() throws Exception {
        for (String option : List.of("--html", "--result-file", "--audit-log")) {
            CliRun run = CliRun.of("--bootstrap-server", NOWHERE, "execute", "--plan", plan.toString(), "--reason",
                    "INC-1", option, plan.toString());

            assertRefused(run, option + " " + plan + " is the file this run reads as --plan; the tool never writes"
                    + " over a file: name " + (option.equals("--html") ? "a new" : "another") + " file");
            assertThat(Files.readAllBytes(plan)).as(option).isEqualTo(planBytes);
        }
        CliRun salvage = CliRun.of("--bootstrap-server", NOWHERE, "execute", "--plan", plan.toString(), "--reason",
                "INC-1", "--salvage-dir", plan.toString());
        assertRefused(salvage, "--salvage-dir " + plan + " is the file this run reads as --plan; the tool never"
                + " writes over a file: name another directory");
        assertThat(Files.readAllBytes(plan)).isEqualTo(planBytes);
    }

    @Test
    void the_page_and_the_result_in_one_file_are_refused_before_it_asks_the_cluster() {
        Path both = dir.resolve("after.json");

        CliRun run = CliRun.of("--bootstrap-server", NOWHERE, "execute", "--plan", plan.toString(), "--reason",
                "INC-1", "--html", both.toString(), "--result-file", both.toString());

        assertRefused(run, "--result-file " + both + " is also where --html " + both + " goes: name a different"
                + " file for each");
        assertThat(both).doesNotExist();
    }

    /** Each command that writes a file, with that file already there. */
    static Stream<Arguments> writers() {
        return Stream.of(
                Arguments.of("plan --output-file", List.of("--bootstrap-server", NOWHERE, "plan", "--output-file")),
                Arguments.of("plan --html", List.of("--bootstrap-server", NOWHERE, "plan", "--html")),
                Arguments.of("recover --output-file", List.of("--bootstrap-server", NOWHERE, "recover",
                        "--output-file")),
                Arguments.of("recover --html", List.of("--bootstrap-server", NOWHERE, "recover", "--html")),
                Arguments.of("execute --html", List.of("--bootstrap-server", NOWHERE, "execute", "--plan", "PLAN",
                        "--reason", "INC-1", "--html")),
                Arguments.of("execute --dry-run --html", List.of("--bootstrap-server", NOWHERE, "execute", "--plan",
                        "PLAN", "--dry-run", "--html")),
                Arguments.of("render --html", List.of("render", "--plan", "PLAN", "--html")),
                Arguments.of("inspect --output-file", List.of("inspect", "--log-dir", "LOG_DIR", "--output-file")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("writers")
    void an_existing_file_is_never_written_over(String command, List<String> args) throws Exception {
        Path existing = Files.writeString(dir.resolve("earlier.out"), "an earlier run's file\n");
        byte[] before = Files.readAllBytes(existing);

        CliRun run = CliRun.of(args(args, existing));

        String option = args.get(args.size() - 1);
        assertRefused(run, option + " " + existing + " already exists; the tool never writes over a file: name a new"
                + " file, or move the old one away");
        assertThat(Files.readAllBytes(existing)).isEqualTo(before);
        assertThat(Files.readAllBytes(plan)).isEqualTo(planBytes);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("writers")
    void an_output_in_a_missing_directory_is_refused_naming_the_directory(String command, List<String> args)
            throws Exception {
        Path missing = dir.resolve("no-such-dir").resolve("out.json");

        CliRun run = CliRun.of(args(args, missing));

        String option = args.get(args.size() - 1);
        assertRefused(run, option + " " + missing + " cannot be created: directory " + missing.getParent() + " does"
                + " not exist; create it, or name a file in an existing directory");
        assertThat(missing.getParent()).doesNotExist();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("writers")
    void a_directory_given_as_an_output_file_is_refused_in_one_line(String command, List<String> args)
            throws Exception {
        Path directory = Files.createDirectory(dir.resolve("out"));

        CliRun run = CliRun.of(args(args, directory));

        String option = args.get(args.size() - 1);
        assertRefused(run, option + " " + directory + " is a directory: name a new file, not a directory");
        try (Stream<Path> inside = Files.list(directory)) {
            assertThat(inside).isEmpty();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("writers")
    void a_symbolic_link_given_as_an_output_is_never_written_through(String command, List<String> args)
            throws Exception {
        Path elsewhere = Files.writeString(dir.resolve("someone-elses.conf"), "key=value\n");
        byte[] before = Files.readAllBytes(elsewhere);
        Path link = Files.createSymbolicLink(dir.resolve("out.html"), elsewhere);
        Path dangling = Files.createSymbolicLink(dir.resolve("dangling.html"), dir.resolve("not-yet"));

        CliRun toFile = CliRun.of(args(args, link));
        CliRun toNothing = CliRun.of(args(args, dangling));

        String option = args.get(args.size() - 1);
        assertRefused(toFile, option + " " + link + " is a symbolic link to " + elsewhere + "; the tool never writes"
                + " through a symbolic link: name a new file");
        assertRefused(toNothing, option + " " + dangling + " is a symbolic link to " + dir.resolve("not-yet")
                + "; the tool never writes through a symbolic link: name a new file");
        assertThat(Files.readAllBytes(elsewhere)).isEqualTo(before);
        assertThat(Files.readSymbolicLink(link)).isEqualTo(elsewhere);
        assertThat(Files.isSymbolicLink(dangling)).isTrue();
        assertThat(dir.resolve("not-yet")).doesNotExist();
    }

    @Test
    void a_result_file_in_a_missing_directory_is_refused_before_it_asks_the_cluster() {
        Path missing = dir.resolve("no-such-dir").resolve("result.json");

        CliRun run = CliRun.of("--bootstrap-server", NOWHERE, "execute", "--plan", plan.toString(), "--reason",
                "INC-1", "--result-file", missing.toString());

        assertRefused(run, "--result-file " + missing + " cannot be created: directory " + missing.getParent()
                + " does not exist; create it, or name a file in an existing directory");
    }

    @Test
    void a_kafka_tools_directory_holding_the_steps_of_an_earlier_plan_is_refused_before_it_asks_the_cluster()
            throws Exception {
        Path steps = Files.createDirectory(dir.resolve("steps"));
        Path earlier = Files.writeString(steps.resolve("STEPS.txt"), "# the steps of an earlier plan\n");
        byte[] before = Files.readAllBytes(earlier);
        Path file = Files.writeString(dir.resolve("steps.txt"), "not a directory\n");

        CliRun taken = CliRun.of("--bootstrap-server", NOWHERE, "plan", "--kafka-tools", steps.toString());
        CliRun notADirectory = CliRun.of("--bootstrap-server", NOWHERE, "plan", "--kafka-tools", file.toString());

        assertRefused(taken, "--kafka-tools " + steps + " holds STEPS.txt already; the tool never writes over a file:"
                + " name a new or empty directory");
        assertThat(Files.readAllBytes(earlier)).isEqualTo(before);
        assertRefused(notADirectory, "--kafka-tools " + file + " is a regular file, not a directory: name a"
                + " directory");
        assertThat(Files.readString(file)).isEqualTo("not a directory\n");
    }

    @Test
    void a_request_log_whose_directory_is_a_file_is_refused_naming_that_file() throws Exception {
        Path file = Files.writeString(dir.resolve("logs"), "not a directory\n");
        Path requestLog = file.resolve("requests.log");

        CliRun run = CliRun.withRequestLog(requestLog, "--version");

        assertRefused(run, "-Dkafka.unclean.recovery.request.log=" + requestLog + ": cannot be created: " + file
                + " is not a directory; name a file in a directory");
        assertThat(Files.readString(file)).isEqualTo("not a directory\n");
    }

    private String[] args(List<String> template, Path output) throws java.io.IOException {
        List<String> args = new ArrayList<>();
        for (String arg : template) {
            args.add(switch (arg) {
                case "PLAN" -> plan.toString();
                case "LOG_DIR" -> Files.createDirectories(dir.resolve("log-dir")).toString();
                default -> arg;
            });
        }
        args.add(output.toString());
        return args.toArray(String[]::new);
    }

    /** Exit 2 and one line on stderr, naming what to do, with no exception's class name in it; nothing on stdout. */
    private static void assertRefused(CliRun run, String line) {
        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.USAGE);
        assertThat(run.err().strip()).isEqualTo("error: " + line);
        assertThat(run.err()).doesNotContain("Exception");
        assertThat(run.out()).isEmpty();
    }
}
