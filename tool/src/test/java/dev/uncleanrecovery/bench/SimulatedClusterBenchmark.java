// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.bench;

import dev.uncleanrecovery.probe.ProbeSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Scale beyond this machine: {@code --brokers} simulated brokers ({@link SimulatedBroker}, real wire protocol,
 * {@code --latency-ms} per answer) holding {@code --partitions} partitions × RF 3, probed by the tool's real
 * probe in its own JVM capped at {@code --heap-mib} ({@link SimulatedProbeDriver}).
 *
 * <p>Lower bound: every answer costs one latency, a batch of ≤1000 partitions needs ceil(log2(epoch + 3))
 * sequential round trips (ListOffsets rides along the first Fetch), and a broker has at most
 * maxInFlightBatchesPerBroker batches in flight — so the busiest broker needs
 * ceil(batches / inFlight) × roundsPerBatch sequential latencies.
 */
final class SimulatedClusterBenchmark {

    private SimulatedClusterBenchmark() {
    }

    static void run(Map<String, String> options) throws Exception {
        int brokerCount = Integer.parseInt(options.getOrDefault("brokers", "60"));
        int partitions = Integer.parseInt(options.getOrDefault("partitions", "100000"));
        long latencyMs = Long.parseLong(options.getOrDefault("latency-ms", "20"));
        int heapMib = Integer.parseInt(options.getOrDefault("heap-mib", "512"));
        Path jar = Path.of(options.getOrDefault("jar", "tool/target/kafka-unclean-recovery.jar")).toAbsolutePath();
        Path out = Path.of(options.getOrDefault("out", "target/bench")).toAbsolutePath();
        Files.createDirectories(out);

        SimulatedLayout layout = new SimulatedLayout(brokerCount, partitions);
        List<SimulatedBroker> brokers = new ArrayList<>();
        try {
            List<String> lines = new ArrayList<>();
            for (int id = 1; id <= brokerCount; id++) {
                SimulatedBroker b = new SimulatedBroker(id, latencyMs);
                brokers.add(b);
                lines.add(id + " " + b.port());
            }
            Path brokersFile = out.resolve("simulated-brokers.txt");
            Files.write(brokersFile, lines);

            String javaBinary = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            // Class-data sharing maps jars only, so the driver's classes go into a jar of their own.
            String classpath = driverJar(out) + java.io.File.pathSeparator + jar;
            // The bin script's JVM flags by default; --driver-opts replaces them (e.g. "-XX:+UseParallelGC" for C2 too).
            List<String> flags = options.containsKey("driver-opts")
                    ? List.of(options.get("driver-opts").trim().split("\\s+")) : Benchmarks.toolJvmFlags();
            // A warm-up probe first: the simulator's JVM loads and JIT-compiles kafka-clients' message classes,
            // which on a busy machine takes seconds that are not the tool's. With the bin script's flags it also
            // records the class-data archive the measured run maps, as the bin script's own archive does for the
            // tool (the driver's class path differs from the tool's jar, so the tool's archive cannot be used).
            Path archive = out.resolve("simulated-driver.jsa");
            Files.deleteIfExists(archive);
            List<String> warmup = new ArrayList<>(List.of(javaBinary));
            if (!options.containsKey("driver-opts")) {
                warmup.addAll(flags);
                warmup.addAll(List.of("-XX:ArchiveClassesAtExit=" + archive, "-Xlog:cds=off", "-Xlog:cds+dynamic=off"));
            }
            warmup.addAll(List.of("-cp", classpath, SimulatedProbeDriver.class.getName(), brokersFile.toString(),
                    String.valueOf(Math.min(partitions, 2000))));
            MeasuredProcess.run(warmup, out.resolve("simulated-warmup"), 600);
            brokers.forEach(b -> b.requests.set(0));
            List<String> driver = new ArrayList<>(List.of(javaBinary, "-Xmx" + heapMib + "m"));
            driver.addAll(flags);
            if (Files.exists(archive) && Files.size(archive) > 0) {
                driver.addAll(List.of("-XX:SharedArchiveFile=" + archive, "-Xlog:cds=off", "-Xlog:cds+dynamic=off"));
            }
            driver.addAll(List.of("-cp", classpath));
            String driverLogback = System.getProperty("bench.driver.logback");
            if (driverLogback != null) {
                driver.add(2, "-Dlogback.configurationFile=" + driverLogback); // to debug the driver's client
            }
            String histogram = System.getProperty("bench.histogram");
            if (histogram != null) {
                driver.add(2, "-Dbench.histogram=" + histogram); // the live heap by class, with the plan kept
            }
            driver.addAll(List.of(SimulatedProbeDriver.class.getName(), brokersFile.toString(), String.valueOf(partitions)));
            // The simulated brokers share this machine's cores with the probe: their CPU is part of the picture.
            com.sun.management.OperatingSystemMXBean os =
                    (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
            long simulatorCpuBefore = os.getProcessCpuTime();
            MeasuredProcess.Measurement m = MeasuredProcess.run(driver, out.resolve("simulated-driver"), 600);
            long simulatorCpuMillis = (os.getProcessCpuTime() - simulatorCpuBefore) / 1_000_000;
            String result = Files.readAllLines(m.stdout()).stream().filter(l -> l.startsWith("RESULT")).findFirst()
                    .orElseThrow(() -> new IllegalStateException("the driver printed no result (exit " + m.exitCode()
                            + "); see " + m.stderr()));
            Map<String, String> r = new HashMap<>();
            for (String kv : result.substring("RESULT ".length()).split(" ")) {
                r.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
            }

            ProbeSettings settings = ProbeSettings.defaults();
            int roundsPerBatch = roundsPerBatch(SimulatedLayout.METADATA_EPOCH);
            int[] replicasPerBroker = new int[brokerCount + 1];
            for (int t = 0; t < layout.topics(); t++) {
                for (int p = 0; p < layout.partitionsOf(t); p++) {
                    for (int k = 0; k < SimulatedLayout.REPLICATION; k++) {
                        replicasPerBroker[layout.replica(t, p, k)]++;
                    }
                }
            }
            int busiest = java.util.Arrays.stream(replicasPerBroker).max().orElse(0);
            int batches = (busiest + settings.maxPartitionsPerRequest() - 1) / settings.maxPartitionsPerRequest();
            int waves = (batches + settings.maxInFlightBatchesPerBroker() - 1) / settings.maxInFlightBatchesPerBroker();
            long lowerBoundMs = latencyMs * waves * roundsPerBatch;
            long minRequests = 0;
            for (int b = 1; b <= brokerCount; b++) {
                long bb = (replicasPerBroker[b] + settings.maxPartitionsPerRequest() - 1) / settings.maxPartitionsPerRequest();
                minRequests += bb * (1 + roundsPerBatch);
            }
            long served = brokers.stream().mapToLong(b -> b.requests.get()).sum();
            long elapsed = Long.parseLong(r.get("elapsedMs"));
            String table = String.join("\n",
                    "| brokers | partitions × RF | latency ms | probe wall ms | lower bound ms (rounds) | ratio"
                            + " | probe CPU ms | probe GCs (GC ms)"
                            + " | replicas right / wrong | requests (ListOffsets + Fetch) | minimum requests | frames served"
                            + " | peak heap MiB (sum of pool peaks) | live heap with result MiB | -Xmx | driver JVM wall ms"
                            + " | driver peak RSS MiB | driver CPU ms | simulator CPU ms (cores)"
                            + " | plan: decide + write ms (write) | plan peak heap MiB | live heap with plan MiB"
                            + " | plan file MiB (elected) |",
                    "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
                    String.format("| %d | %,d × 3 | %d | %,d | %,d (%d) | %.2f | %s | %s (%s) | %s / %s | %s (%s + %s) | %,d | %,d | %s | %s | %d MiB"
                                    + " | %,d | %d | %,d | %,d (%d) | %s (%s) | %s | %s | %s (%s) |", brokerCount, partitions, latencyMs, elapsed, lowerBoundMs,
                            waves * roundsPerBatch, elapsed / (double) lowerBoundMs, r.get("probeCpuMs"), r.get("probeGcs"),
                            r.get("probeGcMs"), r.get("replicasOk"),
                            r.get("replicasWrong"), r.get("requests"), r.get("listOffsets"), r.get("fetch"), minRequests,
                            served, r.get("peakHeapMiB"), r.get("liveHeapWithResultMiB"), heapMib, m.wallMillis(),
                            m.peakRssKib() / 1024, m.cpuMillis(), simulatorCpuMillis, Runtime.getRuntime().availableProcessors(),
                            r.get("planMs"), r.get("planWriteMs"), r.get("planPeakHeapMiB"), r.get("liveHeapWithPlanMiB"),
                            r.get("planMiB"), r.get("elected")));
            System.out.println(table);
            Files.writeString(out.resolve("simulated.md"), Instant.now() + "\n" + table + "\n",
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } finally {
            for (SimulatedBroker b : brokers) {
                b.close();
            }
        }
    }

    /** Round trips of the DivergingEpoch bisection over [-1, epoch + 2). */
    /** The driver and the layout it shares with the simulator, as a jar next to the results. */
    private static Path driverJar(Path out) throws Exception {
        Path classes = Path.of(SimulatedProbeDriver.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path bench = classes.resolve(SimulatedProbeDriver.class.getPackageName().replace('.', '/'));
        Path driverJar = out.resolve("simulated-driver.jar");
        try (var stream = Files.newDirectoryStream(bench, "Simulated*.class");
             var jarOut = new java.util.jar.JarOutputStream(Files.newOutputStream(driverJar))) {
            for (Path c : stream) {
                jarOut.putNextEntry(new java.util.jar.JarEntry(classes.relativize(c).toString().replace('\\', '/')));
                Files.copy(c, jarOut);
                jarOut.closeEntry();
            }
        }
        return driverJar;
    }

    static int roundsPerBatch(int metadataEpoch) {
        int rounds = 0;
        for (int width = metadataEpoch + 3; width > 1; width = (width + 1) / 2) {
            rounds++;
        }
        return rounds;
    }
}
