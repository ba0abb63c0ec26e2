// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.patch;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The agent refuses to run half-patched: a JVM started with it and a missing hook point, or with
 * no Kafka at all, stops before Kafka does anything, with one line and exit status 78.
 */
class AgentFailFastTest {

    private static final String PREFIX = "[kafka-unclean-recovery-agent] ";

    private record Run(int exitStatus, List<String> lines) {

        List<String> agentLines() {
            return lines.stream().filter(line -> line.startsWith(PREFIX)).toList();
        }
    }

    @Test
    void a_missing_hook_point_stops_kafka_with_one_line_and_status_78() throws Exception {
        Run run = run("=simulateMissingHook=PartitionChangeBuilder.electLeader", serverClasspath(), "kafka.Kafka", "/nonexistent.properties");

        assertThat(run.exitStatus()).isEqualTo(78);
        assertThat(run.agentLines()).hasSize(1);
        assertThat(run.agentLines().get(0))
                .startsWith(PREFIX + "FATAL: org.apache.kafka.controller.PartitionChangeBuilder: hook point not found: "
                        + "PartitionChangeBuilder.electLeader")
                .contains("this Kafka 4.4.0 is not the 4.4.x the agent's hook points were found in")
                .contains("refuses to run half-patched");
        // Kafka itself never ran (it would have failed on the missing properties file)
        assertThat(run.lines()).noneMatch(line -> line.contains("Exiting Kafka"));
    }

    @Test
    void a_missing_member_of_the_scala_request_line_names_the_version_and_the_member() throws Exception {
        Run run = run("=simulateMissingHook=RequestHandlerHelper.sendMaybeThrottle", serverClasspath("4.2.1"),
                "kafka.Kafka", "/nonexistent.properties");

        assertThat(run.exitStatus()).isEqualTo(78);
        assertThat(run.agentLines()).singleElement().asString()
                .startsWith(PREFIX + "FATAL: kafka.server.RequestHandlerHelper: hook point not found: "
                        + "RequestHandlerHelper.sendMaybeThrottle")
                .contains("(Lkafka/network/RequestChannel$Request;"
                        + "Lorg/apache/kafka/common/requests/AbstractResponse;)V")
                .contains("this Kafka 4.2.1 is not the 4.2.x the agent's hook points were found in");
        assertThat(run.lines()).noneMatch(line -> line.contains("Exiting Kafka"));
    }

    /**
     * The real server jars of the lines the agent has no hook points for (3.x, 4.0): the agent stops the node before
     * Kafka starts, with one line naming the version.
     */
    @ParameterizedTest
    @ValueSource(strings = {"3.7.2", "3.9.1", "4.0.2"})
    void on_a_kafka_line_without_hook_points_the_agent_refuses_to_start_the_node(String version) throws Exception {
        Run run = run("", serverClasspath(version), "kafka.Kafka", "/nonexistent.properties");

        assertThat(run.exitStatus()).isEqualTo(78);
        assertThat(run.agentLines()).containsExactly(PREFIX + "FATAL: unsupported Kafka version " + version
                + " (kafka-clients " + version + ", kafka server jar " + version + "); this agent supports Kafka "
                + "4.1.x, 4.2.x, 4.3.x, 4.4.x only: remove it from KAFKA_OPTS (without it the tool recovers this "
                + "cluster with the stock RPCs)");
        assertThat(run.lines()).noneMatch(line -> line.contains("Exiting Kafka"));
    }

    @Test
    void without_kafka_on_the_classpath_the_jvm_stops_with_one_line_and_status_78() throws Exception {
        Run run = run("", agentJar().toString(), "kafka.Kafka");

        assertThat(run.exitStatus()).isEqualTo(78);
        assertThat(run.lines()).containsExactly(PREFIX + "FATAL: no Kafka on the classpath (kafka/kafka-version.properties not found); "
                + "the agent only runs in Kafka 4.1.x, 4.2.x, 4.3.x, 4.4.x brokers and controllers");
    }

    @Test
    void kafka_command_line_tools_with_the_agent_in_kafka_opts_stay_stock() throws Exception {
        // kafka-run-class.sh passes KAFKA_OPTS to every tool, not only to kafka.Kafka
        Run run = run("", serverClasspath() + java.io.File.pathSeparator + agentJar(), "dev.uncleanrecovery.patch.AgentMain");

        assertThat(run.exitStatus()).isZero();
        assertThat(run.agentLines()).containsExactly(PREFIX + "not a Kafka server (main class dev.uncleanrecovery.patch.AgentMain): agent inactive");
    }

    private static Run run(String agentOptions, String classpath, String... mainAndArgs) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-Xshare:auto",
                "-javaagent:" + agentJar() + agentOptions,
                "-cp", classpath));
        command.addAll(List.of(mainAndArgs));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            if (!process.waitFor(120, TimeUnit.SECONDS)) {
                throw new AssertionError("the JVM did not stop within 120 s: " + command);
            }
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return new Run(process.exitValue(), output.lines().toList());
        } finally {
            process.destroyForcibly();
        }
    }

    private static Path agentJar() {
        return Path.of(System.getProperty("kafka.patch.agent.file"));
    }

    private static String serverClasspath() throws IOException {
        return Files.readString(Path.of(System.getProperty("kafka.server.classpath.file"))).trim();
    }

    /** The build writes every tested version's classpath beside the 4.4.0 one. */
    private static String serverClasspath(String version) throws IOException {
        return Files.readString(Path.of(System.getProperty("kafka.server.classpath.file"))
                .resolveSibling("kafka-server-" + version + ".classpath")).trim();
    }
}
