// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.harness;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs one of Kafka's own command-line tools (e.g. LeaderElectionCommand, kafka-leader-election.sh) from the
 * stock 4.4.0 jars the build resolved, in its own JVM, the way an operator would.
 */
public final class KafkaToolProcess {

    public record Run(int exitCode, String output) {
    }

    private KafkaToolProcess() {
    }

    /** The main classes of the scripts the tool tells operators to run. */
    private static final java.util.Map<String, String> SCRIPTS = java.util.Map.of(
            "kafka-transactions.sh", "org.apache.kafka.tools.TransactionsCommand",
            "kafka-leader-election.sh", "org.apache.kafka.tools.LeaderElectionCommand",
            "kafka-reassign-partitions.sh", "org.apache.kafka.tools.reassign.ReassignPartitionsCommand",
            "kafka-topics.sh", "org.apache.kafka.tools.TopicCommand");

    /** A command line as printed for an operator ("kafka-transactions.sh --bootstrap-server ... abort ..."), run. */
    public static Run runAsPrinted(String commandLine) throws IOException, InterruptedException {
        List<String> words = List.of(commandLine.trim().split(" +"));
        String mainClass = SCRIPTS.get(words.get(0));
        if (mainClass == null) {
            throw new IllegalArgumentException("no main class known for " + words.get(0) + " in: " + commandLine);
        }
        return run(mainClass, words.subList(1, words.size()).toArray(String[]::new));
    }

    public static Run run(String mainClass, String... args) throws IOException, InterruptedException {
        String classpathFile = System.getProperty("kafka.server.classpath.file", "target/kafka-server-4.4.0.classpath");
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "-cp", Files.readString(Path.of(classpathFile)).trim(), mainClass));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        process.getOutputStream().close();
        byte[] output = process.getInputStream().readAllBytes();
        if (!process.waitFor(120, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException(mainClass + " did not finish within 120 s");
        }
        return new Run(process.exitValue(), new String(output, StandardCharsets.UTF_8));
    }
}
