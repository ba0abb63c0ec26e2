// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import picocli.CommandLine.Command;

@Command(name = "demo", mixinStandardHelpOptions = true, description = "Start a local Kafka cluster, break it the KIP-966 way and recover it.")
public class DemoCommand extends NotBuiltYet {
}
