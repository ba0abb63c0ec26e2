// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code --probe-mode} is checked before any connection, on every command that probes. */
class NativeProbeModeOptionTest {

    @Test
    void an_unknown_probe_mode_is_bad_usage_that_names_the_choices() {
        for (String command : new String[] {"plan", "recover", "execute --plan p.json"}) {
            List<String> args = new ArrayList<>(List.of("--bootstrap-server", "127.0.0.1:1"));
            args.addAll(List.of(command.split(" ")));
            CliRun run = CliRun.of(Stream.concat(args.stream(), Stream.of("--probe-mode", "fast")).toArray(String[]::new));

            assertThat(run.exitCode()).as(command + ": " + run.err()).isEqualTo(ExitCode.USAGE);
            assertThat(run.err()).as(command).contains("--probe-mode", "'fast'")
                    .containsIgnoringCase("[auto, native, stock]");
        }
    }

    @Test
    void probe_mode_and_strategy_are_taken_in_any_case() {
        CliRun run = CliRun.of("--bootstrap-server", "127.0.0.1:1", "plan", "--probe-mode", "NATIVE", "--strategy",
                "Proactive");

        // the options were taken: the run got as far as the (refused) connection
        assertThat(run.err()).contains("could not describe the cluster").doesNotContain("Invalid value");
    }

    @Test
    void an_unknown_strategy_is_bad_usage_that_names_the_choices() {
        for (String command : new String[] {"plan", "recover"}) {
            CliRun run = CliRun.of("--bootstrap-server", "127.0.0.1:1", command, "--strategy", "aggressive");

            assertThat(run.exitCode()).as(command + ": " + run.err()).isEqualTo(ExitCode.USAGE);
            assertThat(run.err()).as(command).contains("--strategy", "'aggressive'")
                    .containsIgnoringCase("[balanced, proactive]");
        }
    }

    @Test
    void completion_offers_the_words_users_type() {
        CommandLine commandLine = new CommandLine(new RootCommand());
        for (String command : new String[] {"plan", "recover", "execute"}) {
            assertThat(commandLine.getSubcommands().get(command).getCommandSpec().findOption("--probe-mode")
                    .completionCandidates()).as(command).containsExactly("auto", "native", "stock");
        }
        for (String command : new String[] {"plan", "recover"}) {
            assertThat(commandLine.getSubcommands().get(command).getCommandSpec().findOption("--strategy")
                    .completionCandidates()).as(command).containsExactly("balanced", "proactive");
        }
    }

    @Test
    void a_probe_deadline_under_100_ms_is_refused_alike_for_the_plan_and_the_second_look() {
        CliRun plan = CliRun.of("--bootstrap-server", "127.0.0.1:1", "plan", "--probe-timeout-ms", "50");
        CliRun execute = CliRun.of("--bootstrap-server", "127.0.0.1:1", "execute", "--plan", "p.json",
                "--reprobe-timeout-ms", "50");

        assertThat(plan.exitCode()).as(plan.err()).isEqualTo(ExitCode.USAGE);
        assertThat(plan.err()).contains("--probe-timeout-ms must be at least 100, not 50");
        assertThat(execute.exitCode()).as(execute.err()).isEqualTo(ExitCode.USAGE);
        assertThat(execute.err()).contains("--reprobe-timeout-ms must be at least 100, not 50");
    }

    @Test
    void a_verification_deadline_under_a_second_is_refused_not_raised() {
        CliRun execute = CliRun.of("--bootstrap-server", "127.0.0.1:1", "execute", "--plan", "p.json",
                "--verify-timeout-ms", "500");

        assertThat(execute.exitCode()).as(execute.err()).isEqualTo(ExitCode.USAGE);
        assertThat(execute.err()).contains("--verify-timeout-ms must be at least 1000, not 500");
    }

    @Test
    void every_probing_command_documents_the_probe_mode() {
        for (String command : new String[] {"plan", "recover", "execute"}) {
            CliRun help = CliRun.of(command, "--help");

            assertThat(help.out()).as(command).contains("--probe-mode=MODE");
        }
    }
}
