// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A stock Kafka server classpath (kafka_2.13 and its logging binding; for 4.4.0 also kafka-tools) that the
 * build resolves into {@code target/kafka-server-<version>.classpath}, or every jar of an installed Kafka's
 * {@code libs/} ({@link #ofKafkaHome}). Local nodes run from exactly these jars; nothing is downloaded when a
 * cluster starts.
 */
record KafkaServerClasspath(Path file, String value) {

    /** Surefire passes the file's location under this name; {@code demo} may too. */
    static final String FILE_PROPERTY = "kafka.server.classpath.file";
    static final Path DEFAULT_FILE = Path.of("target", "kafka-server-4.4.0.classpath");

    /** The Kafka version the tool ships with, and the local clusters' default. */
    static final String DEFAULT_VERSION = "4.4.0";

    static Path defaultFile() {
        String configured = System.getProperty(FILE_PROPERTY);
        return configured == null || configured.isBlank() ? DEFAULT_FILE : Path.of(configured);
    }

    /** {@code kafka-server-<version>.classpath} beside the default one (the build writes every tested version's). */
    static Path fileFor(String version) {
        Path defaults = defaultFile().toAbsolutePath();
        return version.equals(DEFAULT_VERSION) ? defaults
                : defaults.resolveSibling("kafka-server-" + version + ".classpath");
    }

    /** The server jar of a Kafka distribution, named after its Scala and Kafka versions: kafka_2.13-4.4.0.jar. */
    private static final Pattern SERVER_JAR = Pattern.compile("kafka_2\\.1\\d-([34]\\.\\d+\\.\\d+)\\.jar");

    /** The Kafka version of an installed Kafka: the one its server jar in {@code libs/} is named after. */
    static String versionOfKafkaHome(Path home) {
        Path libs = home.resolve("libs");
        if (!Files.isDirectory(libs)) {
            throw new LocalClusterException("--kafka-home " + home + " has no libs/ directory: name the directory a Kafka"
                    + " release was unpacked into (it holds bin/, config/ and libs/)");
        }
        try (Stream<Path> jars = Files.list(libs)) {
            List<String> versions = jars.map(jar -> SERVER_JAR.matcher(jar.getFileName().toString()))
                    .filter(Matcher::matches).map(m -> m.group(1)).distinct().toList();
            if (versions.size() != 1) {
                throw new LocalClusterException("--kafka-home " + home + ": libs/ holds " + (versions.isEmpty()
                        ? "no Kafka server jar (kafka_2.13-<version>.jar)" : "the server jars of " + versions.size()
                        + " Kafka versions " + versions) + "; name the directory of one Kafka 3.7 or later release");
            }
            return versions.get(0);
        } catch (IOException e) {
            throw new LocalClusterException("could not list " + libs + ": " + e, e);
        }
    }

    /** Every jar in an installed Kafka's {@code libs/}, as Kafka's own kafka-run-class.sh puts them on the classpath. */
    static KafkaServerClasspath ofKafkaHome(Path home) {
        versionOfKafkaHome(home);
        Path libs = home.toAbsolutePath().resolve("libs");
        try (Stream<Path> jars = Files.list(libs)) {
            String value = String.join(File.pathSeparator, jars.filter(jar -> jar.getFileName().toString().endsWith(".jar"))
                    .map(Path::toString).sorted().toList());
            return new KafkaServerClasspath(libs, value);
        } catch (IOException e) {
            throw new LocalClusterException("could not list " + libs + ": " + e, e);
        }
    }

    static KafkaServerClasspath read(Path file) {
        if (!Files.isRegularFile(file)) {
            throw new LocalClusterException("the Kafka server classpath file " + file.toAbsolutePath()
                    + " does not exist; the build writes it (module kafka-servers): run 'mvn -B package -DskipTests' once at"
                    + " the top of the checkout, or pass -D"
                    + FILE_PROPERTY + "=FILE");
        }
        String value;
        try {
            value = Files.readString(file, StandardCharsets.UTF_8).trim();
        } catch (IOException e) {
            throw new LocalClusterException("could not read the Kafka server classpath file " + file + ": " + e, e);
        }
        List<String> missing = Arrays.stream(value.split(File.pathSeparator))
                .filter(entry -> !entry.isBlank() && !Files.exists(Path.of(entry)))
                .toList();
        if (value.isEmpty() || !missing.isEmpty()) {
            throw new LocalClusterException("the Kafka server classpath in " + file + " is "
                    + (value.isEmpty() ? "empty" : "missing " + missing.size() + " jar(s), first " + missing.get(0))
                    + "; rebuild it with 'mvn -B package -DskipTests' (the local Maven repository may have been cleaned)");
        }
        if (!value.contains("kafka_2.13-")) {
            throw new LocalClusterException("the classpath in " + file + " has no kafka_2.13 jar, so it cannot run"
                    + " kafka.Kafka; rebuild it with 'mvn -B package -DskipTests'");
        }
        return new KafkaServerClasspath(file, value);
    }
}
