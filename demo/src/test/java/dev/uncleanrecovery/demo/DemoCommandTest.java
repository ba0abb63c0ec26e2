// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.uncleanrecovery.cli.Main;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** demo with the demo jar on the classpath: its help, and what it says when it has no Kafka to run. */
class DemoCommandTest {

    record Run(int exitCode, String out, String err) {
    }

    static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(new PrintWriter(out), new PrintWriter(err), args);
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void help_of_demo_is_the_same_however_it_is_asked() {
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
