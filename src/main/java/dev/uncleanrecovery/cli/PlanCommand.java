// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import picocli.CommandLine.Command;

@Command(name = "plan", mixinStandardHelpOptions = true, description = "Probe every replica and write a reviewable plan; never changes the cluster.")
public class PlanCommand extends NotBuiltYet {
}
