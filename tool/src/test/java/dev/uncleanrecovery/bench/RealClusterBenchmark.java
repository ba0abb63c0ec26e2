// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.bench;

import com.sun.management.OperatingSystemMXBean;
import dev.uncleanrecovery.cli.LogbackSetup;
import dev.uncleanrecovery.localcluster.ClusterBuilder;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.NodeRole;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;

/**
 * N offline partitions on a real Kafka 4.4.0 cluster ({@link ManyPartitionOutage}), recovered by one contender
 * per freshly broken cluster: Kafka's own {@code LeaderElectionCommand --election-type unclean
 * --all-topic-partitions}, or {@code kafka-unclean-recovery recover --automated-recovery --strategy proactive}.
 * Each runs as its own JVM; the benchmark measures it from outside and judges the result from what it produced.
 */
final class RealClusterBenchmark {

    /**
     * Kafka's own tool, this checkout's {@code recover}, and {@code baseline}: {@code recover} of another build (its
     * launcher given as {@code --baseline-script}), to compare two builds on the same outages, taking turns.
     */
    enum Contender {
        stock, tool, baseline;

        boolean isRecover() {
            return this != stock;
        }
    }

    /** Where {@code recover} comes from: the launcher, and the options its build does not know (left out). */
    record Launcher(Path script, List<List<String>> omitted) {
    }

    /**
     * @param heapMib   the tool's heap in use at most (its GC log), -1 for Kafka's tool
     * @param planBytes the tool's plan file, -1 for Kafka's tool
     * @param failure   what a contender that exited non-zero printed last, null otherwise
     * @param salvageFiles the files in the tool's salvage directory beside its plan, -1 when it made none (and for
     *                  Kafka's tool): a run with nothing to salvage makes none
     */
    record Row(int partitions, int topics, String contender, int exitCode, long wallMillis, long firstLedMillis,
               long medianLedMillis, long allLedMillis, long wrongLeaders, long leaderless, long recordsLostByLeader,
               long recordsLostByEndOffsets, long peakRssMib, long heapMib, long cpuMillis, long planBytes,
               long controllerRequests, String requests, String failure, long outageSetupMillis, long salvageFiles) {

        String line() {
            return String.format("| %,d (%d) | %s | %d | %,d | %s / %s / %s | %d | %d | %,d | %s | %d | %s | %,d | %s |"
                    + " %s | %,d | %s | %s |", partitions, topics, contender, exitCode, wallMillis,
                    millis(firstLedMillis), millis(medianLedMillis), millis(allLedMillis), wrongLeaders, leaderless,
                    recordsLostByLeader,
                    recordsLostByEndOffsets < 0 ? "unknown" : String.format("%,d", recordsLostByEndOffsets), peakRssMib,
                    heapMib < 0 ? "-" : String.format("%,d", heapMib), cpuMillis,
                    planBytes < 0 ? "-" : String.format("%.1f MB", planBytes / 1e6),
                    salvageFiles < 0 ? "none" : String.format("%,d files", salvageFiles), controllerRequests, requests,
                    failure == null ? "" : failure.replace("|", "\\|"));
        }

        private static String millis(long ms) {
            return ms < 0 ? "never" : String.format("%,d", ms);
        }

        static String header() {
            return "| partitions (topics) | contender | exit | wall ms | led ms: first / median / all | wrong leaders |"
                    + " leaderless | records lost (by leader) | records lost (end offsets) | peak RSS MiB | heap MiB |"
                    + " CPU ms | plan file | salvage directory | controller requests | requests sent (kind total"
                    + " {node:count}) | failed with |\n"
                    + "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|";
        }
    }

    private RealClusterBenchmark() {
    }

    static void run(Map<String, String> options) throws Exception {
        List<Integer> sizes = ints(options.getOrDefault("partitions", "1000"));
        List<Contender> contenders = options.getOrDefault("contenders", "stock,tool").lines()
                .flatMap(s -> List.of(s.split(",")).stream()).map(String::trim).map(Contender::valueOf).toList();
        Path script = Path.of(options.getOrDefault("script", "bin/kafka-unclean-recovery.sh")).toAbsolutePath();
        Launcher own = new Launcher(script, List.of());
        Launcher baseline = contenders.contains(Contender.baseline) ? new Launcher(Path.of(Optional.ofNullable(
                options.get("baseline-script")).orElseThrow(() -> new IllegalArgumentException(
                        "contender baseline needs --baseline-script PATH (another build's bin/kafka-unclean-recovery.sh)")))
                .toAbsolutePath(), options(options.getOrDefault("baseline-omit", ""))) : null;
        Path out = Path.of(options.getOrDefault("out", "target/bench")).toAbsolutePath();
        List<String> toolArgs = options.containsKey("tool-args") ? List.of(options.get("tool-args").trim().split("\\s+")) : List.of();
        Path agent = patchAgent(options);
        Files.createDirectories(out);
        if (contenders.contains(Contender.tool)) {
            ensureClassDataArchive(script);
        }
        if (baseline != null) {
            ensureClassDataArchive(baseline.script());
        }
        int runs = Integer.parseInt(options.getOrDefault("runs", "1"));
        Path results = out.resolve("real-cluster.md");
        List<Row> rows = new ArrayList<>();
        for (int n : sizes) {
            // The contenders take turns, so a slow spell of the machine falls on both rather than on one.
            for (int run = 1; run <= runs; run++) {
                for (Contender c : contenders) {
                    Path dir = out.resolve(c + "-" + n + (agent == null ? "" : "-patched")
                            + (toolArgs.isEmpty() || c == Contender.stock ? "" : "-args") + (runs == 1 ? "" : "-run" + run));
                    Launcher launcher = c == Contender.baseline ? baseline : own;
                    Row row = runOnFreshOutage(n, c, launcher, toolArgs, agent, dir);
                    rows.add(row);
                    System.out.println(Row.header());
                    rows.forEach(r -> System.out.println(r.line()));
                    Files.writeString(results, Instant.now() + " " + row.line() + "  (outage set-up "
                            + row.outageSetupMillis() + " ms)\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
                }
            }
        }
        if (runs > 1) {
            String summary = Medians.table(rows);
            System.out.println("\n" + summary);
            Files.writeString(results, Instant.now() + " medians of " + runs + " runs\n" + summary + "\n",
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        }
        System.out.println("\nresults appended to " + results);
    }

    private static Row runOnFreshOutage(int n, Contender c, Launcher launcher, List<String> toolArgs, Path agent,
                                        Path dir) throws Exception {
        try {
            return runOnce(n, c, launcher, toolArgs, agent, dir);
        } catch (OutageSetupFailed e) {
            // Seen twice in many runs: one partition's acks=all record never acknowledged on a fresh cluster.
            // The broken cluster's node logs are kept for a look; the measurement needs a cluster that works.
            System.out.println("  [" + c + " " + n + "] outage set-up failed (" + e.getMessage()
                    + "); node logs kept in " + e.nodeLogs + "; once more on a fresh cluster");
            return runOnce(n, c, launcher, toolArgs, agent, dir);
        }
    }

    private static Row runOnce(int partitions, Contender contender, Launcher launcher, List<String> toolArgs,
                               Path agent, Path dir) throws Exception {
        Files.createDirectories(dir);
        // The tool never overwrites a plan: a previous run's files would make this one fail.
        for (String previous : List.of("plan.json", "plan-result.json")) {
            Files.deleteIfExists(dir.resolve(previous));
        }
        deleteRecursively(dir.resolve(SALVAGE_DIRECTORY));
        try (LocalKafkaCluster cluster = cluster(agent, partitions).start(); Admin admin = cluster.createAdmin()) {
            long setupStart = System.nanoTime();
            List<ManyPartitionOutage.Outage> outage;
            List<String> topics = topics(partitions);
            try {
                outage = ManyPartitionOutage.reproduce(cluster, topics, partitions / topics.size(),
                        ManyPartitionOutage::assignment, ManyPartitionOutage.Writes.threeEpochs(),
                        s -> System.out.println("  [" + contender + " " + partitions + "] " + s));
            } catch (RuntimeException e) {
                throw new OutageSetupFailed(e, keepNodeLogs(cluster, dir.resolve("failed-setup-node-logs")));
            }
            long setupMillis = (System.nanoTime() - setupStart) / 1_000_000;
            String quiet = awaitQuietNodes(cluster);
            System.out.println("  [" + contender + " " + partitions + "] outage ready in " + setupMillis + " ms; " + quiet
                    + "; running " + contender);

            Path requestLog = dir.resolve("requests.log");
            Files.deleteIfExists(requestLog);
            List<String> command = new ArrayList<>(command(contender, cluster, launcher, dir));
            if (contender.isRecover()) {
                command.addAll(toolArgs);
            }
            LeaderWatch leaders = new LeaderWatch(cluster.bootstrapServers(), outagePartitions(outage));
            Thread watcher = new Thread(leaders::watch, "bench-leader-watch");
            watcher.setDaemon(true);
            // Our tool runs as operators run it: through bin/kafka-unclean-recovery.sh (its JVM flags, its class-data
            // archive), with its request log switched on through KAFKA_UNCLEAN_RECOVERY_OPTS (plus the environment's
            // BENCH_TOOL_OPTS, for profiling: BENCH_TOOL_OPTS=-Xlog:gc:file=/tmp/gc.log, say).
            // Its GC log gives the heap it used: the most in use before a collection, or at exit.
            Path gcLog = dir.resolve("tool-gc.log");
            Files.deleteIfExists(gcLog);
            Map<String, String> environment = contender.isRecover()
                    ? Map.of("KAFKA_UNCLEAN_RECOVERY_OPTS", ("-D" + LogbackSetup.REQUEST_LOG_PROPERTY + "=" + requestLog
                            + " -Xlog:gc,gc+heap+exit:file=" + gcLog + " "
                            + System.getenv().getOrDefault("BENCH_TOOL_OPTS", "")).strip())
                    : Map.of();
            // The leader watcher's describes of all N partitions (and their answers) share the cores with the contender.
            OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
            long benchCpuBefore = os.getProcessCpuTime();
            MeasuredProcess.Measurement m = MeasuredProcess.run(command, environment, dir.resolve(contender.name()), 600,
                    launch -> watcher.start());
            long benchCpuMs = (os.getProcessCpuTime() - benchCpuBefore) / 1_000_000;
            System.out.println("  [" + contender + " " + partitions + "] the benchmark's JVM (mostly its leader watcher,"
                    + " polling every live broker every " + LeaderWatch.INTERVAL_MS + " ms, and the contender's RSS"
                    + " sampling) used " + benchCpuMs
                    + " ms of CPU during the contender's " + m.wallMillis() + " ms");
            // A contender that failed may leave partitions leaderless for good: give the watcher a moment, not minutes.
            watcher.join(10_000);
            watcher.interrupt();
            watcher.join();
            long[] led = leaders.ledMillis(m.launchNanos());
            leaders.close();

            long wrong = 0;
            long leaderless = 0;
            long lostByLeader = 0;
            long lostByEnd = 0;
            for (ManyPartitionOutage.Outage o : outage) {
                for (TopicPartitionInfo p : ManyPartitionOutage.describe(admin, o.topic())) {
                    int leader = ManyPartitionOutage.leaderOf(p);
                    if (leader < 0) {
                        leaderless++;
                    } else if (leader != ManyPartitionOutage.LONGEST) {
                        wrong++;
                        lostByLeader += o.bestLogEndOffset(p.partition()) - o.logEndOffset(p.partition(), leader);
                    }
                }
            }
            // A leaderless partition has no end offset to read: the count is then unknown (-1), not waited for.
            for (ManyPartitionOutage.Outage o : outage) {
                long lost = leaderless > 0 ? -1 : lostByEndOffsets(admin, o);
                lostByEnd = lost < 0 || lostByEnd < 0 ? -1 : lostByEnd + lost;
            }
            Path plan = dir.resolve("plan.json");
            return new Row(partitions, topics.size(), contender + (contender.isRecover() && !toolArgs.isEmpty()
                    ? " " + String.join(" ", toolArgs) : "") + (agent == null ? "" : " (patched cluster)"), m.exitCode(),
                    m.wallMillis(), led[0], led[1], led[2], wrong, leaderless, lostByLeader, lostByEnd,
                    m.peakRssKib() / 1024, contender.isRecover() ? heapInUseMib(gcLog) : -1, m.cpuMillis(),
                    Files.exists(plan) ? Files.size(plan) : -1,
                    RequestLog.controllerRequests(RequestLog.count(requestLog)),
                    RequestLog.format(RequestLog.count(requestLog)),
                    m.exitCode() == 0 ? null : lastWords(m), setupMillis,
                    contender.isRecover() ? salvageFiles(dir.resolve(SALVAGE_DIRECTORY)) : -1);
        }
    }

    /**
     * {@code outage}: one freshly broken cluster, left running for manual runs and profiling (plan is read-only, so
     * it can be run again and again) until the file {@code <out>/outage.stop} appears; then everything is stopped.
     */
    static void hold(Map<String, String> options) throws Exception {
        int partitions = Integer.parseInt(options.getOrDefault("partitions", "1000"));
        Path out = Path.of(options.getOrDefault("out", "target/bench")).toAbsolutePath();
        Files.createDirectories(out);
        Path stop = out.resolve("outage.stop");
        Files.deleteIfExists(stop);
        try (LocalKafkaCluster cluster = cluster(patchAgent(options), partitions).start()) {
            List<String> topics = topics(partitions);
            ManyPartitionOutage.reproduce(cluster, topics, partitions / topics.size(), ManyPartitionOutage::assignment,
                    ManyPartitionOutage.Writes.threeEpochs(),
                    s -> System.out.println("  [outage " + partitions + "] " + s));
            Files.writeString(out.resolve("outage.bootstrap"), cluster.bootstrapServers() + "\n");
            System.out.println("outage ready: --bootstrap-server " + cluster.bootstrapServers() + " (also in "
                    + out.resolve("outage.bootstrap") + "); touch " + stop + " to stop it");
            while (!Files.exists(stop)) {
                Thread.sleep(500);
            }
        }
    }

    /**
     * {@code --patched true}: every node runs the kafka-patch agent, so the tool probes with GetReplicaLogInfo and
     * elects with ElectLeaders v3; Kafka's own tool is unaffected by the agent. Null for a stock cluster.
     */
    /**
     * Waits until the Kafka nodes are idle: brokers restarted uncleanly a moment ago still recover and load thousands
     * of logs, and whichever contender runs while they do answers slower, by a different amount each run (it made
     * the N = 5,000 ratio swing by ±0.5). Idle means the nodes together used less than a quarter of one core in
     * each of two consecutive seconds; at most 90 s. Says how long it took and how busy they were.
     */
    private static String awaitQuietNodes(LocalKafkaCluster cluster) throws Exception {
        long start = System.nanoTime();
        long ticksPerSecond = 100; // USER_HZ on Linux
        long last = nodeCpuTicks(cluster);
        int quietSeconds = 0;
        long lastUsed = 0;
        while (quietSeconds < 2 && System.nanoTime() - start < java.time.Duration.ofSeconds(90).toNanos()) {
            Thread.sleep(1000);
            long now = nodeCpuTicks(cluster);
            lastUsed = now - last;
            last = now;
            quietSeconds = lastUsed * 4 < ticksPerSecond ? quietSeconds + 1 : 0;
        }
        return String.format("nodes idle after %,d ms (%d%% of a core in the last second)",
                (System.nanoTime() - start) / 1_000_000, lastUsed * 100 / ticksPerSecond);
    }

    /** utime + stime of every running node's JVM, from /proc/PID/stat. */
    private static long nodeCpuTicks(LocalKafkaCluster cluster) throws java.io.IOException {
        long ticks = 0;
        for (int node : cluster.nodes().ids()) {
            java.util.OptionalLong pid = cluster.nodes().pid(node);
            if (pid.isEmpty()) {
                continue;
            }
            String stat = Files.readString(Path.of("/proc", Long.toString(pid.getAsLong()), "stat"));
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            ticks += Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
        }
        return ticks;
    }

    /** The outage could not be built on this cluster (the cluster is gone; its node logs were copied). */
    private static final class OutageSetupFailed extends Exception {
        final Path nodeLogs;

        OutageSetupFailed(RuntimeException cause, Path nodeLogs) {
            super(cause.getMessage(), cause);
            this.nodeLogs = nodeLogs;
        }
    }

    private static Path keepNodeLogs(LocalKafkaCluster cluster, Path into) throws java.io.IOException {
        Files.createDirectories(into);
        for (int node : cluster.nodes().ids()) {
            Path log = cluster.nodes().logFile(node);
            if (Files.exists(log)) {
                Files.copy(log, into.resolve("node-" + node + ".log"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        }
        return into;
    }

    private static Path patchAgent(Map<String, String> options) {
        return Boolean.parseBoolean(options.getOrDefault("patched", "false"))
                ? Path.of(options.getOrDefault("agent", "kafka-patch/target/kafka-unclean-recovery-agent.jar")).toAbsolutePath()
                : null;
    }

    /**
     * 1 controller + 3 brokers, with more heap for thousands of partitions, and the agent when given. The heap is
     * fixed from the start (-Xms = -Xmx, as kafka-server-start.sh sets it): from the harness's -Xms32m each growth
     * of the old generation costs a full collection, which can pause a broker in the middle of a measured run.
     */
    private static LocalKafkaCluster cluster(Path agent, int partitions) {
        // every broker holds a replica of each partition: 512 MiB serve 5,000, 1 GiB 10,500 (-Pscale), 2 GiB 19,500
        String broker = partitions <= 5_000 ? "512m" : partitions <= 10_500 ? "1g" : "2g";
        String controller = partitions <= 10_500 ? "256m" : "512m";
        ClusterBuilder builder = LocalKafkaCluster.builder().brokers(3)
                .startupTimeout(java.time.Duration.ofSeconds(240 + partitions / 100))
                .jvmArgs(NodeRole.BROKER, "-Xms" + broker, "-Xmx" + broker)
                .jvmArgs(NodeRole.CONTROLLER, "-Xms" + controller, "-Xmx" + controller);
        if (agent != null) {
            builder.javaAgent(agent, null, NodeRole.CONTROLLER, NodeRole.BROKER);
        }
        // For diagnosis, e.g. BENCH_NODE_OPTS="-Xlog:gc:file=/tmp/kafka-gc-%p.log": every node's JVM, after the rest.
        String nodeOpts = System.getenv().getOrDefault("BENCH_NODE_OPTS", "").strip();
        if (!nodeOpts.isEmpty()) {
            String[] flags = nodeOpts.split("\\s+");
            builder.jvmArgs(NodeRole.BROKER, flags).jvmArgs(NodeRole.CONTROLLER, flags);
        }
        return builder.build();
    }

    private static boolean isFresh(Path archive, Path jar) throws java.io.IOException {
        return Files.exists(archive) && Files.getLastModifiedTime(archive).compareTo(Files.getLastModifiedTime(jar)) > 0;
    }

    private static List<String> command(Contender contender, LocalKafkaCluster cluster, Launcher launcher, Path dir)
            throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return switch (contender) {
            // The flags of kafka-run-class.sh's small tools: C1 only, serial GC (and no kafka-run-class.sh start-up).
            case stock -> List.of(java, "-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                    "-Dlog4j2.configurationFile=" + RequestLog.writeLog4j2Config(dir, dir.resolve("requests.log")),
                    "-cp", Files.readString(Path.of(System.getProperty("kafka.server.classpath.file",
                            "target/kafka-server-4.4.0.classpath"))).trim(),
                    "org.apache.kafka.tools.LeaderElectionCommand", "--bootstrap-server", cluster.bootstrapServers(),
                    "--election-type", "unclean", "--all-topic-partitions");
            case tool, baseline -> without(List.of(launcher.script().toString(), "--bootstrap-server",
                    cluster.bootstrapServers(), "recover", "--accept-unknown-loss", "--automated-recovery", "--reason",
                    "test", "--strategy", "proactive", "--output-file", dir.resolve("plan.json").toString()),
                    launcher.omitted());
        };
    }

    /**
     * The command without each of {@code omitted}: an option an earlier build does not know, with its value if it
     * has one (its words in a row, as they are in the command).
     */
    static List<String> without(List<String> command, List<List<String>> omitted) {
        List<String> kept = new ArrayList<>(command);
        for (List<String> option : omitted) {
            int at = Collections.indexOfSubList(kept, option);
            if (at < 0) {
                throw new IllegalArgumentException("--baseline-omit " + String.join(" ", option) + " is not in the command "
                        + command);
            }
            kept.subList(at, at + option.size()).clear();
        }
        return kept;
    }

    /** {@code --baseline-omit '--reason test,--accept-unknown-loss'}: options separated by commas, words by spaces. */
    private static List<List<String>> options(String text) {
        return Arrays.stream(text.split(",")).filter(o -> !o.isBlank()).map(o -> List.of(o.trim().split("\\s+"))).toList();
    }

    /**
     * The bin script builds its class-data archive in the background on first use; a measured run must neither
     * pay for that nor run without it. Runs {@code --help} once and waits for the archive: in the user's cache
     * directory, named as the launcher names it for this jar and runtime, or beside the jar (earlier builds).
     */
    static void ensureClassDataArchive(Path script) throws Exception {
        Path home = script.toAbsolutePath().getParent().getParent();
        Path target = home.resolve("tool").resolve("target");
        Path jar = target.resolve("kafka-unclean-recovery.jar");
        Path out = Files.createDirectories(home.resolve("target").resolve("bench"));
        MeasuredProcess.run(List.of(script.toString(), "--help"), out.resolve("cds-warmup"), 300);
        List<Path> places = List.of(target, cacheDirectory());
        String cached = "kafka-unclean-recovery-" + launcherKey(jar) + "-";
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (freshArchive(places, cached, jar).isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(500);
        }
        if (freshArchive(places, cached, jar).isEmpty()) {
            System.out.println("  (no class-data archive in " + places + " after 2 minutes: measuring without it)");
        }
    }

    private static Path cacheDirectory() {
        String xdg = System.getenv("XDG_CACHE_HOME");
        return (xdg == null || xdg.isEmpty() ? Path.of(System.getProperty("user.home"), ".cache") : Path.of(xdg))
                .resolve("kafka-unclean-recovery");
    }

    /** The launcher's name for this jar and the {@code java} on the PATH, computed by the same shell commands. */
    private static String launcherKey(Path jar) throws Exception {
        Process p = new ProcessBuilder("sh", "-c", "printf '%s|%s' \"$1\" \"$(readlink -f \"$(command -v java)\")\""
                + " | cksum | cut -d ' ' -f 1", "key", jar.toString()).start();
        String key = new String(p.getInputStream().readAllBytes()).strip();
        p.waitFor();
        return key;
    }

    private static Optional<Path> freshArchive(List<Path> places, String cachedPrefix, Path jar)
            throws java.io.IOException {
        for (Path place : places) {
            if (!Files.isDirectory(place)) {
                continue;
            }
            try (var files = Files.list(place)) {
                for (Path f : files.toList()) {
                    String name = f.getFileName().toString();
                    if ((name.equals("kafka-unclean-recovery.jsa") || name.startsWith(cachedPrefix)) && name.endsWith(".jsa")
                            && isFresh(f, jar)) {
                        return Optional.of(f);
                    }
                }
            }
        }
        return Optional.empty();
    }

    private static java.util.Set<TopicPartition> outagePartitions(List<ManyPartitionOutage.Outage> outage) {
        java.util.Set<TopicPartition> partitions = new java.util.HashSet<>();
        outage.forEach(o -> {
            for (int p = 0; p < o.partitions(); p++) {
                partitions.add(new TopicPartition(o.topic(), p));
            }
        });
        return partitions;
    }

    /** Sum over partitions of (best surviving log end − end offset now), once the end offsets stop moving. */
    private static long lostByEndOffsets(Admin admin, ManyPartitionOutage.Outage outage) throws Exception {
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        for (int p = 0; p < outage.partitions(); p++) {
            request.put(new TopicPartition(outage.topic(), p), OffsetSpec.latest());
        }
        long previous = -1;
        for (int attempt = 0; attempt < 30; attempt++) {
            long lost = 0;
            try {
                Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends = admin.listOffsets(request,
                        new ListOffsetsOptions().timeoutMs(10_000)).all().get();
                for (Map.Entry<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> end : ends.entrySet()) {
                    lost += Math.max(0, outage.bestLogEndOffset(end.getKey().partition()) - end.getValue().offset());
                }
            } catch (ExecutionException e) {
                lost = -1; // some partition has no leader (yet)
            }
            if (lost >= 0 && lost == previous) {
                return lost;
            }
            previous = lost;
            Thread.sleep(500);
        }
        return previous;
    }

    /**
     * One topic "bench" up to 9,999 partitions, else the fewest topics of equal size under that: CreateTopics makes
     * at most 9,999 partitions a topic (the controller writes one record per partition and one for the topic, at most
     * 10,000 an operation).
     */
    static List<String> topics(int partitions) {
        int count = (partitions + 9_998) / 9_999;
        if (partitions % count != 0) {
            throw new IllegalArgumentException(partitions + " partitions do not split into " + count
                    + " topics of equal size under 10,000: choose a multiple of " + count);
        }
        return count == 1 ? List.of("bench") : java.util.stream.IntStream.range(0, count).mapToObj(i -> "bench-" + i).toList();
    }

    /** Where the tool puts what it salvages, beside its plan file {@code plan.json} (SalvageStore.besidePlan). */
    private static final String SALVAGE_DIRECTORY = "plan-salvage";

    /** The files under a salvage directory, -1 when there is none. */
    private static long salvageFiles(Path directory) throws java.io.IOException {
        if (!Files.exists(directory)) {
            return -1;
        }
        try (java.util.stream.Stream<Path> files = Files.walk(directory)) {
            return files.filter(Files::isRegularFile).count();
        }
    }

    private static void deleteRecursively(Path directory) throws java.io.IOException {
        if (!Files.exists(directory)) {
            return;
        }
        try (java.util.stream.Stream<Path> files = Files.walk(directory)) {
            for (Path file : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(file);
            }
        }
    }

    /** The heap the tool had in use at most, from its GC log; -1 when it left none. */
    static long heapInUseMib(Path gcLog) throws java.io.IOException {
        return Files.exists(gcLog) ? GcLog.read(gcLog).inUseMib() : -1;
    }

    /** The last line a failed contender printed that names an exception or an error (else its last line). */
    private static String lastWords(MeasuredProcess.Measurement m) throws java.io.IOException {
        List<String> lines = new ArrayList<>();
        for (Path output : new Path[] {m.stdout(), m.stderr()}) {
            if (output != null && Files.exists(output)) {
                Files.readAllLines(output).stream().map(String::strip).filter(l -> !l.isEmpty()).forEach(lines::add);
            }
        }
        String chosen = lines.stream().filter(l -> l.contains("Exception") || l.startsWith("error"))
                .reduce((first, second) -> second).orElse(lines.isEmpty() ? "" : lines.get(lines.size() - 1));
        return chosen.length() > 200 ? chosen.substring(0, 200) + " …" : chosen;
    }

    static List<Integer> ints(String csv) {
        return List.of(csv.split(",")).stream().map(String::trim).map(Integer::parseInt).toList();
    }
}
