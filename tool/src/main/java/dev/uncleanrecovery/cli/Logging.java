// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.filter.Filter;
import ch.qos.logback.core.spi.FilterReply;
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
        Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        root.setLevel(verbose ? Level.DEBUG : Level.WARN);
        // kafka-clients warns about every failed connection attempt; the tool reports those itself.
        context.getLogger("org.apache.kafka").setLevel(verbose ? Level.DEBUG : Level.ERROR);
        Appender<ILoggingEvent> stderr = root.getAppender(LogbackSetup.STDERR);
        if (stderr != null) {
            stderr.clearAllFilters();
            if (!verbose) {
                stderr.addFilter(new ReportedAuthenticationFailures());
            }
        }
    }

    /**
     * kafka-clients' NetworkClient logs every failed TLS handshake and SASL login at ERROR ("Connection to node -1
     * (localhost/127.0.0.1:9093) failed authentication due to: SSL handshake failed"), which says neither why nor
     * what to do; the tool's own line about it (ErrorReporter, or the replica's evidence) does. Shown with --verbose.
     */
    static final class ReportedAuthenticationFailures extends Filter<ILoggingEvent> {

        @Override
        public FilterReply decide(ILoggingEvent event) {
            String logger = event.getLoggerName();
            String format = event.getMessage();
            boolean networkClient = logger.startsWith("org.apache.kafka.clients.") && logger.endsWith("NetworkClient");
            return networkClient && format != null && format.contains("failed authentication due to")
                    ? FilterReply.DENY : FilterReply.NEUTRAL;
        }
    }
}
