// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import picocli.CommandLine.IVersionProvider;

/** The tool's name and version, as written into plans and results. */
public final class ToolVersion implements IVersionProvider {
    public static final String NAME = "kafka-unclean-recovery";
    public static final String VERSION = "0.1.0";

    public static String describe() {
        return NAME + " " + VERSION;
    }

    @Override
    public String[] getVersion() {
        return new String[] {describe(),
            "kafka-clients " + org.apache.kafka.common.utils.internals.AppInfoParser.getVersion(),
            "Java " + Runtime.version() + " (" + System.getProperty("java.vendor") + ", " + System.getProperty("java.home")
                    + ")"};
    }
}
