// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What an operator unpacks holds what the README promises, and runs with a Java runtime alone. */
class ReleaseArchiveTest {

    @TempDir
    static Path dir;

    static UnpackedArchive unpacked;

    @BeforeAll
    static void unpack() throws Exception {
        unpacked = UnpackedArchive.into(dir);
    }

    @Test
    void the_archive_holds_the_tool_the_agent_the_docs_and_the_notices() {
        Path home = unpacked.home;
        assertThat(home.getFileName().toString()).isEqualTo("kafka-unclean-recovery-0.1.0");
        assertThat(home.resolve("bin/kafka-unclean-recovery.sh")).isExecutable();
        assertThat(home.resolve("lib/kafka-unclean-recovery.jar")).isRegularFile();
        assertThat(home.resolve("lib/kafka-unclean-recovery-demo.jar")).isRegularFile();
        assertThat(home.resolve("agent/kafka-unclean-recovery-agent.jar")).isRegularFile();
        assertThat(home.resolve("examples/plan.json")).isRegularFile();
        assertThat(home.resolve("docs/architecture.md")).isRegularFile();
        assertThat(home.resolve("README.md")).isRegularFile();
        assertThat(home.resolve("LICENSE")).isRegularFile();
        assertThat(home.resolve("THIRD-PARTY-NOTICES.txt")).isRegularFile();
        assertThat(home.resolve("completion/kafka-unclean-recovery.sh.bash")).isRegularFile();
        for (String page : List.of("kafka-unclean-recovery.sh.1", "kafka-unclean-recovery.sh-plan.1",
                "kafka-unclean-recovery.sh-execute.1", "kafka-unclean-recovery.sh-inspect.1")) {
            assertThat(home.resolve("man/man1").resolve(page)).isRegularFile();
        }
        assertThat(Path.of(UnpackedArchive.archive().toString().replace(".tar.gz", ".zip"))).isRegularFile();
    }

    @Test
    void every_bundled_library_is_named_in_the_notices() throws Exception {
        String notices = Files.readString(unpacked.home.resolve("THIRD-PARTY-NOTICES.txt"));
        // "   info.picocli:picocli:jar:4.7.7:compile -- module info.picocli", as maven-dependency-plugin lists them
        Matcher artifact = Pattern.compile("(?m)^\\s+([\\w.-]+):([\\w.-]+):jar:").matcher(
                Files.readString(Path.of(System.getProperty("bundled.artifacts"))));
        int listed = 0;
        while (artifact.find()) {
            listed++;
            assertThat(notices).contains(artifact.group(1) + ":" + artifact.group(2));
        }
        assertThat(listed).as("bundled libraries listed by the build").isGreaterThan(5);
    }

    @Test
    void it_runs_with_a_java_runtime_and_no_maven() throws Exception {
        assertThat(unpacked.shell(dir, "command -v mvn").exitCode()).as("no mvn on the PATH").isNotZero();

        UnpackedArchive.Result version = unpacked.tool(dir, "--version");

        assertThat(version.exitCode()).as(version.err()).isZero();
        assertThat(version.out().lines()).hasSize(3).satisfies(lines -> {
            assertThat(lines.get(0)).isEqualTo("kafka-unclean-recovery 0.1.0");
            assertThat(lines.get(1)).isEqualTo("kafka-clients 4.4.0");
            assertThat(lines.get(2)).startsWith("Java " + Runtime.version().feature());
        });
        assertThat(version.err()).doesNotContain("building");
    }

    @Test
    void demo_says_in_one_line_what_it_needs() throws Exception {
        UnpackedArchive.Result demo = unpacked.tool(dir, "demo");

        assertThat(demo.exitCode()).isEqualTo(2);
        assertThat(demo.err().strip()).isEqualTo("error: demo needs an installed Kafka to run: --kafka-home DIR (or"
                + " KAFKA_HOME), the directory a Kafka release was unpacked into");
    }

    @Test
    void demo_runs_from_the_archive() throws Exception {
        UnpackedArchive.Result help = unpacked.tool(dir, "demo", "--help");

        assertThat(help.exitCode()).as(help.err()).isZero();
        assertThat(help.out()).contains("Usage: kafka-unclean-recovery.sh demo", "--kafka-home=DIR");
        // KAFKA_HOME is read as --kafka-home is: here a directory that is no Kafka installation
        UnpackedArchive.Result notKafka = unpacked.tool(dir, Map.of("KAFKA_HOME", dir.toString()), "demo");
        assertThat(notKafka.exitCode()).isEqualTo(2);
        assertThat(notKafka.err().strip()).startsWith("error: --kafka-home " + dir + " has no libs/ directory");
    }

    @Test
    void the_tools_jar_holds_neither_the_harness_nor_the_demo() throws Exception {
        try (java.util.zip.ZipFile jar = new java.util.zip.ZipFile(unpacked.home.resolve("lib/kafka-unclean-recovery.jar")
                .toFile())) {
            assertThat(jar.stream().map(java.util.zip.ZipEntry::getName))
                    .contains("dev/uncleanrecovery/cli/Main.class")
                    .noneMatch(name -> name.startsWith("dev/uncleanrecovery/localcluster/")
                            || name.startsWith("dev/uncleanrecovery/harness/") || name.startsWith("dev/uncleanrecovery/demo/"));
        }
    }

    @Test
    void the_class_data_archive_the_launcher_builds_holds_picocli() throws Exception {
        Path jar = unpacked.home.resolve("lib/kafka-unclean-recovery.jar");
        Path archive = unpacked.home.resolve("lib/kafka-unclean-recovery.jsa");
        // the first run builds the archive in the background
        assertThat(unpacked.tool(dir, "--version").exitCode()).isZero();
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MINUTES.toNanos(2);
        while (!(Files.exists(archive) && Files.getLastModifiedTime(archive).compareTo(Files.getLastModifiedTime(jar)) > 0)
                && System.nanoTime() < deadline) {
            Thread.sleep(250);
        }
        assertThat(archive).as("the launcher's class-data archive").isRegularFile();

        UnpackedArchive.Result loaded = unpacked.tool(dir, Map.of("KAFKA_UNCLEAN_RECOVERY_OPTS", "-Xlog:class+load=info"),
                "--version");

        assertThat(loaded.exitCode()).as(loaded.err()).isZero();
        // picocli is compiled for Java 5: only with the stack-map frames the build adds can the archive hold it
        assertThat(loaded.out().lines().filter(l -> l.contains(" picocli.CommandLine ")))
                .singleElement().asString().contains("source: shared objects file");
        assertThat(loaded.out().lines().filter(l -> l.contains(" picocli.") && !l.contains("shared objects file")))
                .as("picocli classes loaded from the jar").hasSizeLessThan(20);
    }

    @Test
    void the_completion_script_completes_the_commands() throws Exception {
        UnpackedArchive.Result completed = unpacked.shell(dir, "source " + unpacked.home.resolve(
                "completion/kafka-unclean-recovery.sh.bash") + " && COMP_WORDS=(kafka-unclean-recovery.sh pl) && COMP_CWORD=1"
                + " && COMP_LINE='kafka-unclean-recovery.sh pl' && _complete_kafka-unclean-recovery 2>/dev/null;"
                + " echo \"${COMPREPLY[@]}\"");

        assertThat(completed.exitCode()).as(completed.err()).isZero();
        assertThat(completed.out().strip()).isEqualTo("plan");
    }
}
