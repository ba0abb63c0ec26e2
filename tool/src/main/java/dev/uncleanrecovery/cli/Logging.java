// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import java.util.Arrays;
import org.slf4j.LoggerFactory;

/** Keeps kafka-clients quiet unless the user asked for {@code --verbose}; the set-up itself is {@link LogbackSetup}. */
final class Logging {

    private Logging() {
    }

    static boolean isVerbose(String[] args) {
        return Arrays.asList(args).contains("--verbose") || Arrays.asList(args).contains("-v");
    }

    static void configure(boolean verbose) {
        setLevels((LoggerContext) LoggerFactory.getILoggerFactory(), verbose);
    }

    /** Also what {@link LogbackSetup} starts with (not verbose). */
    static void setLevels(LoggerContext context, boolean verbose) {
        context.getLogger(Logger.ROOT_LOGGER_NAME).setLevel(verbose ? Level.DEBUG : Level.WARN);
        // kafka-clients warns about every failed connection attempt; the tool reports those itself.
        context.getLogger("org.apache.kafka").setLevel(verbose ? Level.DEBUG : Level.ERROR);
    }
}
