// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.FileAppender;
import ch.qos.logback.core.OutputStreamAppender;
import ch.qos.logback.core.spi.ContextAwareBase;
import java.util.List;

/**
 * The tool's logging, set up in code (logback finds it through META-INF/services): everything to stderr, kafka-clients
 * at ERROR and the rest at WARN until {@link Logging#configure} applies --verbose. A logback.xml would do the same,
 * but logback's XML reader (Joran) would add about a tenth of a second to every start. A file named by {@code -Dlogback.configurationFile} still wins: then this steps aside.
 * <p>
 * {@code -Dkafka.unclean.recovery.request.log=FILE} (through KAFKA_UNCLEAN_RECOVERY_OPTS) also writes one line per
 * request the tool sends and per answer, with the time: what it asked of the cluster, for an audit or a timeline.
 * The tool's own broker connections log a short line; Admin's requests (the stock elector's reassignments and
 * elections) come from kafka-clients' NetworkClient, which prints their bodies.
 */
public final class LogbackSetup extends ContextAwareBase implements Configurator {

    public static final String REQUEST_LOG_PROPERTY = "kafka.unclean.recovery.request.log";
    /** The console appender's name. */
    static final String STDERR = "STDERR";
    /** The loggers whose DEBUG lines are the request log (BrokerConnections' own NetworkClient is not among them). */
    static final List<String> REQUEST_LOGGERS = List.of("dev.uncleanrecovery.connect.BrokerConnections",
            "dev.uncleanrecovery.connect.BrokerRawChannels", "org.apache.kafka.clients.NetworkClient");

    @Override
    public ExecutionStatus configure(LoggerContext context) {
        if (System.getProperty("logback.configurationFile") != null) {
            return ExecutionStatus.INVOKE_NEXT_IF_ANY;
        }
        ConsoleAppender<ILoggingEvent> stderr = new ConsoleAppender<>();
        stderr.setTarget("System.err");
        context.getLogger(Logger.ROOT_LOGGER_NAME)
                .addAppender(started(context, stderr, STDERR, "%d{HH:mm:ss.SSS} %-5level %logger{36} - %msg%n"));
        Logging.setLevels(context, false);

        String requestLog = System.getProperty(REQUEST_LOG_PROPERTY);
        if (requestLog != null && !requestLog.isBlank()) {
            FileAppender<ILoggingEvent> file = new FileAppender<>();
            file.setFile(requestLog);
            file.setAppend(false);
            OutputStreamAppender<ILoggingEvent> appender = started(context, file, "REQUESTS", "%d{HH:mm:ss.SSS} %msg%n");
            for (String name : REQUEST_LOGGERS) {
                Logger logger = context.getLogger(name);
                logger.setLevel(Level.DEBUG);
                logger.setAdditive(false);
                logger.addAppender(appender);
            }
        }
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }

    private static OutputStreamAppender<ILoggingEvent> started(LoggerContext context, OutputStreamAppender<ILoggingEvent> appender,
                                                               String name, String pattern) {
        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern(pattern);
        encoder.start();
        appender.setContext(context);
        appender.setName(name);
        appender.setEncoder(encoder);
        appender.start();
        return appender;
    }
}
