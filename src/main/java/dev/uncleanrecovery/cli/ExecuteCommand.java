// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import picocli.CommandLine.Command;

@Command(name = "execute", mixinStandardHelpOptions = true, description = "Re-validate and apply a reviewed plan.")
public class ExecuteCommand extends NotBuiltYet {
}
