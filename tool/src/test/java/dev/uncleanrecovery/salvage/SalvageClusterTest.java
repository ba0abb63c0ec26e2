// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.salvage;

import static dev.uncleanrecovery.versions.EveryIsrMemberKilled.DIVERGE;
import static dev.uncleanrecovery.versions.EveryIsrMemberKilled.DIVERGE_ALTERNATIVE;
import static dev.uncleanrecovery.versions.EveryIsrMemberKilled.NEWER_EPOCH_SHORTER_LOG;
import static dev.uncleanrecovery.versions.EveryIsrMemberKilled.OLDER_EPOCH_LONGER_LOG;
import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.cli.CliRun;
import dev.uncleanrecovery.cli.ExitCode;
import dev.uncleanrecovery.connect.BrokerConnections;
import dev.uncleanrecovery.connect.BrokerState;
import dev.uncleanrecovery.connect.ClientProperties;
import dev.uncleanrecovery.election.TruncationEstimate;
import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.harness.KafkaToolProcess;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.PartitionView;
import dev.uncleanrecovery.localcluster.StopMode;
import dev.uncleanrecovery.formats.PlanFile;
import dev.uncleanrecovery.formats.ResultFile;
import dev.uncleanrecovery.versions.EveryIsrMemberKilled;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The records an election truncates are copied out of the live replica first, on the divergent-epochs outage of
 * {@link EveryIsrMemberKilled}: on both partitions of {@code diverge}, 2 (newer epoch, 15 records) is elected and 3
 * (30 records of epoch 0, 20 of them acks=1) loses [10, 30), which lies above its high watermark: Fetch ReplicaId -3.
 * Once 3 follows, its log below its high watermark is read with ReplicaId -2. Partition 2, built alike, is recovered
 * with {@code recover --automated-recovery}.
 */
@KafkaClusterTest(kafkaVersion = "4.4.0")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SalvageClusterTest {

    private static final Duration STEP = Duration.ofSeconds(60);
    private static final long CUT = 10;
    private static final long LOG_END_ON_3 = 30;
    private static final Pattern BATCH_LINE = Pattern.compile("baseOffset: (\\d+) lastOffset: (\\d+) count: (\\d+)");

    @TempDir
    static Path dir;

    @BeforeAll
    static void divergentEpochs(LocalKafkaCluster cluster) {
        EveryIsrMemberKilled.build(cluster, 3);
    }

    @Test
    @Order(1)
    void the_holding_broker_killed_after_the_plan_refuses_its_partitions_and_elects_nothing(LocalKafkaCluster cluster)
            throws Exception {
        Path file = dir.resolve("killed.json");
        plan(cluster, file);

        cluster.stopBroker(OLDER_EPOCH_LONGER_LOG, StopMode.ABRUPT);
        try {
            cluster.metadata().awaitBrokerFenced(OLDER_EPOCH_LONGER_LOG);
            CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test", "--accept-unknown-loss", "--plan", file.toString());

            assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.ATTENTION);
            ResultFile result = ResultFile.read(dir.resolve("killed-result.json"));
            assertThat(result.partitions()).extracting(p -> new TopicPartition(p.topic(), p.partition()))
                    .contains(DIVERGE, DIVERGE_ALTERNATIVE);
            assertThat(result.partitions()).allSatisfy(p -> {
                assertThat(p.outcome()).isEqualTo("REFUSED");
                assertThat(p.detail()).startsWith("salvage failed: broker 3 did not serve " + p.topic() + "-"
                        + p.partition() + " [10..30)");
                assertThat(p.salvaged()).isNull();
            });
            // nothing was changed: still leaderless, the replicas in their planned order (no reorder either)
            for (TopicPartition tp : List.of(DIVERGE, DIVERGE_ALTERNATIVE)) {
                List<Integer> planned = PlanFile.read(file).partitions().stream().filter(p -> p.topicPartition().equals(tp))
                        .findFirst().orElseThrow().expected().replicas();
                PartitionView now = cluster.metadata().describePartition(tp);
                assertThat(now.leader()).isEqualTo(PartitionView.NO_LEADER);
                assertThat(now.replicas()).isEqualTo(planned);
            }
        } finally {
            cluster.startBroker(OLDER_EPOCH_LONGER_LOG);
            cluster.metadata().awaitBrokerUnfenced(OLDER_EPOCH_LONGER_LOG);
        }
    }

    @Test
    @Order(2)
    void execute_copies_broker_3s_suffix_byte_for_byte_before_it_is_cut(LocalKafkaCluster cluster) throws Exception {
        Path file = dir.resolve("salvage.json");
        plan(cluster, file, "--partition", "0");
        Path salvageDir = SalvageStore.besidePlan(file);
        CliRun dry = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--accept-unknown-loss", "--plan", file.toString(),
                "--dry-run");
        assertThat(dry.out().replaceAll("\\s+", " ")).as(dry.out() + dry.err())
                .contains("would salvage broker 3 [10..30) (20 offsets)");
        assertThat(salvageDir).doesNotExist();
        // the batches broker 3 stores from the one holding offset 10, read from its segment before the election
        byte[] onDisk = batchesFrom(cluster.disk().replicaDirectory(OLDER_EPOCH_LONGER_LOG, DIVERGE), CUT);

        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test", "--accept-unknown-loss", "--plan", file.toString());

        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.OK);
        assertThat(run.err()).contains("Fetch ReplicaId -3");
        ResultFile result = ResultFile.read(dir.resolve("salvage-result.json"));
        assertThat(result.version()).isEqualTo(ResultFile.VERSION);
        assertThat(result.salvageDir()).isEqualTo(salvageDir.toString());
        ResultFile.Partition elected = result.partitions().get(0);
        assertThat(elected.outcome()).isEqualTo("ELECTED");
        assertThat(elected.salvaged()).singleElement().satisfies(s -> {
            assertThat(s.broker()).isEqualTo(OLDER_EPOCH_LONGER_LOG);
            assertThat(s.fromOffset()).isEqualTo(CUT);
            assertThat(s.toOffset()).isEqualTo(LOG_END_ON_3);
            assertThat(s.records()).isEqualTo(LOG_END_ON_3 - CUT);
            assertThat(s.sources()).contains(SalvageSource.FETCH_FUTURE_REPLICA.name());
            assertThat(Path.of(s.manifest())).exists();
            assertThat(Files.readAllBytes(Path.of(s.segment()))).isEqualTo(onDisk);
        });
        assertThat(run.out()).contains("diverge-0 replica 3 [10..30): 20 records, ");
        // the salvage is the operator's alone, and the result file records its manifest's SHA-256
        ResultFile.Salvaged copy = elected.salvaged().get(0);
        assertThat(Files.getPosixFilePermissions(salvageDir)).isEqualTo(PosixFilePermissions.fromString("rwx------"));
        assertThat(Files.getPosixFilePermissions(Path.of(copy.segment())))
                .isEqualTo(PosixFilePermissions.fromString("rw-------"));
        assertThat(copy.manifestSha256()).isEqualTo(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                .digest(Files.readAllBytes(Path.of(copy.manifest())))));
        // which replay checks the salvage against before it produces a record
        try (Admin admin = cluster.createAdmin()) {
            admin.createTopics(List.of(new NewTopic("diverge-replayed", 1, (short) 1))).all().get();
        }
        CliRun replay = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "--output", "json", "replay",
                "--salvage-dir", salvageDir.toString(), "--to-topic", "diverge-replayed", "--result-file",
                dir.resolve("salvage-result.json").toString(), "--execute", "--reason", "test");
        assertThat(replay.exitCode()).as(replay.err()).isEqualTo(ExitCode.OK);
        var report = dev.uncleanrecovery.formats.Json.mapper().readTree(replay.out());
        assertThat(report.get("checkedAgainst").get(0).asText()).isEqualTo(dir.resolve("salvage-result.json").toString());
        assertThat(report.get("warnings")).isEmpty();
        assertThat(report.get("ranges").get(0).get("replayed").asLong()).isEqualTo(LOG_END_ON_3 - CUT);
        // and broker 3 really cut there under the new leader
        cluster.metadata().awaitPartition(DIVERGE, v -> v.leader() == NEWER_EPOCH_SHORTER_LOG
                && v.isr().contains(OLDER_EPOCH_LONGER_LOG), STEP);
        assertThat(elected.truncations()).filteredOn(t -> t.broker() == OLDER_EPOCH_LONGER_LOG)
                .containsExactly(new ResultFile.Truncation(OLDER_EPOCH_LONGER_LOG, CUT, CUT, LOG_END_ON_3));

        // Kafka's own DumpLogSegments reads the salvaged segment: the batches of offsets 10 to 29
        KafkaToolProcess.Run dump = KafkaToolProcess.run("org.apache.kafka.tools.DumpLogSegments", "--files",
                elected.salvaged().get(0).segment(), "--deep-iteration");
        assertThat(dump.exitCode()).as(dump.output()).isZero();
        Matcher line = BATCH_LINE.matcher(dump.output());
        List<Long> bounds = new ArrayList<>();
        long records = 0;
        while (line.find()) {
            bounds.add(Long.parseLong(line.group(1)));
            bounds.add(Long.parseLong(line.group(2)));
            records += Long.parseLong(line.group(3));
        }
        assertThat(bounds).as(dump.output()).isNotEmpty();
        assertThat(bounds.get(0)).isLessThanOrEqualTo(CUT);
        assertThat(bounds.get(bounds.size() - 1)).isEqualTo(LOG_END_ON_3 - 1);
        assertThat(records).isGreaterThanOrEqualTo(LOG_END_ON_3 - CUT);
    }

    @Test
    @Order(3)
    void no_salvage_elects_and_keeps_nothing(LocalKafkaCluster cluster) throws Exception {
        Path file = dir.resolve("unsalvaged.json");
        plan(cluster, file, "--partition", "1");

        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test", "--accept-unknown-loss", "--plan", file.toString(),
                "--no-salvage");

        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.OK);
        ResultFile result = ResultFile.read(dir.resolve("unsalvaged-result.json"));
        assertThat(result.salvageDir()).isNull();
        assertThat(result.salvage()).isEqualTo("--no-salvage: nothing was kept");
        assertThat(result.partitions()).singleElement().satisfies(p -> {
            assertThat(p.outcome()).isEqualTo("ELECTED");
            assertThat(p.salvaged()).isNull();
            assertThat(p.detail()).contains("--no-salvage: not kept broker 3 [10..30) (20 offsets)");
        });
        assertThat(SalvageStore.besidePlan(file)).doesNotExist();
        cluster.metadata().awaitPartition(DIVERGE_ALTERNATIVE, v -> v.leader() == NEWER_EPOCH_SHORTER_LOG, STEP);
    }

    @Test
    @Order(4)
    void recover_salvages_what_its_own_plan_truncates(LocalKafkaCluster cluster) throws Exception {
        Path file = dir.resolve("recovered.json");

        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "recover", "--accept-unknown-loss", "--automated-recovery", "--reason", "test",
                "--strategy", "proactive", "--probe-timeout-ms", "3000", "--topic", "diverge", "--partition", "2",
                "--output-file", file.toString());

        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.OK);
        ResultFile result = ResultFile.read(dir.resolve("recovered-result.json"));
        assertThat(result.salvageDir()).isEqualTo(SalvageStore.besidePlan(file).toString());
        assertThat(result.partitions()).singleElement().satisfies(p -> {
            assertThat(p.outcome()).isEqualTo("ELECTED");
            assertThat(p.salvaged()).singleElement().satisfies(s -> {
                assertThat(s.broker()).isEqualTo(OLDER_EPOCH_LONGER_LOG);
                assertThat(s.fromOffset()).isEqualTo(CUT);
                assertThat(s.toOffset()).isEqualTo(LOG_END_ON_3);
                assertThat(Path.of(s.segment())).exists();
            });
        });
    }

    @Test
    @Order(5)
    void a_follower_serves_its_log_below_its_high_watermark_to_replica_id_minus_2(LocalKafkaCluster cluster)
            throws Exception {
        // both partitions are led by 2 by now; 3 follows with the 15 records of the new log
        for (TopicPartition tp : List.of(DIVERGE, DIVERGE_ALTERNATIVE)) {
            cluster.metadata().awaitPartition(tp, v -> v.isr().contains(OLDER_EPOCH_LONGER_LOG), STEP);
        }
        byte[] diverge0 = batchesFrom(cluster.disk().replicaDirectory(OLDER_EPOCH_LONGER_LOG, DIVERGE), 0);
        byte[] diverge1 = batchesFrom(cluster.disk().replicaDirectory(OLDER_EPOCH_LONGER_LOG, DIVERGE_ALTERNATIVE), 0);
        String[] hostPort = cluster.brokerAddress(OLDER_EPOCH_LONGER_LOG).split(":");
        BrokerState three = new BrokerState(OLDER_EPOCH_LONGER_LOG, hostPort[0], Integer.parseInt(hostPort[1]), null, false);
        List<String> progress = new CopyOnWriteArrayList<>();
        // no topic ids: Fetch v12, by name; both partitions in one request, a few bytes each to loop
        DoomedRange whole0 = new DoomedRange(DIVERGE, Uuid.ZERO_UUID, OLDER_EPOCH_LONGER_LOG, 0, 15, -1);
        DoomedRange whole1 = new DoomedRange(DIVERGE_ALTERNATIVE, Uuid.ZERO_UUID, OLDER_EPOCH_LONGER_LOG, 0, 15, -1);
        // the probe saw a longer log than the broker holds now: the copy cannot be whole
        DoomedRange otherEnd = new DoomedRange(DIVERGE, Uuid.ZERO_UUID, OLDER_EPOCH_LONGER_LOG, 5, 16, -1);
        List<LiveReplicaReader.Read> reads;
        SalvageStore store = SalvageStore.open(dir.resolve("read-below-high-watermark"),
                new SalvageStore.PlanReference("plan.json", cluster.clusterId(), null));
        try (BrokerConnections connections = BrokerConnections.open(
                ClientProperties.load(cluster.bootstrapServers(), null, 15_000), List.of(three))) {
            reads = new LiveReplicaReader(connections, new LiveReplicaReader.Settings(1 << 20, 200,
                    Duration.ofSeconds(15), Duration.ofSeconds(60)), progress::add)
                    .read(List.of(whole0, whole1, otherEnd), store);
        }

        assertThat(reads.get(0).isWhole()).as(String.valueOf(reads.get(0).failure())).isTrue();
        assertThat(reads.get(0).file().sources()).containsExactly(SalvageSource.FETCH_DEBUG_REPLICA);
        assertThat(Files.readAllBytes(reads.get(0).file().segment())).isEqualTo(diverge0);
        // a Fetch of 200 bytes a partition returns at most one batch
        assertThat(reads.get(0).file().batches()).as("several Fetches").isGreaterThan(1);
        assertThat(reads.get(1).isWhole()).as(String.valueOf(reads.get(1).failure())).isTrue();
        assertThat(Files.readAllBytes(reads.get(1).file().segment())).isEqualTo(diverge1);
        assertThat(reads.get(2).isWhole()).isFalse();
        try (Stream<Path> files = Files.list(store.rangeDirectory(otherEnd))) {
            assertThat(files.map(f -> f.getFileName().toString())).as("the failed copy left nothing beside the whole one")
                    .containsExactlyInAnyOrder(reads.get(0).file().segment().getFileName().toString(), "manifest.json");
        }
        assertThat(reads.get(2).failure().getMessage()).startsWith("broker " + OLDER_EPOCH_LONGER_LOG + " ")
                .contains("at offset 15");
        assertThat(progress).filteredOn(line -> !line.contains("[15..16)")).noneMatch(line -> line.contains("ReplicaId -3"));
    }

    /** A proactive plan of {@code diverge}; fails plainly when it does not cut broker 3 exactly at 10. */
    private static void plan(LocalKafkaCluster cluster, Path file, String... more) throws Exception {
        List<String> args = new ArrayList<>(List.of("--bootstrap-server", cluster.bootstrapServers(), "plan",
                "--probe-timeout-ms", "3000", "--topic", "diverge", "--strategy", "proactive", "--output-file",
                file.toString()));
        args.addAll(List.of(more));
        CliRun run = CliRun.of(args.toArray(String[]::new));
        assertThat(run.exitCode()).as(run.out() + run.err()).isIn(ExitCode.OK, ExitCode.ATTENTION);
        assertThat(PlanFile.read(file).partitions()).as(run.out()).isNotEmpty();
        PlanFile.read(file).partitions().forEach(p -> {
            assertThat(p.designatedLeader()).isEqualTo(NEWER_EPOCH_SHORTER_LOG);
            assertThat(p.expectedTruncation()).filteredOn(t -> t.broker() == OLDER_EPOCH_LONGER_LOG)
                    .singleElement().satisfies(t -> {
                        assertThat(t.estimate()).isEqualTo(TruncationEstimate.EXACT);
                        assertThat(t.fromOffset()).isEqualTo(CUT);
                        assertThat(t.toOffset()).isEqualTo(LOG_END_ON_3);
                    });
        });
    }

    /** The bytes of a replica's segments from the batch holding {@code offset} to the log end, as stored. */
    private static byte[] batchesFrom(Path replicaDirectory, long offset) throws Exception {
        List<Path> segments;
        try (Stream<Path> files = Files.list(replicaDirectory)) {
            segments = files.filter(f -> f.getFileName().toString().endsWith(".log")).sorted().toList();
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Path segment : segments) {
            ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(segment));
            for (MutableRecordBatch batch : MemoryRecords.readableRecords(bytes).batches()) {
                if (batch.lastOffset() >= offset) {
                    ByteBuffer copy = ByteBuffer.allocate(batch.sizeInBytes());
                    batch.writeTo(copy);
                    out.write(copy.array());
                }
            }
        }
        return out.toByteArray();
    }
}
