// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * Options accepted before or after the command name (Kafka tool conventions). The connection options are removed
 * again from the commands that never connect (see {@link #NETWORK_OPTIONS}).
 */
public class GlobalOptions {

    @Option(names = "--bootstrap-server", paramLabel = "HOST:PORT", scope = ScopeType.INHERIT,
            description = "Kafka broker(s) to connect to, comma separated.")
    String bootstrapServer;

    @Option(names = "--command-config", paramLabel = "FILE", scope = ScopeType.INHERIT,
            description = "Client properties (security.protocol, ssl.*, sasl.*), as for Kafka's own tools.")
    Path commandConfig;

    @Option(names = "--admin-timeout-ms", paramLabel = "MS", scope = ScopeType.INHERIT, defaultValue = "15000",
            description = "Bound on each metadata call; an unreachable cluster fails after this, exit 4 (default:"
                    + " ${DEFAULT-VALUE}).")
    int adminTimeoutMs;

    @Option(names = "--output", paramLabel = "FORMAT", scope = ScopeType.INHERIT, defaultValue = "text",
            description = "text (tables, default) or json.")
    OutputFormat output;

    @Option(names = {"-v", "--verbose"}, scope = ScopeType.INHERIT,
            description = "Debug logs and stack traces.")
    boolean verbose;

    /** Only commands with a {@link ConnectionOptions} mixin connect to a cluster and list these. */
    static final java.util.List<String> NETWORK_OPTIONS = java.util.List.of("--bootstrap-server", "--command-config",
            "--admin-timeout-ms");

    public enum OutputFormat { text, json }
}
