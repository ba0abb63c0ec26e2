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
                "kafka-unclean-recovery.sh-execute.1", "kafka-unclean-recovery.sh-inspect.1",
                "kafka-unclean-recovery.sh-demo.1")) {
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
        // the launcher runs --help without the demo jar: demo is listed all the same
        assertThat(unpacked.tool(dir, "--help").out()).containsPattern("(?m)^  demo +Break a local real Kafka");
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
    void the_class_data_archive_the_launcher_builds_holds_picocli_and_lives_in_the_users_cache() throws Exception {
        Path jar = unpacked.home.resolve("lib/kafka-unclean-recovery.jar");
        Path cache = Files.createDirectories(dir.resolve("xdg-cache"));
        Map<String, String> environment = Map.of("XDG_CACHE_HOME", cache.toString());
        List<String> installBefore = listing(unpacked.home);
        // the first run builds the archive in the background
        assertThat(unpacked.tool(dir, environment, "--version").exitCode()).isZero();
        Path archives = cache.resolve("kafka-unclean-recovery");
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MINUTES.toNanos(2);
        while (freshArchives(archives, jar).isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(250);
        }
        assertThat(freshArchives(archives, jar)).as("the launcher's class-data archive in $XDG_CACHE_HOME")
                .singleElement();
        assertThat(listing(unpacked.home)).as("the install directory after the archive is made").isEqualTo(installBefore);

        UnpackedArchive.Result loaded = unpacked.tool(dir, Map.of("XDG_CACHE_HOME", cache.toString(),
                "KAFKA_UNCLEAN_RECOVERY_OPTS", "-Xlog:class+load=info"), "--version");

        assertThat(loaded.exitCode()).as(loaded.err()).isZero();
        // picocli is compiled for Java 5: only with the stack-map frames the build adds can the archive hold it
        assertThat(loaded.out().lines().filter(l -> l.contains(" picocli.CommandLine ")))
                .singleElement().asString().contains("source: shared objects file");
        assertThat(loaded.out().lines().filter(l -> l.contains(" picocli.") && !l.contains("shared objects file")))
                .as("picocli classes loaded from the jar").hasSizeLessThan(20);
    }

    @Test
    void without_xdg_cache_home_the_archive_goes_to_the_cache_under_home() throws Exception {
        Path jar = unpacked.home.resolve("lib/kafka-unclean-recovery.jar");
        Path home = Files.createDirectories(dir.resolve("operator-home"));
        // UnpackedArchive runs the tool with HOME set to the directory it runs in
        assertThat(unpacked.tool(home, "--version").exitCode()).isZero();
        Path archives = home.resolve(".cache/kafka-unclean-recovery");
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MINUTES.toNanos(2);
        while (freshArchives(archives, jar).isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(250);
        }
        assertThat(freshArchives(archives, jar)).singleElement();
        assertThat(Files.getPosixFilePermissions(archives)).as("the cache directory is the user's alone")
                .isEqualTo(java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
    }

    /** The archives in {@code dir} made after the jar was built. */
    private static List<Path> freshArchives(Path dir, Path jar) throws java.io.IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (var files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".jsa")).filter(f -> {
                try {
                    return Files.getLastModifiedTime(f).compareTo(Files.getLastModifiedTime(jar)) > 0;
                } catch (java.io.IOException e) {
                    return false;
                }
            }).toList();
        }
    }

    /** Every path below {@code root} with its size and modification time. */
    private static List<String> listing(Path root) throws java.io.IOException {
        try (var paths = Files.walk(root)) {
            return paths.sorted().map(p -> {
                try {
                    return root.relativize(p) + " " + (Files.isRegularFile(p) ? Files.size(p) : -1) + " "
                            + Files.getLastModifiedTime(p).toMillis();
                } catch (java.io.IOException e) {
                    return root.relativize(p) + " unreadable";
                }
            }).toList();
        }
    }

    @Test
    void every_relative_link_in_the_archives_docs_resolves() throws Exception {
        List<String> broken = new java.util.ArrayList<>();
        int checked = 0;
        List<Path> documents;
        try (var paths = Files.walk(unpacked.home)) {
            documents = paths.filter(p -> p.getFileName().toString().endsWith(".md")).sorted().toList();
        }
        Pattern link = Pattern.compile("\\]\\(([^)\\s]+)\\)");
        for (Path document : documents) {
            Matcher m = link.matcher(Files.readString(document));
            while (m.find()) {
                String target = m.group(1);
                if (target.matches("^[a-z]+:.*")) {
                    continue; // https:, mailto:
                }
                checked++;
                int hash = target.indexOf('#');
                String file = hash < 0 ? target : target.substring(0, hash);
                Path resolved = file.isEmpty() ? document : document.getParent().resolve(file).normalize();
                String where = unpacked.home.relativize(document) + ": " + target;
                if (!resolved.startsWith(unpacked.home) || !Files.exists(resolved)) {
                    broken.add(where + " (no such file in the archive)");
                } else if (hash >= 0 && !anchors(resolved).contains(target.substring(hash + 1))) {
                    broken.add(where + " (no such heading)");
                }
            }
        }
        assertThat(checked).as("relative links checked").isGreaterThan(20);
        assertThat(broken).as("links that do not resolve in the unpacked archive").isEmpty();
    }

    /** The anchors GitHub gives a Markdown file's headings: lower case, punctuation dropped, spaces as hyphens. */
    private static java.util.Set<String> anchors(Path markdown) throws java.io.IOException {
        java.util.Set<String> anchors = new java.util.HashSet<>();
        for (String line : Files.readAllLines(markdown)) {
            if (line.startsWith("#")) {
                String heading = line.replaceFirst("^#+\\s*", "").strip().toLowerCase(java.util.Locale.ROOT);
                anchors.add(heading.replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-'));
            }
        }
        return anchors;
    }

    @Test
    void the_completion_script_completes_the_commands() throws Exception {
        UnpackedArchive.Result completed = unpacked.shell(dir, "source " + unpacked.home.resolve(
                "completion/kafka-unclean-recovery.sh.bash") + " && COMP_WORDS=(kafka-unclean-recovery.sh pl) && COMP_CWORD=1"
                + " && COMP_LINE='kafka-unclean-recovery.sh pl' && _complete_kafka-unclean-recovery 2>/dev/null;"
                + " echo \"${COMPREPLY[@]}\"");

        assertThat(completed.exitCode()).as(completed.err()).isZero();
        assertThat(completed.out().strip()).isEqualTo("plan");
        UnpackedArchive.Result demo = unpacked.shell(dir, "source " + unpacked.home.resolve(
                "completion/kafka-unclean-recovery.sh.bash") + " && COMP_WORDS=(kafka-unclean-recovery.sh de) && COMP_CWORD=1"
                + " && COMP_LINE='kafka-unclean-recovery.sh de' && _complete_kafka-unclean-recovery 2>/dev/null;"
                + " echo \"${COMPREPLY[@]}\"");
        assertThat(demo.out().strip()).isEqualTo("demo");
    }
}
