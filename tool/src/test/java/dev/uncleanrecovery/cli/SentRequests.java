// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.LoggerFactory;

/**
 * The requests the tool sends in this JVM, in the order sent, from the loggers the request log is made of
 * ({@link LogbackSetup#REQUEST_LOGGERS}: "Sending DELETE_TOPICS request with header ..."), read in a test that runs
 * the tool in-process.
 */
final class SentRequests implements AutoCloseable {

    private static final Pattern SENDING = Pattern.compile("Sending ([A-Z_]+) request");

    private final List<Logger> loggers;
    private final List<Level> levels;
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    private SentRequests(List<Logger> loggers) {
        this.loggers = loggers;
        this.levels = loggers.stream().map(Logger::getLevel).toList();
    }

    static SentRequests record() {
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        SentRequests recording = new SentRequests(LogbackSetup.REQUEST_LOGGERS.stream().map(context::getLogger).toList());
        recording.appender.setContext(context);
        recording.appender.start();
        // the tool sets the levels of "org.apache.kafka" and the root at each start; a logger's own level stays
        for (Logger logger : recording.loggers) {
            logger.setLevel(Level.DEBUG);
            logger.setAdditive(false);
            logger.addAppender(recording.appender);
        }
        return recording;
    }

    /** The API of each request sent so far, e.g. {@code DELETE_TOPICS}. */
    List<String> apis() {
        return List.copyOf(appender.list).stream().map(ILoggingEvent::getFormattedMessage).map(SENDING::matcher)
                .filter(Matcher::find).map(m -> m.group(1)).toList();
    }

    @Override
    public void close() {
        for (int i = 0; i < loggers.size(); i++) {
            loggers.get(i).detachAppender(appender);
            loggers.get(i).setAdditive(true);
            loggers.get(i).setLevel(levels.get(i));
        }
        appender.stop();
    }
}
