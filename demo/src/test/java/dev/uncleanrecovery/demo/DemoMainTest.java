// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The demo's command line: the tool's commands and demo, and what demo says when it has no Kafka to run. */
class DemoMainTest {

    record Run(int exitCode, String out, String err) {
    }

    static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = DemoMain.run(new PrintWriter(out), new PrintWriter(err), args);
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void help_lists_the_tools_commands_and_demo_before_help() {
        Run help = run("--help");

        assertThat(help.exitCode()).isZero();
        List<String> lines = help.out().lines().toList();
        assertThat(lines.subList(lines.indexOf("Commands:") + 1, lines.size()).stream()
                .takeWhile(line -> !line.isBlank()).filter(line -> line.matches("  \\S.*"))
                .map(line -> line.strip().split("\\s+")[0]))
                .containsExactly("status", "plan", "execute", "recover", "inspect", "replay", "consumer-offsets", "hanging-transactions", "render", "demo", "help");
        assertThat(run("help", "demo").out()).isEqualTo(run("demo", "--help").out()).contains("--kafka-home=DIR");
    }

    @Test
    void demo_does_not_take_connection_options() {
        Run help = run("demo", "--help");
        assertThat(help.out()).doesNotContain("--bootstrap-server", "--command-config", "--admin-timeout-ms");

        Run run = run("demo", "--bootstrap-server", "127.0.0.1:9092");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("Unknown option", "--bootstrap-server");
    }

    @Test
    void a_kafka_home_without_libs_is_one_line(@TempDir Path dir) {
        Run run = run("demo", "--kafka-home", dir.toString());

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err().strip()).isEqualTo("error: --kafka-home " + dir + " has no libs/ directory: name the"
                + " directory a Kafka release was unpacked into (it holds bin/, config/ and libs/)");
    }

    @Test
    void a_kafka_home_without_a_server_jar_is_one_line(@TempDir Path dir) throws Exception {
        Files.createFile(Files.createDirectories(dir.resolve("libs")).resolve("kafka-clients-4.4.0.jar"));

        Run run = run("demo", "--kafka-home", dir.toString());

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err().strip()).isEqualTo("error: --kafka-home " + dir + ": libs/ holds no Kafka server jar"
                + " (kafka_2.13-<version>.jar); name the directory of one Kafka 3.7 or later release");
    }

    @Test
    void without_the_builds_jars_demo_asks_for_an_installed_kafka(@TempDir Path dir) {
        assumeTrue(System.getenv("KAFKA_HOME") == null, "KAFKA_HOME is set: demo would run that Kafka");
        String property = "kafka.server.classpath.file";
        String before = System.getProperty(property);
        // as in the release archive: no classpath file of the build
        System.setProperty(property, dir.resolve("absent.classpath").toString());
        try {
            Run run = run("demo");

            assertThat(run.exitCode()).isEqualTo(2);
            assertThat(run.err().strip()).isEqualTo("error: demo needs an installed Kafka to run: --kafka-home DIR (or"
                    + " KAFKA_HOME), the directory a Kafka release was unpacked into");
        } finally {
            if (before == null) {
                System.clearProperty(property);
            } else {
                System.setProperty(property, before);
            }
        }
    }
}
