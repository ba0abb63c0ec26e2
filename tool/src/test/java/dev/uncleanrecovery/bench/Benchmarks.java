// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The benchmarks' one entry point (not tests: the default build never runs them). Run with the {@code bench}
 * Maven profile, e.g. {@code mvn -B -Pbench -DskipTests verify -Dbench.args="real --partitions 1000"}.
 *
 * <pre>
 * real       [--partitions 1000,5000] [--contenders stock,tool]             real Kafka 4.4.0, a three-epoch outage
 *            [--patched true] [--tool-args '...']                   (patched: the kafka-patch agent on every node)
 *            [--runs 3]                     (each contender that often, taking turns, on fresh outages: medians)
 *            [--contenders tool,baseline --baseline-script DIR/bin/kafka-unclean-recovery.sh]  another build's recover
 *            [--baseline-omit '--reason test,--accept-unknown-loss']   (options the other build does not know)
 * outage     [--partitions 1000] [--patched true]        one broken cluster, kept until target/bench/outage.stop
 * startup    [--runs 5]                                                                    CLI start-up
 * simulated  [--brokers 60] [--partitions 100000] [--latency-ms 5]                         wire-protocol simulator
 * </pre>
 * Every benchmark prints a Markdown table and appends it to {@code target/bench/}.
 */
public final class Benchmarks {

    private Benchmarks() {
    }

    /** The JVM flags {@code bin/kafka-unclean-recovery.sh} runs the tool with, read from the script itself. */
    static List<String> toolJvmFlags() throws IOException {
        Path script = Path.of("bin", "kafka-unclean-recovery.sh");
        return Files.readAllLines(script).stream().filter(l -> l.startsWith("jvm_opts=("))
                .map(l -> l.substring("jvm_opts=(".length(), l.lastIndexOf(')')).trim())
                .map(flags -> List.of(flags.split("\\s+")))
                .findFirst().orElseThrow(() -> new IllegalStateException("no jvm_opts=( line in " + script));
    }

    /** The launcher's default heap bound ({@code heap_opts}), as an operator gets it. */
    static List<String> toolHeapFlags() throws IOException {
        Path script = Path.of("bin", "kafka-unclean-recovery.sh");
        String prefix = "heap_opts=\"${KAFKA_UNCLEAN_RECOVERY_HEAP_OPTS:-";
        return Files.readAllLines(script).stream().filter(l -> l.startsWith(prefix))
                .map(l -> l.substring(prefix.length(), l.lastIndexOf('}')).trim())
                .map(flags -> List.of(flags.split("\\s+")))
                .findFirst().orElseThrow(() -> new IllegalStateException("no heap_opts= line in " + script));
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 0) {
            System.err.println("usage: Benchmarks real|startup|simulated [--option value]...");
            return;
        }
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 1; i + 1 < args.length; i += 2) {
            options.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        }
        switch (args[0]) {
            case "real" -> RealClusterBenchmark.run(options);
            case "outage" -> RealClusterBenchmark.hold(options);
            case "startup" -> StartupBenchmark.run(options);
            case "simulated" -> SimulatedClusterBenchmark.run(options);
            default -> System.err.println("unknown benchmark " + args[0] + "; pick real, startup or simulated");
        }
    }
}
