// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import picocli.CommandLine.Command;

@Command(name = "status", mixinStandardHelpOptions = true,
        description = "Offline and at-risk partitions with ISR/ELR/LastKnownELR, fenced brokers, ELR feature level.")
public class StatusCommand extends NotBuiltYet {
}
