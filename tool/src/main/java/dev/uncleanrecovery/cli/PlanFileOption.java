// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** {@code --plan FILE}, as every command that reads a plan file takes it. */
final class PlanFileOption {

    @Option(names = "--plan", paramLabel = "FILE", required = true, description = "The plan written by 'plan'.")
    Path path;
}
