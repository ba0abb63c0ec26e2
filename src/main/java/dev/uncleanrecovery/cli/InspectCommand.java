// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import picocli.CommandLine.Command;

@Command(name = "inspect", mixinStandardHelpOptions = true, description = "Read a stopped broker's log directories into evidence JSON (no network).")
public class InspectCommand extends NotBuiltYet {
}
