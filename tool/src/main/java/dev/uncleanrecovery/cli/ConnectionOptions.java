// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import dev.uncleanrecovery.cluster.ClusterDiscovery;
import dev.uncleanrecovery.connect.ClientProperties;
import java.util.Properties;
import picocli.CommandLine.Command;

/**
 * Marks a command that talks to a cluster, and says how it reaches it: the options themselves are in
 * {@link GlobalOptions}, which keeps them only on commands with this mixin.
 */
@Command // picocli takes a mixin only with an annotation; this one brings no options of its own
class ConnectionOptions {

    Properties clientProperties(GlobalOptions global) {
        return ClientProperties.load(global.bootstrapServer, global.commandConfig, global.adminTimeoutMs);
    }

    ClusterDiscovery discovery(GlobalOptions global) {
        return new ClusterDiscovery(clientProperties(global), global.adminTimeoutMs);
    }
}
