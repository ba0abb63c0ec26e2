// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import picocli.CommandLine.Command;

@Command(name = "recover", mixinStandardHelpOptions = true, description = "plan, then (only with --automated-recovery) execute.")
public class RecoverCommand extends NotBuiltYet {
}
