// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.harness;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A Kafka installation laid out as an operator's ({@code bin/}, {@code config/}, {@code libs/}), made of the real
 * server jars the build resolved (kafka-servers/): what {@code demo --kafka-home} is tested against.
 */
public final class InstalledKafka {

    private InstalledKafka() {
    }

    /** {@code home} with a {@code libs/} that links every jar of the build's Kafka 4.4.0 server classpath. */
    public static Path of(Path home) throws IOException {
        Path file = Path.of(System.getProperty("kafka.server.classpath.file", "target/kafka-server-4.4.0.classpath"));
        String classpath = Files.readString(file, StandardCharsets.UTF_8).trim();
        Path libs = Files.createDirectories(home.resolve("libs"));
        Files.createDirectories(home.resolve("bin"));
        Files.createDirectories(home.resolve("config"));
        for (String jar : classpath.split(File.pathSeparator)) {
            Path source = Path.of(jar);
            Files.createSymbolicLink(libs.resolve(source.getFileName()), source);
        }
        return home;
    }
}
