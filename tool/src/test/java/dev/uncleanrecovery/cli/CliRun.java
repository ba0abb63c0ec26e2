// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.LoggerContext;
import dev.uncleanrecovery.view.Table;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.LoggerFactory;

/** Runs the CLI in-process the way a user would, capturing what it prints and its exit code. */
public record CliRun(int exitCode, String out, String err) {

    /** What the run printed, each run of spaces and line breaks one space: what it said, however it was wrapped. */
    public String outWords() {
        return out.replaceAll("\\s+", " ");
    }

    public static CliRun of(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new CliRun(code, out.toString(), err.toString());
    }

    /**
     * Runs {@code inspect} with {@code args}, and checks that every line of its output fits {@link Table#MAX_WIDTH}
     * and none is made of spaces alone (an error stays one line, whatever its length).
     */
    public static CliRun inspect(String... args) {
        CliRun run = of(java.util.stream.Stream.concat(java.util.stream.Stream.of("inspect"),
                java.util.Arrays.stream(args)).toArray(String[]::new));
        assertThat(run.out().lines()).as("inspect's lines").allSatisfy(line -> assertThat(line)
                .as("within %d columns, and blank only if empty", Table.MAX_WIDTH)
                .hasSizeLessThanOrEqualTo(Table.MAX_WIDTH).matches(l -> l.isEmpty() || !l.isBlank()));
        return run;
    }

    /**
     * Runs the CLI in-process as {@code -Dkafka.unclean.recovery.request.log=FILE} would at start-up: logging set up
     * again with the request log, and as it was after.
     */
    public static CliRun withRequestLog(Path requestLog, String... args) {
        LoggerContext logging = (LoggerContext) LoggerFactory.getILoggerFactory();
        String before = System.getProperty(LogbackSetup.REQUEST_LOG_PROPERTY);
        try {
            System.setProperty(LogbackSetup.REQUEST_LOG_PROPERTY, requestLog.toString());
            reconfigure(logging);
            return of(args);
        } finally {
            if (before == null) {
                System.clearProperty(LogbackSetup.REQUEST_LOG_PROPERTY);
            } else {
                System.setProperty(LogbackSetup.REQUEST_LOG_PROPERTY, before);
            }
            reconfigure(logging);
        }
    }

    private static void reconfigure(LoggerContext logging) {
        logging.reset();
        LogbackSetup setup = new LogbackSetup();
        setup.setContext(logging);
        setup.configure(logging);
    }

    /** A proactive plan of one partition written to {@code file}, as the runbook makes it; the test fails without one. */
    static Path planProactive(LocalKafkaCluster cluster, Path file, TopicPartition tp) {
        CliRun planned = of("--bootstrap-server", cluster.bootstrapServers(), "plan", "--strategy", "proactive",
                "--probe-timeout-ms", "3000", "--topic", tp.topic(), "--partition", String.valueOf(tp.partition()),
                "--output-file", file.toString());
        assertThat(planned.exitCode()).as(planned.out() + planned.err()).isEqualTo(ExitCode.OK);
        return file;
    }

    /**
     * A proactive plan of {@code topic} written to {@code dir}/plan.json, with what {@code inspect} read off the disk
     * of {@code stoppedBroker} ({@code dir}/evidence.json), as the runbook makes it when a broker stays down.
     */
    static Path planWithTheDiskOf(LocalKafkaCluster cluster, int stoppedBroker, String topic, Path dir) {
        Path evidence = dir.resolve("evidence.json");
        CliRun inspected = of("inspect", "--log-dir", cluster.logDir(stoppedBroker).toString(), "--output-file",
                evidence.toString());
        assertThat(inspected.exitCode()).as(inspected.out() + inspected.err()).isEqualTo(ExitCode.OK);
        Path plan = dir.resolve("plan.json");
        CliRun planned = of("--bootstrap-server", cluster.bootstrapServers(), "plan", "--strategy", "proactive",
                "--probe-timeout-ms", "3000", "--topic", topic, "--evidence", evidence.toString(), "--output-file",
                plan.toString());
        assertThat(planned.exitCode()).as(planned.out() + planned.err()).isEqualTo(ExitCode.OK);
        return plan;
    }
}
