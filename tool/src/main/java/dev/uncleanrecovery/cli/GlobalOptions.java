// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/** Options every command accepts, before or after the command name (Kafka tool conventions). */
public class GlobalOptions {

    @Option(names = "--bootstrap-server", paramLabel = "HOST:PORT", scope = ScopeType.INHERIT,
            description = "Kafka broker(s) to connect to, comma separated.")
    String bootstrapServer;

    @Option(names = "--command-config", paramLabel = "FILE", scope = ScopeType.INHERIT,
            description = "Client properties (security.protocol, ssl.*, sasl.*), as for Kafka's own tools.")
    Path commandConfig;

    @Option(names = "--output", paramLabel = "FORMAT", scope = ScopeType.INHERIT, defaultValue = "text",
            description = "text (tables, default) or json.")
    OutputFormat output;

    @Option(names = {"-v", "--verbose"}, scope = ScopeType.INHERIT,
            description = "Debug logs and stack traces.")
    boolean verbose;

    public enum OutputFormat { text, json }
}
