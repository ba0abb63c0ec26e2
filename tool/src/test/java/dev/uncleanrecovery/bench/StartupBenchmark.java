// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.bench;

import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * CLI start-up as an operator sees it: {@code bin/kafka-unclean-recovery.sh --help}, and {@code status} against
 * a live local 3-broker cluster, each run {@code --runs} times, once the launcher's class-data archive exists (the
 * first run after an install or a build records it in the background, and runs without it meanwhile).
 */
final class StartupBenchmark {

    private StartupBenchmark() {
    }

    static void run(Map<String, String> options) throws Exception {
        int runs = Integer.parseInt(options.getOrDefault("runs", "5"));
        Path script = Path.of(options.getOrDefault("script", "bin/kafka-unclean-recovery.sh")).toAbsolutePath();
        Path out = Path.of(options.getOrDefault("out", "target/bench")).toAbsolutePath();
        Files.createDirectories(out);
        List<String> lines = new ArrayList<>();
        lines.add("| command | runs (wall ms, in order) | median ms | min ms | peak RSS MiB (max) |");
        lines.add("|---|---|---|---|---|");
        RealClusterBenchmark.ensureClassDataArchive(script);
        lines.add(measure("--help", List.of(script.toString(), "--help"), runs, out));
        try (LocalKafkaCluster cluster = LocalKafkaCluster.builder().brokers(3).build().start()) {
            lines.add(measure("status (3 brokers, live)", List.of(script.toString(), "--bootstrap-server",
                    cluster.bootstrapServers(), "status"), runs, out));
        }
        lines.forEach(System.out::println);
        Files.writeString(out.resolve("startup.md"), Instant.now() + "\n" + String.join("\n", lines) + "\n",
                StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    private static String measure(String name, List<String> command, int runs, Path out) throws Exception {
        List<Long> walls = new ArrayList<>();
        long rss = 0;
        for (int i = 0; i < runs; i++) {
            MeasuredProcess.Measurement m = MeasuredProcess.run(command, out.resolve("startup-" + i), 120);
            if (m.exitCode() != 0) {
                throw new IllegalStateException(name + " exited " + m.exitCode() + "; see " + m.stderr());
            }
            walls.add(m.wallMillis());
            rss = Math.max(rss, m.peakRssKib() / 1024);
        }
        long[] values = walls.stream().mapToLong(Long::longValue).toArray();
        return String.format("| `%s` | %s | %d | %d | %d |", name, walls, Medians.median(values),
                Arrays.stream(values).min().orElseThrow(), rss);
    }
}
