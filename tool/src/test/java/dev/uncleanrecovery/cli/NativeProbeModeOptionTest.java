// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@code --probe-mode} is checked before any connection, on every command that probes. */
class NativeProbeModeOptionTest {

    @Test
    void an_unknown_probe_mode_is_bad_usage_that_names_the_choices() {
        for (String command : new String[] {"plan", "recover"}) {
            CliRun run = CliRun.of("--bootstrap-server", "127.0.0.1:1", command, "--probe-mode", "fast");

            assertThat(run.exitCode()).as(command + ": " + run.err()).isEqualTo(ExitCode.USAGE);
            assertThat(run.err()).as(command).contains("--probe-mode must be one of auto, native, stock, not 'fast'");
        }
    }

    @Test
    void every_probing_command_documents_the_probe_mode() {
        for (String command : new String[] {"plan", "recover", "execute"}) {
            CliRun help = CliRun.of(command, "--help");

            assertThat(help.out()).as(command).contains("--probe-mode=MODE");
        }
    }
}
