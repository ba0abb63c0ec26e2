// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import dev.uncleanrecovery.cli.CliRun;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.NodeNetwork;
import dev.uncleanrecovery.localcluster.PartitionView;
import dev.uncleanrecovery.localcluster.StopMode;
import dev.uncleanrecovery.formats.Json;
import dev.uncleanrecovery.salvage.SalvageDirectory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * One seed of the fault-injection suite: a fresh cluster of three controllers and four brokers, the clients writing
 * while the seed's faults land, an outage that leaves partitions offline, the oracle read from every broker's disk,
 * then the same broken state recovered twice — by the tool and by Kafka's own unclean election — and judged.
 *
 * <p>The same state twice: once the outage has formed, every node is killed (-9) and its log dir copied; each
 * recovery starts from those copies (the controllers and the brokers that were up, restarted uncleanly), so both
 * recoveries begin with byte-identical disks and metadata logs.
 */
final class ChaosTrial {

    /** How the tool recovers, by seed: every path of the runbook gets a third of the seeds. */
    enum ToolPath { RECOVER_BALANCED, RECOVER_PROACTIVE, PLAN_INSPECT_EXECUTE }

    static final String RF3 = "chaos-rf3";
    static final String RF2 = "chaos-rf2";
    static final String COMPACTED = "chaos-compacted";
    static final String TRANSACTIONAL = "chaos-txn";
    static final String SALVAGED = "chaos-salvaged";
    static final Set<String> TOPICS = Set.of(RF3, RF2, COMPACTED, TRANSACTIONAL);
    static final List<Integer> BROKERS = List.of(1, 2, 3, 4);

    private static final Duration SETTLE = Duration.ofSeconds(4);
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(60);

    private final long seed;
    private final Path dir;
    private final boolean shortRun;
    private final boolean network;
    private final Consumer<String> log;
    /** Per consumer group of the workload, the records it read before the outage ({@link Workload#readBy}). */
    private final Map<String, Set<String>> groupsRead = new HashMap<>();
    /** Per group, the records it read whose commit got no answer ({@link Workload#uncertainFor}): not judged. */
    private final Map<String, Set<String>> groupsUncertain = new HashMap<>();
    private final Map<String, Map<Integer, List<Integer>>> assignments = new LinkedHashMap<>();
    private boolean oracleLogged;
    /**
     * The leader of each partition that had one once the broken state was started again: Kafka had already failed
     * those over, and their other replicas truncate to it whatever the recovery does.
     */
    private final Map<TopicPartition, Integer> ledAtRestore = new HashMap<>();

    /** @param network every node a host of its own, and network faults among the seed's (docs/chaos.md) */
    ChaosTrial(long seed, Path dir, boolean shortRun, boolean network, Consumer<String> log) {
        this.seed = seed;
        this.dir = dir;
        this.shortRun = shortRun;
        this.network = network;
        this.log = log;
    }

    static ToolPath toolPath(long seed) {
        return ToolPath.values()[(int) Math.floorMod(seed, 3L)];
    }

    TrialOutcome run() throws Exception {
        FaultSchedule schedule = FaultSchedule.of(seed, BROKERS, shortRun, network);
        log.accept("schedule: " + schedule.describe());
        chooseAssignments();
        LocalKafkaCluster cluster = LocalKafkaCluster.builder().brokers(BROKERS.size()).controllers(3)
                .network(network ? NodeNetwork.HOSTS : NodeNetwork.LOOPBACK)
                .baseDirectory(dir.resolve("cluster")).build();
        try (cluster) {
            cluster.start();
            createTopics(cluster);
            List<Workload.AckedWrite> acked;
            try (Workload workload = new Workload(cluster, seed, plainPartitions(), partitionsOf(TRANSACTIONAL))) {
                workload.start();
                sleep(shortRun ? 2_000 : 4_000);
                schedule.injectFaults(cluster, allPartitions(), log);
                schedule.driveOffline(cluster, log);
                workload.stopWriting();
                workload.stopReading();
                acked = workload.acknowledged();
                Workload.GROUPS.forEach(g -> {
                    groupsRead.put(g, workload.readBy(g));
                    groupsUncertain.put(g, workload.uncertainFor(g));
                });
                log.accept("acknowledged writes: " + acked.size() + "; consumed " + Workload.GROUPS.stream()
                        .map(g -> g + " " + workload.consumedBy(g)).toList());
            }
            log.accept("unclean restart of brokers " + schedule.restartedBehind());
            cluster.startBrokers(schedule.restartedBehind());
            sleep(SETTLE.toMillis());
            killAll(cluster);
            Path snapshot = dir.resolve("snapshot");
            for (int node : cluster.nodes().ids()) {
                copyTree(cluster.logDir(node), snapshot.resolve(Integer.toString(node)));
            }
            // the oracle reads the snapshot while the tool's recovery runs on copies of it
            CompletableFuture<Oracle> reading = CompletableFuture.supplyAsync(() -> {
                try {
                    return Oracle.read(snapshot, BROKERS, schedule.deadBroker(), dir.resolve("oracle-scratch"), acked);
                } catch (Exception e) {
                    throw new CompletionException(e);
                }
            });
            Recovery tool = recoverWithTool(cluster, schedule, snapshot, reading);
            Oracle oracle = oracle(reading);
            if (tool.offline().isEmpty()) {
                return TrialOutcome.notATrial(seed, oracle, "no partition of the test topics was offline");
            }
            Recovery kafka = recoverWithKafka(cluster, schedule, snapshot, oracle);
            return TrialOutcome.judge(seed, toolPath(seed), schedule, oracle, Map.copyOf(ledAtRestore), tool, kafka);
        }
    }

    /** What one recovery of the broken state left: the partitions' records afterwards, and what the checks found. */
    record Recovery(List<TopicPartition> offline, int elected, Map<TopicPartition, Map<Long, String>> after,
                    Set<String> salvaged, Set<String> replayed, List<String> violations, List<String> notes) {
    }

    /** The oracle once read; its failure (the tool's reader and Kafka's loading disagree) fails the trial. */
    private Oracle oracle(CompletableFuture<Oracle> reading) throws Exception {
        try {
            Oracle oracle = reading.join();
            if (!oracleLogged) {
                oracleLogged = true;
                log.accept("oracle: " + oracle.describe());
            }
            return oracle;
        } catch (CompletionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }

    private Recovery recoverWithTool(LocalKafkaCluster cluster, FaultSchedule schedule, Path snapshot,
                                     CompletableFuture<Oracle> reading) throws Exception {
        List<TopicPartition> offline = restore(cluster, schedule, snapshot);
        List<String> violations = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        if (offline.isEmpty()) {
            return new Recovery(offline, 0, Map.of(), Set.of(), Set.of(), violations, notes);
        }
        Path work = Files.createDirectories(dir.resolve("tool"));
        int dead = schedule.deadBroker();
        String bootstrap = cluster.bootstrapServers();
        Path evidence = work.resolve("evidence-broker-" + dead + ".json");
        boolean diskSurvives = !schedule.deadDiskLost();
        List<String> evidenceArgs = List.of();
        if (diskSurvives) {
            expectExit(violations, "inspect", CliRun.of("inspect", "--log-dir", cluster.logDir(dead).toString(),
                    "--output-file", evidence.toString()), 0);
            evidenceArgs = List.of("--evidence", evidence.toString());
        }
        ToolPath path = toolPath(seed);
        log.accept("tool: " + path + " on " + offline.size() + " offline partitions " + offline);
        List<String> accept = diskSurvives ? List.of() : List.of("--accept-unknown-loss");
        List<Path> plans = new ArrayList<>();
        switch (path) {
            case RECOVER_BALANCED, RECOVER_PROACTIVE -> {
                String strategy = path == ToolPath.RECOVER_BALANCED ? "balanced" : "proactive";
                recover(cluster, work.resolve("plan.json"), strategy, evidenceArgs, accept, violations);
                plans.add(work.resolve("plan.json"));
                if (path == ToolPath.RECOVER_BALANCED && !offlineNow(cluster).isEmpty()) {
                    // the runbook: balanced waits for a last leader that will not come back; plan again proactive
                    log.accept("  still offline after balanced: " + offlineNow(cluster) + "; recover proactive");
                    recover(cluster, work.resolve("plan-proactive.json"), "proactive", evidenceArgs, accept, violations);
                    plans.add(work.resolve("plan-proactive.json"));
                }
                if (diskSurvives && !offlineNow(cluster).isEmpty()) {
                    // what the refusal says: copy the dead broker's doomed records off its disk into the plan's
                    // salvage directory, then execute the plan again
                    Path plan = plans.get(plans.size() - 1);
                    expectExit(violations, "inspect --salvage-beyond " + plan.getFileName(), CliRun.of("inspect",
                            "--log-dir", cluster.logDir(dead).toString(), "--salvage-beyond", plan.toString()), 0, 3);
                    execute(cluster, plan, secondResultOf(plan), accept, violations);
                }
            }
            case PLAN_INSPECT_EXECUTE -> {
                Path plan = work.resolve("plan.json");
                plans.add(plan);
                List<String> args = new ArrayList<>(List.of("--bootstrap-server", bootstrap, "plan", "--strategy",
                        "proactive", "--probe-timeout-ms", "5000", "--output-file", plan.toString()));
                args.addAll(evidenceArgs);
                expectExit(violations, "plan", CliRun.of(args.toArray(String[]::new)), 0, 3);
                if (diskSurvives) {
                    // the runbook: into the plan's salvage directory, where execute finds the copies
                    expectExit(violations, "inspect --salvage-beyond", CliRun.of("inspect", "--log-dir",
                            cluster.logDir(dead).toString(), "--salvage-beyond", plan.toString()), 0, 3);
                }
                execute(cluster, plan, resultOf(plan), accept, violations);
            }
        }
        Map<TopicPartition, PartitionView> afterTool = views(cluster);
        int elected = (int) offline.stream().filter(tp -> !afterTool.get(tp).isLeaderless()).count();
        log.accept("  the tool led " + elected + " of " + offline.size() + " offline partitions");
        // the results the recovery wrote, listed first: consumer-offsets --execute writes the next free name
        List<Path> results = plans.stream().flatMap(plan -> Stream.of(resultOf(plan), secondResultOf(plan)))
                .filter(Files::exists).toList();
        Map<String, Map<TopicPartition, OffsetAndMetadata>> committedBefore = committedOffsets(cluster, notes);
        for (Path result : results) {
            resetConsumerOffsets(bootstrap, result, violations);
        }
        Set<String> resetToLeadersHighWatermark = resetsToLeadersHighWatermark(plans);
        bringBackDead(cluster, schedule);
        Map<TopicPartition, Map<Long, String>> after = readAll(cluster, led(cluster));

        Set<String> salvaged = new HashSet<>();
        Set<String> replayed = new HashSet<>();
        for (Path plan : plans) {
            if (hasManifest(salvageOf(plan))) {
                salvaged.addAll(salvagedValues(salvageOf(plan)));
            }
        }
        if (!salvaged.isEmpty()) {
            createTopic(cluster, SALVAGED, Map.of(0, List.of(1, 2, 3), 1, List.of(2, 3, 4), 2, List.of(3, 4, 1),
                    3, List.of(4, 1, 2)), Map.of());
            for (Path plan : plans) {
                if (hasManifest(salvageOf(plan))) {
                    // every run of the plan that salvaged into its directory, the copies off the dead disk included
                    List<String> replay = new ArrayList<>(List.of("--bootstrap-server", bootstrap, "replay",
                            "--salvage-dir", salvageOf(plan).toString(), "--to-topic", SALVAGED, "--execute", "--reason", "test"));
                    for (Path result : List.of(resultOf(plan), secondResultOf(plan))) {
                        if (Files.exists(result)) {
                            replay.addAll(List.of("--result-file", result.toString()));
                        }
                    }
                    if (!replay.contains("--result-file")) {
                        replay.add("--without-result");
                    }
                    expectExit(violations, "replay " + salvageOf(plan).getFileName(),
                            CliRun.of(replay.toArray(String[]::new)), 0);
                }
            }
            List<TopicPartition> target = List.of(new TopicPartition(SALVAGED, 0), new TopicPartition(SALVAGED, 1),
                    new TopicPartition(SALVAGED, 2), new TopicPartition(SALVAGED, 3));
            readAll(cluster, target).values().forEach(values -> replayed.addAll(values.values()));
        }

        // no replica order the tool changed, no journal left behind
        assignments.forEach((topic, replicas) -> replicas.forEach((p, order) -> {
            List<Integer> now = afterTool.get(new TopicPartition(topic, p)).replicas();
            if (!order.equals(now)) {
                violations.add(topic + "-" + p + " has replica order " + now + " after the tool, created as " + order);
            }
        }));
        try (Stream<Path> files = Files.list(work)) {
            files.filter(f -> f.getFileName().toString().contains("journal")).forEach(f ->
                    violations.add("a journal was left behind: " + f.getFileName()));
        }
        Oracle oracle = oracle(reading);
        for (Path plan : plans) {
            checkPlannedLoss(plan, oracle, afterTool, after, violations, notes);
        }
        checkGroupPositions(cluster, after, committedBefore, resetToLeadersHighWatermark, violations, notes);
        return new Recovery(offline, elected, after, salvaged, replayed, violations, notes);
    }

    private Recovery recoverWithKafka(LocalKafkaCluster cluster, FaultSchedule schedule, Path snapshot, Oracle oracle)
            throws Exception {
        killAll(cluster);
        List<TopicPartition> offline = restore(cluster, schedule, snapshot);
        List<String> notes = new ArrayList<>();
        Set<TopicPartition> everyOffline = offlineEverywhere(cluster);
        log.accept("Kafka's unclean election on " + everyOffline);
        if (!everyOffline.isEmpty()) {
            try (Admin admin = cluster.createAdmin()) {
                admin.electLeaders(ElectionType.UNCLEAN, everyOffline).partitions().get()
                        .forEach((tp, error) -> error.ifPresent(e -> notes.add("Kafka did not elect " + tp + ": " + e)));
            } catch (ExecutionException e) {
                notes.add("Kafka's unclean election failed: " + e.getCause());
            }
        }
        int elected = (int) offline.stream().filter(tp -> !describe(cluster, tp).isLeaderless()).count();
        bringBackDead(cluster, schedule);
        Map<TopicPartition, Map<Long, String>> after = readAll(cluster, led(cluster));
        return new Recovery(offline, elected, after, Set.of(), Set.of(), List.of(), notes);
    }

    /**
     * Puts every node's log dir back as the snapshot holds it, starts the controllers and the brokers that were up,
     * and returns the test topics' partitions that are offline once the controller has settled.
     */
    private List<TopicPartition> restore(LocalKafkaCluster cluster, FaultSchedule schedule, Path snapshot) {
        for (int node : cluster.nodes().ids()) {
            FaultSchedule.deleteRecursively(cluster.logDir(node));
            copyTree(snapshot.resolve(Integer.toString(node)), cluster.logDir(node));
        }
        cluster.controllers().startStopped();
        cluster.startBrokers(BROKERS.stream().filter(b -> b != schedule.deadBroker()).toList());
        List<TopicPartition> offline = List.of();
        for (int attempt = 0; attempt < 10; attempt++) {
            sleep(SETTLE.toMillis() / 2);
            List<TopicPartition> now = allPartitions().stream()
                    .filter(tp -> describe(cluster, tp).isLeaderless()).toList();
            if (now.equals(offline) && attempt > 0) {
                break;
            }
            offline = now;
        }
        for (TopicPartition tp : offline) {
            log.accept("  offline: " + describe(cluster, tp));
        }
        for (TopicPartition tp : allPartitions()) {
            PartitionView view = describe(cluster, tp);
            if (!view.isLeaderless()) {
                ledAtRestore.put(tp, view.leader());
            }
        }
        return offline;
    }

    /** The dead broker comes back (on an empty disk when it was lost), and every partition is awaited with a leader. */
    private void bringBackDead(LocalKafkaCluster cluster, FaultSchedule schedule) {
        int dead = schedule.deadBroker();
        if (schedule.deadDiskLost()) {
            FaultSchedule.emptyLogDir(cluster.logDir(dead));
        }
        cluster.startBroker(dead);
        for (TopicPartition tp : allPartitions()) {
            try {
                cluster.metadata().awaitPartition(tp, v -> !v.isLeaderless(), Duration.ofSeconds(30));
            } catch (RuntimeException e) {
                log.accept("  still offline after broker " + dead + " is back: " + tp);
            }
        }
    }

    /** The plan's stated loss per replica against what the replica held and the elected log holds now. */
    private void checkPlannedLoss(Path plan, Oracle oracle, Map<TopicPartition, PartitionView> elected,
                                  Map<TopicPartition, Map<Long, String>> after, List<String> violations,
                                  List<String> notes) throws IOException {
        if (!Files.exists(plan)) {
            return;
        }
        JsonNode partitions = Json.mapper().readTree(plan.toFile()).get("partitions");
        int checked = 0;
        for (JsonNode partition : partitions) {
            TopicPartition tp = new TopicPartition(partition.get("topic").asText(), partition.get("partition").asInt());
            // only a partition the plan's designated replica leads: a refused one was decided again or by Kafka
            if (!TOPICS.contains(tp.topic()) || !after.containsKey(tp)
                    || elected.get(tp).leader() != partition.path("designatedLeader").asInt(-2)) {
                continue;
            }
            Map<Long, String> electedLog = after.get(tp);
            for (JsonNode truncation : partition.path("expectedTruncation")) {
                if (!"EXACT".equals(truncation.path("estimate").asText())) {
                    continue;
                }
                int broker = truncation.get("broker").asInt();
                Map<Long, String> held = oracle.replica(broker, tp);
                if (held == null) {
                    continue;
                }
                long from = truncation.get("fromOffset").asLong();
                long to = truncation.get("toOffset").asLong();
                Set<Long> stated = new HashSet<>();
                Set<Long> measured = new HashSet<>();
                held.forEach((offset, value) -> {
                    if (offset >= from && offset < to) {
                        stated.add(offset);
                    }
                    if (!value.equals(electedLog.get(offset))) {
                        measured.add(offset);
                    }
                });
                checked++;
                if (!stated.equals(measured)) {
                    violations.add(tp + " broker " + broker + ": the plan states it loses [" + from + ", " + to + ") ("
                            + stated.size() + " records), measured " + measured.size() + " records "
                            + new TreeMap<>(held).keySet().stream().filter(measured::contains).limit(5).toList() + "...");
                }
            }
        }
        notes.add(plan.getFileName() + ": " + partitions.size() + " partitions planned, " + checked
                + " replicas' stated losses checked record for record");
    }

    /** Each workload group's committed offsets as the cluster holds them now; empty for a group it cannot read. */
    private static Map<String, Map<TopicPartition, OffsetAndMetadata>> committedOffsets(LocalKafkaCluster cluster,
                                                                                     List<String> notes) {
        Map<String, Map<TopicPartition, OffsetAndMetadata>> committed = new HashMap<>();
        try (Admin admin = cluster.createAdmin()) {
            for (String group : Workload.GROUPS) {
                committed.put(group, admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get());
            }
        } catch (ExecutionException | RuntimeException e) {
            notes.add("group offsets before the reset not read: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return committed;
    }

    /**
     * The runbook's last step: {@code consumer-offsets --execute} on a result. The workload's consumers are closed, but
     * a coordinator that loaded their groups from the restored log keeps the members until their sessions time out:
     * exit 3 (ACTIVE_GROUP) until then.
     */
    /** "group@partition" of each reset the consumer-offset repair made to the new leader's high watermark. */
    private static Set<String> resetsToLeadersHighWatermark(List<Path> plans) {
        Set<String> resets = new HashSet<>();
        for (Path plan : plans) {
            // consumer-offsets writes its result under the next free name beside the ones execute wrote
            String prefix = resultOf(plan).getFileName().toString().replace(".json", "");
            List<Path> written;
            try (Stream<Path> files = Files.list(plan.getParent())) {
                written = files.filter(f -> f.getFileName().toString().startsWith(prefix)
                        && f.getFileName().toString().endsWith(".json")).toList();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            for (Path result : written) {
                try {
                    for (JsonNode r : Json.mapper().readTree(result.toFile()).path("consumerOffsetResets")) {
                        if (r.path("basis").asText().equals("LEADER_HIGH_WATERMARK")) {
                            resets.add(r.path("group").asText() + "@" + r.path("topic").asText() + "-"
                                    + r.path("partition").asInt());
                        }
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
        return resets;
    }

    private void resetConsumerOffsets(String bootstrap, Path result, List<String> violations) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        CliRun run = CliRun.of("--bootstrap-server", bootstrap, "consumer-offsets", "--result-file", result.toString(),
                "--execute", "--reason", "test");
        while (run.exitCode() == 3 && System.nanoTime() < deadline) {
            sleep(2_000);
            run = CliRun.of("--bootstrap-server", bootstrap, "consumer-offsets", "--result-file", result.toString(),
                    "--execute", "--reason", "test");
        }
        expectExit(violations, "consumer-offsets --execute " + result.getFileName(), run, 0);
        run.out().lines().filter(l -> l.contains("RESET") || l.contains("offset(s) set"))
                .limit(6).forEach(l -> log.accept("    " + l));
    }

    /**
     * After the recovery and the consumer offset repair, each group's position makes it read no record twice and skip
     * none of the new history: every record below its committed offset in the recovered log is one it read, and none
     * at or past it is. A group that resets by {@code auto.offset.reset} instead would fail one or the other.
     */
    private void checkGroupPositions(LocalKafkaCluster cluster, Map<TopicPartition, Map<Long, String>> after,
                                     Map<String, Map<TopicPartition, OffsetAndMetadata>> committedBefore,
                                     Set<String> resetToLeadersHighWatermark, List<String> violations,
                                     List<String> notes) {
        try (Admin admin = cluster.createAdmin()) {
            for (String group : Workload.GROUPS) {
                Set<String> read = groupsRead.getOrDefault(group, Set.of());
                Set<String> uncertain = groupsUncertain.getOrDefault(group, Set.of());
                Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                        .partitionsToOffsetAndMetadata().get();
                int checked = 0;
                for (Map.Entry<TopicPartition, OffsetAndMetadata> e : committed.entrySet()) {
                    Map<Long, String> log = after.get(e.getKey());
                    if (e.getValue() == null || log == null) {
                        continue; // a partition still offline: nothing to read it against
                    }
                    long position = e.getValue().offset();
                    // the history the group kept: what it read below the offset the recovered __consumer_offsets
                    // holds; commits lost with an offsets partition's own cut make it read again, which no reset
                    // can know of (noted, not judged)
                    OffsetAndMetadata before = committedBefore.getOrDefault(group, Map.of()).get(e.getKey());
                    long kept = before == null ? position : before.offset();
                    long lostCommits = read.stream().filter(r -> r.startsWith(e.getKey() + "@")).mapToLong(r ->
                            Long.parseLong(r.substring(r.indexOf('@') + 1, r.indexOf('=')))).filter(o -> o >= kept).count();
                    if (lostCommits > 0) {
                        notes.add("group " + group + " on " + e.getKey() + ": " + lostCommits + " record(s) read past"
                                + " the offset " + kept + " its recovered commit holds");
                    }
                    List<Long> skipped = new ArrayList<>();
                    List<Long> twice = new ArrayList<>();
                    log.forEach((offset, value) -> {
                        String record = Workload.readRecord(e.getKey(), offset, value);
                        boolean wasRead = read.contains(record);
                        if (uncertain.contains(record)) {
                            return;
                        }
                        if (offset < position && !wasRead) {
                            skipped.add(offset);
                        } else if (offset >= position && offset < kept && wasRead) {
                            twice.add(offset);
                        }
                    });
                    if (!skipped.isEmpty()) {
                        violations.add("group " + group + " at " + position + " on " + e.getKey() + " skips "
                                + skipped.size() + " record(s) of the recovered log, from offset " + skipped.get(0));
                    }
                    if (!twice.isEmpty() && resetToLeadersHighWatermark.contains(group + "@" + e.getKey())) {
                        // what the group read was only on a lost disk, in an epoch the new leader never held: where
                        // its history parted is unknowable, and reading again is what the tool says it chose
                        notes.add("group " + group + " at " + position + " on " + e.getKey() + " reads " + twice.size()
                                + " record(s) again, from offset " + twice.get(0) + " (reset to the leader's HW)");
                    } else if (!twice.isEmpty()) {
                        violations.add("group " + group + " at " + position + " on " + e.getKey() + " reads "
                                + twice.size() + " record(s) again, from offset " + twice.get(0));
                    }
                    checked++;
                }
                notes.add("group " + group + ": position checked on " + checked + " partitions");
            }
        } catch (ExecutionException | RuntimeException e) {
            // a group whose __consumer_offsets partition the recovery left offline cannot be read, nor reset
            notes.add("group positions not read: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void chooseAssignments() {
        Random random = new Random(seed * 31 + 7);
        assignments.put(RF3, placement(random, 4, 3));
        assignments.put(RF2, placement(random, 4, 2));
        assignments.put(COMPACTED, placement(random, 2, 3));
        assignments.put(TRANSACTIONAL, placement(random, 2, 3));
    }

    private static Map<Integer, List<Integer>> placement(Random random, int partitions, int replication) {
        Map<Integer, List<Integer>> placement = new TreeMap<>();
        for (int p = 0; p < partitions; p++) {
            List<Integer> brokers = new ArrayList<>(BROKERS);
            java.util.Collections.shuffle(brokers, random);
            placement.put(p, List.copyOf(brokers.subList(0, replication)));
        }
        return placement;
    }

    private void createTopics(LocalKafkaCluster cluster) {
        createTopic(cluster, RF3, assignments.get(RF3), Map.of(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, "2"));
        createTopic(cluster, RF2, assignments.get(RF2), Map.of(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, "1"));
        createTopic(cluster, COMPACTED, assignments.get(COMPACTED), Map.of(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, "2",
                TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT));
        createTopic(cluster, TRANSACTIONAL, assignments.get(TRANSACTIONAL),
                Map.of(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, "2"));
        for (TopicPartition tp : allPartitions()) {
            cluster.metadata().awaitPartition(tp, v -> !v.isLeaderless() && v.isr().size() == v.replicas().size(),
                    Duration.ofSeconds(60));
        }
    }

    private static void createTopic(LocalKafkaCluster cluster, String topic, Map<Integer, List<Integer>> assignment,
                                    Map<String, String> configs) {
        Map<String, String> all = new HashMap<>(configs);
        all.put(TopicConfig.UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG, "false");
        try (Admin admin = cluster.createAdmin()) {
            admin.createTopics(List.of(new NewTopic(topic, assignment).configs(all))).all().get();
        } catch (ExecutionException e) {
            throw new IllegalStateException("could not create " + topic + ": " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private List<TopicPartition> partitionsOf(String topic) {
        return assignments.get(topic).keySet().stream().map(p -> new TopicPartition(topic, p)).toList();
    }

    private List<TopicPartition> plainPartitions() {
        List<TopicPartition> plain = new ArrayList<>(partitionsOf(RF3));
        plain.addAll(partitionsOf(RF2));
        plain.addAll(partitionsOf(COMPACTED));
        return plain;
    }

    List<TopicPartition> allPartitions() {
        List<TopicPartition> all = new ArrayList<>(plainPartitions());
        all.addAll(partitionsOf(TRANSACTIONAL));
        return all;
    }

    private void execute(LocalKafkaCluster cluster, Path plan, Path result, List<String> accept,
                         List<String> violations) {
        List<String> args = new ArrayList<>(List.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test",
                "--plan", plan.toString(), "--result-file", result.toString()));
        args.addAll(accept);
        expectExit(violations, "execute " + plan.getFileName(), CliRun.of(args.toArray(String[]::new)), 0, 3);
    }

    private void recover(LocalKafkaCluster cluster, Path plan, String strategy, List<String> evidenceArgs,
                         List<String> accept, List<String> violations) {
        List<String> args = new ArrayList<>(List.of("--bootstrap-server", cluster.bootstrapServers(), "recover",
                "--automated-recovery", "--reason", "test", "--strategy", strategy, "--probe-timeout-ms", "5000", "--output-file",
                plan.toString(), "--result-file", resultOf(plan).toString()));
        args.addAll(evidenceArgs);
        args.addAll(accept);
        // 3: balanced waits for a replica nobody can ask, or a partition was refused: both documented
        expectExit(violations, "recover " + strategy, CliRun.of(args.toArray(String[]::new)), 0, 3);
    }

    private static Path resultOf(Path plan) {
        return plan.resolveSibling(plan.getFileName().toString().replace(".json", "-result.json"));
    }

    /** Where {@code execute} writes its result when it runs a plan {@code recover} already ran. */
    private static Path secondResultOf(Path plan) {
        return plan.resolveSibling(plan.getFileName().toString().replace(".json", "-result-2.json"));
    }

    /** Where {@code execute} and {@code inspect --salvage-beyond} copy what the plan's elections cut (their default). */
    private static Path salvageOf(Path plan) {
        return plan.resolveSibling(plan.getFileName().toString().replace(".json", "-salvage"));
    }

    private Map<TopicPartition, PartitionView> views(LocalKafkaCluster cluster) {
        Map<TopicPartition, PartitionView> views = new HashMap<>();
        for (TopicPartition tp : allPartitions()) {
            views.put(tp, describe(cluster, tp));
        }
        return views;
    }

    private List<TopicPartition> offlineNow(LocalKafkaCluster cluster) {
        return allPartitions().stream().filter(tp -> describe(cluster, tp).isLeaderless()).toList();
    }

    /** The test topics' partitions that have a leader: only those can be read; the rest count as lost. */
    private List<TopicPartition> led(LocalKafkaCluster cluster) {
        List<TopicPartition> offline = offlineNow(cluster);
        offline.forEach(tp -> log.accept("  offline after the recovery: " + describe(cluster, tp)));
        return allPartitions().stream().filter(tp -> !offline.contains(tp)).toList();
    }

    /** Every leaderless partition of the cluster, internal topics included, as the tool's recover finds them. */
    private static Set<TopicPartition> offlineEverywhere(LocalKafkaCluster cluster) throws Exception {
        try (Admin admin = cluster.createAdmin()) {
            Set<String> names = admin.listTopics(new org.apache.kafka.clients.admin.ListTopicsOptions().listInternal(true))
                    .names().get();
            Set<TopicPartition> offline = new HashSet<>();
            admin.describeTopics(names).allTopicNames().get().forEach((name, topic) -> topic.partitions().forEach(p -> {
                if (p.leader() == null || p.leader().isEmpty()) {
                    offline.add(new TopicPartition(name, p.partition()));
                }
            }));
            return offline;
        }
    }

    private static PartitionView describe(LocalKafkaCluster cluster, TopicPartition tp) {
        return cluster.metadata().awaitPartition(tp, v -> true, Duration.ofSeconds(30));
    }

    /** Every record of the partitions from their start to their end now, read_uncommitted: offset to value. */
    static Map<TopicPartition, Map<Long, String>> readAll(LocalKafkaCluster cluster, List<TopicPartition> tps) {
        Properties props = new Properties();
        props.putAll(cluster.clientProperties());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "10000");
        Map<TopicPartition, Map<Long, String>> values = new LinkedHashMap<>();
        tps.forEach(tp -> values.put(tp, new TreeMap<>()));
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props, new StringDeserializer(),
                new StringDeserializer())) {
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            Map<TopicPartition, Long> ends = consumer.endOffsets(tps, Duration.ofSeconds(30));
            Instant deadline = Instant.now().plus(READ_TIMEOUT);
            while (tps.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp))) {
                if (Instant.now().isAfter(deadline)) {
                    throw new IllegalStateException("could not read " + tps + " to " + ends + " within " + READ_TIMEOUT);
                }
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(500))) {
                    values.get(new TopicPartition(record.topic(), record.partition()))
                            .put(record.offset(), record.value());
                }
            }
        }
        return values;
    }

    private static boolean hasManifest(Path salvage) {
        if (!Files.isDirectory(salvage)) {
            return false;
        }
        try (Stream<Path> files = Files.walk(salvage)) {
            return files.anyMatch(f -> f.getFileName().toString().equals("manifest.json"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Set<String> salvagedValues(Path salvage) {
        Set<String> values = new HashSet<>();
        for (SalvageDirectory.SalvagedRange range : SalvageDirectory.read(salvage).ranges()) {
            range.forEachBatch(batch -> {
                if (!batch.isControlBatch()) {
                    batch.forEach(record -> {
                        if (record.hasValue()) {
                            values.add(StandardCharsets.UTF_8.decode(record.value()).toString());
                        }
                    });
                }
            });
        }
        return values;
    }

    private void expectExit(List<String> violations, String step, CliRun run, int... documented) {
        log.accept("  " + step + ": exit " + run.exitCode() + (run.exitCode() == 0 ? "" : "; " + (run.out() + run.err())
                .lines().filter(l -> l.contains("WARNING") || l.contains("REFUSED") || l.contains("refused")
                        || l.startsWith("error")).limit(4).toList()));
        for (int code : documented) {
            if (run.exitCode() == code) {
                return;
            }
        }
        violations.add(step + " exited " + run.exitCode() + ", expected one of " + java.util.Arrays.toString(documented)
                + ":\n" + run.out() + run.err());
    }

    private static void killAll(LocalKafkaCluster cluster) {
        for (int broker : cluster.brokerIds()) {
            if (cluster.isRunning(broker)) {
                cluster.stopBroker(broker, StopMode.ABRUPT);
            }
        }
        for (int controller : cluster.controllers().ids()) {
            if (cluster.isRunning(controller)) {
                cluster.controllers().stop(controller, StopMode.ABRUPT);
            }
        }
    }

    static void copyTree(Path from, Path to) {
        try (Stream<Path> all = Files.walk(from)) {
            for (Path source : all.toList()) {
                Path target = to.resolve(from.relativize(source).toString());
                if (Files.isDirectory(source)) {
                    Files.createDirectories(target);
                } else if (Files.isRegularFile(source)) {
                    Files.copy(source, target);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
