// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Counts the requests a client JVM sent, by kind and by node, from its request log: kafka-clients' NetworkClient DEBUG
 * line ("Sending ELECT_LEADERS request with header ... and timeout 30000 to node 2: {body}") for Kafka's
 * LeaderElectionCommand (log4j2) and for our tool's Admin, and the same words without the body from our tool's own
 * broker connections and raw channels (its request log, {@code -Dkafka.unclean.recovery.request.log}): bodies would be
 * megabytes of text per recovery of thousands of partitions, formatted on the thread that waits for the answers.
 * Negative node
 * ids are bootstrap connections; NetworkClient's own ApiVersions handshakes are counted for kafka-clients' clients
 * only. Lines carry the time, to see how long each step took.
 */
final class RequestLog {

    private static final Pattern SENDING = Pattern.compile("Sending (\\w+) request with header .*? and timeout \\d+ to node (-?\\d+)");

    private RequestLog() {
    }

    /** log4j2 configuration for Kafka's own tools, the same idea. */
    static Path writeLog4j2Config(Path dir, Path file) throws IOException {
        Path config = dir.resolve("bench-log4j2.properties");
        Files.writeString(config, """
                status = warn
                appender.requests.type = File
                appender.requests.name = REQUESTS
                appender.requests.fileName = %s
                appender.requests.layout.type = PatternLayout
                appender.requests.layout.pattern = %%d{HH:mm:ss.SSS} %%m%%n
                appender.stderr.type = Console
                appender.stderr.name = STDERR
                appender.stderr.target = SYSTEM_ERR
                appender.stderr.layout.type = PatternLayout
                appender.stderr.layout.pattern = %%p %%c{1} - %%m%%n
                logger.net.name = org.apache.kafka.clients.NetworkClient
                logger.net.level = DEBUG
                logger.net.additivity = false
                logger.net.appenderRef.requests.ref = REQUESTS
                rootLogger.level = WARN
                rootLogger.appenderRef.stderr.ref = STDERR
                """.formatted(file));
        return config;
    }

    /** kind → node → count, sorted. */
    static Map<String, Map<Integer, Integer>> count(Path file) throws IOException {
        Map<String, Map<Integer, Integer>> counts = new TreeMap<>();
        if (!Files.exists(file)) {
            return counts;
        }
        try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                Matcher m = SENDING.matcher(line);
                if (m.find()) {
                    counts.computeIfAbsent(m.group(1), k -> new TreeMap<>()).merge(Integer.parseInt(m.group(2)), 1, Integer::sum);
                }
            }
        }
        return counts;
    }

    static String format(Map<String, Map<Integer, Integer>> counts) {
        StringBuilder sb = new StringBuilder();
        counts.forEach((kind, byNode) -> {
            int total = byNode.values().stream().mapToInt(Integer::intValue).sum();
            sb.append(sb.length() == 0 ? "" : "; ").append(kind).append(' ').append(total);
            if (byNode.size() > 1 || byNode.keySet().stream().anyMatch(n -> n >= 0)) {
                sb.append(' ').append(byNode.toString().replace('=', ':'));
            }
        });
        return sb.toString();
    }

    /**
     * The requests that go to the controller (a broker forwards them in KRaft): the elections, the reorders and their
     * restores, the run lock's topic made and removed.
     */
    static long controllerRequests(Map<String, Map<Integer, Integer>> counts) {
        return java.util.stream.Stream.of("ELECT_LEADERS", "ALTER_PARTITION_REASSIGNMENTS", "CREATE_TOPICS",
                        "DELETE_TOPICS").map(kind -> counts.getOrDefault(kind, Map.of()))
                .flatMap(byNode -> byNode.values().stream()).mapToLong(Integer::longValue).sum();
    }
}
