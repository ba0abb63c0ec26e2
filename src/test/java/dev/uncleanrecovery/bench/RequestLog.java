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
 * Counts the requests a client JVM sent, by kind and by node, from kafka-clients' own NetworkClient DEBUG line
 * ("Sending LIST_OFFSETS request with header ... to node 2: ..."): the same counter for our tool (logback) and
 * for Kafka's LeaderElectionCommand (log4j2), without touching either. Negative node ids are bootstrap
 * connections. Lines carry the time, to see how long each step took.
 */
final class RequestLog {

    private static final Pattern SENDING = Pattern.compile("Sending (\\w+) request with header .*? and timeout \\d+ to node (-?\\d+)");

    private RequestLog() {
    }

    /**
     * logback configuration for our tool: NetworkClient, and our raw channel (GetReplicaLogInfo, ElectLeaders v3), at
     * DEBUG to {@code file}; everything else as usual to stderr.
     */
    static Path writeLogbackConfig(Path dir, Path file) throws IOException {
        Path config = dir.resolve("bench-logback.xml");
        Files.writeString(config, """
                <configuration>
                  <appender name="REQUESTS" class="ch.qos.logback.core.FileAppender">
                    <file>%s</file>
                    <encoder><pattern>%%d{HH:mm:ss.SSS} %%msg%%n</pattern></encoder>
                  </appender>
                  <appender name="STDERR" class="ch.qos.logback.core.ConsoleAppender">
                    <target>System.err</target>
                    <encoder><pattern>%%level %%logger{20} - %%msg%%n</pattern></encoder>
                  </appender>
                  <logger name="org.apache.kafka.clients.NetworkClient" level="DEBUG" additivity="false">
                    <appender-ref ref="REQUESTS"/>
                  </logger>
                  <logger name="dev.uncleanrecovery.cluster.BrokerRawChannels" level="DEBUG" additivity="false">
                    <appender-ref ref="REQUESTS"/>
                  </logger>
                  <root level="WARN"><appender-ref ref="STDERR"/></root>
                </configuration>
                """.formatted(file));
        return config;
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
}
