// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.Configurator.ExecutionStatus;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** Logging as the tool sets it up in code: stderr, kafka-clients quiet, and no request log unless asked for. */
class LogbackSetupTest {

    /** kafka-clients' NetworkClient, word for word. */
    private static final String AUTHENTICATION_FAILED = "Connection to node {} ({}) failed authentication due to: {}";

    @Test
    void the_tool_logs_warnings_to_stderr_and_kafka_clients_only_errors() {
        String stderr = stderrOf(false, context -> {
            context.getLogger("org.apache.kafka.clients.NetworkClient").warn("not shown: kafka-clients' {}", "WARN");
            context.getLogger("org.apache.kafka.clients.admin.KafkaAdminClient").error("shown: kafka-clients' {}", "ERROR");
            context.getLogger("dev.uncleanrecovery.probe.ProbeFanOut").info("not shown: {}", "INFO under the root's WARN");
            context.getLogger("dev.uncleanrecovery.probe.ProbeFanOut").warn("shown: {}", "our WARN");
            context.getLogger("dev.uncleanrecovery.connect.BrokerConnections").debug("not shown: no request log asked for");
            // the tool's own error line says why and what to do
            context.getLogger("org.apache.kafka.clients.BrokerConnections-NetworkClient").error(AUTHENTICATION_FAILED,
                    -1, "localhost/127.0.0.1:9093", "SSL handshake failed");
            context.getLogger("org.apache.kafka.clients.NetworkClient").error(AUTHENTICATION_FAILED,
                    -3, "localhost/127.0.0.1:9093", "SSL handshake failed");
        });

        assertThat(stderr.lines()).satisfiesExactly(
                l -> assertThat(l).matches("\\d\\d:\\d\\d:\\d\\d\\.\\d{3} ERROR \\S+\\.KafkaAdminClient - shown: kafka-clients' ERROR"),
                l -> assertThat(l).matches("\\d\\d:\\d\\d:\\d\\d\\.\\d{3} WARN  \\S+\\.ProbeFanOut - shown: our WARN"));
    }

    @Test
    void with_verbose_kafka_clients_own_line_about_a_failed_handshake_is_shown_too() {
        String stderr = stderrOf(true, context -> context.getLogger("org.apache.kafka.clients.NetworkClient")
                .error(AUTHENTICATION_FAILED, -3, "localhost/127.0.0.1:9093", "SSL handshake failed"));

        assertThat(stderr).contains("Connection to node -3 (localhost/127.0.0.1:9093) failed authentication due to:"
                + " SSL handshake failed");
    }

    @Test
    void a_configuration_file_named_on_the_command_line_wins() {
        LoggerContext context = new LoggerContext();
        LogbackSetup setup = new LogbackSetup();
        setup.setContext(context);
        String before = System.getProperty("logback.configurationFile");
        System.setProperty("logback.configurationFile", "/tmp/somebody-elses-logback.xml");
        try {
            assertThat(setup.configure(context)).isEqualTo(ExecutionStatus.INVOKE_NEXT_IF_ANY);
            assertThat(context.getLogger(Logger.ROOT_LOGGER_NAME).iteratorForAppenders().hasNext()).isFalse();
        } finally {
            if (before == null) {
                System.clearProperty("logback.configurationFile");
            } else {
                System.setProperty("logback.configurationFile", before);
            }
        }
    }

    /** What reaches stderr of what {@code log} logs, logging set up as the tool does, with --verbose or without. */
    private static String stderrOf(boolean verbose, Consumer<LoggerContext> log) {
        LoggerContext context = new LoggerContext();
        context.setMDCAdapter(new LogbackMDCAdapter()); // as logback's own start-up does
        LogbackSetup setup = new LogbackSetup();
        setup.setContext(context);
        // The console appender takes hold of System.err when it starts.
        PrintStream stderr = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            assertThat(setup.configure(context)).isEqualTo(ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY);
            Logging.setLevels(context, verbose);
            log.accept(context);
        } finally {
            System.setErr(stderr);
            context.stop();
        }
        return captured.toString(StandardCharsets.UTF_8);
    }
}
