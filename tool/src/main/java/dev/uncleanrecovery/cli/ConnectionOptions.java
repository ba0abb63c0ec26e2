// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import dev.uncleanrecovery.cluster.ClusterDiscovery;
import dev.uncleanrecovery.connect.ClientProperties;
import java.util.Properties;
import picocli.CommandLine.Option;

/** How commands that talk to a cluster reach it (the connection itself is in {@link GlobalOptions}). */
class ConnectionOptions {

    @Option(names = "--admin-timeout-ms", paramLabel = "MS", defaultValue = "15000",
            description = "Bound on each metadata call; an unreachable cluster fails after this (default: ${DEFAULT-VALUE}).")
    int adminTimeoutMs;

    Properties clientProperties(GlobalOptions global) {
        return ClientProperties.load(global.bootstrapServer, global.commandConfig, adminTimeoutMs);
    }

    ClusterDiscovery discovery(GlobalOptions global) {
        return new ClusterDiscovery(clientProperties(global), adminTimeoutMs);
    }
}
