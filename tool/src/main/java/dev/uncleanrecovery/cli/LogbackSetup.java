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
import ch.qos.logback.core.OutputStreamAppender;
import ch.qos.logback.core.spi.ContextAwareBase;
import dev.uncleanrecovery.support.DurableFiles;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.slf4j.ILoggerFactory;

/**
 * The tool's logging, set up in code (logback finds it through META-INF/services): everything to stderr, kafka-clients
 * at ERROR and the rest at WARN until {@link Logging#configure} applies --verbose. A logback.xml would do the same,
 * but logback's XML reader (Joran) would add about a tenth of a second to every start. A file named by {@code -Dlogback.configurationFile} still wins: then this steps aside.
 * <p>
 * {@code -Dkafka.unclean.recovery.request.log=FILE} (through KAFKA_UNCLEAN_RECOVERY_OPTS) also writes one line per
 * request the tool sends and per answer, with the time: what it asked of the cluster, for an audit or a timeline.
 * The tool's own broker connections log a short line; Admin's requests (the stock elector's reassignments and
 * elections) come from kafka-clients' NetworkClient, which prints their bodies.
 * <p>
 * The request log is always a new file, created 0600: never an existing file (overwritten, it would lose an earlier
 * run's audit; appended to, two runs would mix) and never through a symbolic link. When it cannot be created the
 * tool says so and exits 2 before doing anything ({@link #requestLogProblem}).
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
            OutputStream stream;
            try {
                stream = DurableFiles.appendToNew(Path.of(requestLog));
            } catch (IOException | InvalidPathException e) {
                context.putObject(REQUEST_LOG_PROBLEM, whyNotCreated(requestLog, e));
                return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
            }
            OutputStreamAppender<ILoggingEvent> file = new OutputStreamAppender<>();
            file.setOutputStream(stream);
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

    private static final String REQUEST_LOG_PROBLEM = LogbackSetup.class.getName() + ".requestLogProblem";

    /**
     * Why the request log asked for could not be created, in one line for the operator; null when it was, or none was
     * asked for.
     */
    static String requestLogProblem(ILoggerFactory loggers) {
        return loggers instanceof LoggerContext context ? (String) context.getObject(REQUEST_LOG_PROBLEM) : null;
    }

    private static String whyNotCreated(String requestLog, Exception e) {
        String what = "-D" + REQUEST_LOG_PROPERTY + "=" + requestLog + ": ";
        String alwaysNew = "; the request log is always a new file (never overwritten nor appended to): name a new"
                + " file, or move the old one away";
        if (e instanceof InvalidPathException invalid) {
            return what + "not a path (" + invalid.getMessage() + "); name a file in a directory you may write";
        }
        Path path = Path.of(requestLog);
        if (e instanceof FileAlreadyExistsException && Files.isSymbolicLink(path)) {
            return what + "is a symbolic link, and the request log is never written through one" + alwaysNew;
        }
        if (e instanceof FileAlreadyExistsException && Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS)) {
            return what + "the file exists" + alwaysNew;
        }
        if (e instanceof IOException) {
            Optional<String> why = DurableFiles.whyNotNew(path);
            if (why.isPresent()) {
                return what + why.get();
            }
        }
        String reason = e instanceof AccessDeniedException ? "permission denied"
                : e instanceof FileSystemException fs && fs.getReason() != null ? fs.getReason() : e.getMessage();
        return what + "cannot be created (" + reason + "); name a file in a directory you may write";
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
