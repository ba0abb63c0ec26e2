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

/**
 * A stock Kafka server classpath (kafka_2.13 and its logging binding; for 4.4.0 also kafka-tools) that the
 * build resolves into {@code target/kafka-server-<version>.classpath}. Local nodes run from exactly
 * these jars; nothing is downloaded when a cluster starts.
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
