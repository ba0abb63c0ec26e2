// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.probe.ProbeMode;
import dev.uncleanrecovery.probe.ProbeSettings;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class ExecuteOptionsTest {

    @Test
    void the_second_look_sends_five_batches_per_broker_at_once_and_keeps_the_plan_probe_batch_size() {
        ExecuteCommand command = new ExecuteCommand();
        new CommandLine(command).parseArgs("--plan", "plan.json", "--reprobe-timeout-ms", "4000");

        ProbeSettings reprobe = command.execution.options(ProbeMode.AUTO).reprobe();

        assertThat(reprobe.maxInFlightBatchesPerBroker()).isEqualTo(5);
        assertThat(ProbeSettings.defaults().maxInFlightBatchesPerBroker()).isEqualTo(2);
        assertThat(reprobe.maxPartitionsPerRequest()).isEqualTo(ProbeSettings.MAX_PARTITIONS_PER_REQUEST);
        assertThat(reprobe.timeout()).isEqualTo(Duration.ofMillis(4000));
        assertThat(reprobe.requestTimeout()).isEqualTo(Duration.ofMillis(4000));
    }
}
