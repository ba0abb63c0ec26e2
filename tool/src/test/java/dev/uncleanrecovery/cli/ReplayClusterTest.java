// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.salvage.CopiedBatches;
import dev.uncleanrecovery.salvage.DoomedRange;
import dev.uncleanrecovery.salvage.SalvageSource;
import dev.uncleanrecovery.salvage.SalvageStore;
import dev.uncleanrecovery.salvage.SalvagedFile;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * A replica's doomed range read from the broker's own segment file, salvaged, and replayed into another topic:
 * what arrives is exactly what a read_committed consumer of the original partition reads from the range's first
 * offset on, with keys, values, headers and timestamps, plus where each record came from.
 */
@KafkaClusterTest(brokers = 1)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReplayClusterTest {

    private static final int BROKER = 1;
    private static final String LEDGER = "ledger";
    private static final String REPLAYED = "ledger-replayed";
    private static final String HASHED = "ledger-hashed";
    private static final String RESUMED = "bulk-resumed";
    private static final TopicPartition RESUMED_0 = new TopicPartition(RESUMED, 0);
    private static final int BULK_RECORDS = 2000;
    private static final TopicPartition SOURCE = new TopicPartition(LEDGER, 0);
    private static final TopicPartition TARGET = new TopicPartition(REPLAYED, 0);
    /** The doomed range starts past the first records, which the new leader keeps. */
    private static final long FROM = 3;
    private static final long FIRST_TIMESTAMP = Instant.parse("2026-12-01T09:00:00Z").toEpochMilli();
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @TempDir
    static Path work;

    private static Path salvageDir;
    private static SalvagedFile salvaged;
    /** What Kafka's own read_committed consumer reads of the original partition from FROM on. */
    private static List<ConsumerRecord<byte[], byte[]>> committed;

    @BeforeAll
    static void aLedgerWithTransactionsSalvagedFromTheBrokersDisk(LocalKafkaCluster cluster) throws Exception {
        Uuid topicId;
        try (Admin admin = cluster.createAdmin()) {
            // the id from CreateTopics' own answer: a describe right after it can reach a broker that has not
            // seen the topic yet (UNKNOWN_TOPIC_OR_PARTITION)
            CreateTopicsResult created = admin.createTopics(List.of(new NewTopic(LEDGER, 1, (short) 1),
                    new NewTopic(REPLAYED, 1, (short) 1), new NewTopic(HASHED, 3, (short) 1),
                    new NewTopic(RESUMED, 1, (short) 1)));
            created.all().get();
            topicId = created.topicId(LEDGER).get();
        }
        produceLedger(cluster);
        long logEnd = awaitNoOpenTransaction(cluster);
        committed = consume(cluster, SOURCE, FROM, logEnd, IsolationLevel.READ_COMMITTED);

        ByteBuffer doomed = batchesFrom(cluster.disk().replicaDirectory(BROKER, SOURCE), FROM);
        RecordBatch last = null;
        for (RecordBatch batch : MemoryRecords.readableRecords(doomed.duplicate()).batches()) {
            last = batch;
        }
        assertThat(last.lastOffset() + 1).as("the segment holds the whole log").isEqualTo(logEnd);
        DoomedRange range = new DoomedRange(SOURCE, topicId, BROKER, FROM, logEnd, last.partitionLeaderEpoch());
        salvageDir = work.resolve("plan-salvage");
        salvaged = new CopiedBatches(range, List.of(SalvageSource.DISK), List.of(doomed)).writeTo(SalvageStore.open(
                salvageDir, new SalvageStore.PlanReference(work.resolve("plan.json").toString(), cluster.clusterId(),
                        Instant.now()), ToolVersion.describe()));
    }

    @Test
    @Order(1)
    void the_dry_run_counts_what_it_would_replay_and_writes_nothing(LocalKafkaCluster cluster) throws Exception {
        long before = endOffset(cluster, TARGET);

        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "replay",
                "--salvage-dir", salvageDir.toString(), "--to-topic", REPLAYED);

        assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCode.OK);
        assertThat(run.out()).contains("Dry run: nothing is produced (add --execute).", "Into topic 'ledger-replayed', 1 partition(s)");
        // PARTITION BROKER OFFSETS REPLAY CONTROL ABORTED NO-MARKER BEFORE-RANGE
        String row = run.out().lines().filter(l -> l.startsWith("ledger-0 ")).findFirst().orElseThrow();
        assertThat(row.split("\\s{2,}")).containsExactly("ledger-0", "1", "[" + FROM + ", " + salvaged.range().toOffset()
                + ")", String.valueOf(committed.size()), "2", "2", "0", "0");
        assertThat(run.out()).contains("First records of ledger-0 broker 1", "entry-3", "amount 3");
        assertThat(run.out().lines()).allMatch(l -> l.length() <= 120);
        assertThat(endOffset(cluster, TARGET)).isEqualTo(before).isZero();
    }

    @Test
    @Order(2)
    void replaying_into_the_topic_the_records_came_from_needs_into_original(LocalKafkaCluster cluster) throws Exception {
        long before = endOffset(cluster, SOURCE);

        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "replay",
                "--salvage-dir", salvageDir.toString(), "--to-topic", LEDGER, "--execute", "--reason", "test");

        assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(run.err().strip()).startsWith("error: --to-topic ledger is the topic these records were salvaged from")
                .contains("--into-original").doesNotContain("\n");
        assertThat(endOffset(cluster, SOURCE)).isEqualTo(before);
    }

    @Test
    @Order(3)
    void an_unknown_target_topic_is_one_line_of_bad_input(LocalKafkaCluster cluster) {
        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "replay",
                "--salvage-dir", salvageDir.toString(), "--to-topic", "no-such-topic", "--execute", "--reason", "test", "--without-result");

        assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(run.err().strip()).isEqualTo("error: unknown topic 'no-such-topic': replay does not create topics;"
                + " create it first (kafka-topics.sh --create)");
    }

    @Test
    @Order(4)
    void a_segment_changed_after_salvage_is_not_replayed(LocalKafkaCluster cluster) throws Exception {
        Path tampered = work.resolve("tampered-salvage");
        copyTree(salvageDir, tampered);
        Path segment = tampered.resolve(salvageDir.relativize(salvaged.segment()));
        byte[] bytes = Files.readAllBytes(segment);
        bytes[bytes.length - 2] ^= 0x20;
        Files.write(segment, bytes);

        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "replay",
                "--salvage-dir", tampered.toString(), "--to-topic", REPLAYED, "--execute", "--reason", "test", "--without-result");

        assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(run.err().strip()).isEqualTo("error: " + segment + ": SHA-256 differs from the manifest's; the file"
                + " changed after it was salvaged, not replaying it");
        assertThat(endOffset(cluster, TARGET)).isZero();
    }

    @Test
    @Order(5)
    void execute_replays_exactly_the_committed_records_in_order_with_their_provenance(LocalKafkaCluster cluster)
            throws Exception {
        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "replay",
                "--salvage-dir", salvageDir.toString(), "--to-topic", REPLAYED, "--execute", "--reason", "test", "--without-result");

        assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCode.OK);
        assertThat(run.out()).contains("Produced " + committed.size() + " record(s) into " + REPLAYED);
        assertThat(run.out().lines()).allMatch(l -> l.length() <= 120);
        List<ConsumerRecord<byte[], byte[]>> replayed = consume(cluster, TARGET, 0, endOffset(cluster, TARGET),
                IsolationLevel.READ_UNCOMMITTED);
        assertThat(replayed).hasSameSizeAs(committed);
        int epoch = salvaged.range().lastWrittenLeaderEpoch();
        for (int i = 0; i < committed.size(); i++) {
            ConsumerRecord<byte[], byte[]> original = committed.get(i);
            ConsumerRecord<byte[], byte[]> copy = replayed.get(i);
            assertThat(copy.key()).isEqualTo(original.key());
            assertThat(copy.value()).isEqualTo(original.value());
            assertThat(copy.timestamp()).isEqualTo(original.timestamp());
            List<Header> expectedHeaders = new ArrayList<>(List.of(original.headers().toArray()));
            expectedHeaders.add(header("salvage.topic", LEDGER));
            expectedHeaders.add(header("salvage.partition", "0"));
            expectedHeaders.add(header("salvage.offset", Long.toString(original.offset())));
            expectedHeaders.add(header("salvage.leader.epoch", Integer.toString(original.leaderEpoch().orElseThrow())));
            expectedHeaders.add(header("salvage.broker", "1"));
            assertThat(List.of(copy.headers().toArray())).as("headers of offset " + original.offset())
                    .isEqualTo(expectedHeaders);
        }
        assertThat(replayed).allMatch(r -> r.partition() == 0);
        assertThat(committed.get(committed.size() - 1).leaderEpoch()).contains(epoch);
        assertThat(committed).noneMatch(r -> new String(r.value(), StandardCharsets.UTF_8).startsWith("refund"));
    }

    @Test
    @Order(6)
    void hash_leaves_the_partition_to_the_producers_partitioner_by_key(LocalKafkaCluster cluster) throws Exception {
        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "replay",
                "--salvage-dir", salvageDir.toString(), "--to-topic", HASHED, "--partition-map", "hash", "--execute", "--reason", "test",
                "--without-result");

        assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCode.OK);
        List<ConsumerRecord<byte[], byte[]>> replayed = new ArrayList<>();
        for (int p = 0; p < 3; p++) {
            TopicPartition partition = new TopicPartition(HASHED, p);
            replayed.addAll(consume(cluster, partition, 0, endOffset(cluster, partition), IsolationLevel.READ_UNCOMMITTED));
        }
        assertThat(replayed).extracting(r -> new String(r.value(), StandardCharsets.UTF_8))
                .containsExactlyInAnyOrderElementsOf(committed.stream()
                        .map(r -> new String(r.value(), StandardCharsets.UTF_8)).toList());
        // Kafka's default partitioner: murmur2 of the key's bytes, modulo the partition count
        assertThat(replayed).filteredOn(r -> r.key() != null)
                .allMatch(r -> r.partition() == Utils.toPositive(Utils.murmur2(r.key())) % 3);
    }

    @Test
    @Order(7)
    void a_replay_killed_halfway_and_run_again_puts_each_record_into_the_topic_once(LocalKafkaCluster cluster)
            throws Exception {
        // given: 2,000 records of 1 KB salvaged, and the tool's producer held to 100 KB/s, so a kill lands mid-way
        Path bulk = bulkSalvage(cluster);
        throttleTheTool(cluster, 100_000.0);
        ToolJvm.Run killed;
        try {
            // when: the tool is killed (SIGKILL) as soon as the first records are acknowledged
            killed = ToolJvm.run(work, "Received PRODUCE response", () -> { }, ToolJvm.AtTrigger.KILL_THE_TOOL,
                    "--bootstrap-server", cluster.bootstrapServers(), "replay", "--salvage-dir", bulk.toString(),
                    "--to-topic", RESUMED, "--execute", "--reason", "test", "--without-result");
        } finally {
            throttleTheTool(cluster, null);
        }
        assertThat(killed.triggered()).as(killed.output()).isTrue();
        long beforeRerun = endOffset(cluster, RESUMED_0);
        assertThat(beforeRerun).as("the kill came half-way").isPositive().isLessThan(BULK_RECORDS);
        // and the replay is run again
        CliRun again = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "--output", "json", "replay",
                "--salvage-dir", bulk.toString(), "--to-topic", RESUMED, "--execute", "--reason", "test", "--without-result");

        // then: what the killed run wrote is skipped as already replayed, the rest produced, each record once
        assertThat(again.exitCode()).as(again.err()).isEqualTo(ExitCode.OK);
        var report = dev.uncleanrecovery.formats.Json.mapper().readTree(again.out());
        long already = report.get("alreadyReplayed").asLong();
        assertThat(already).isPositive();
        assertThat(report.get("ranges").get(0).get("alreadyReplayed").asLong()).isEqualTo(already);
        assertThat(report.get("ranges").get(0).get("replayed").asLong()).isEqualTo(BULK_RECORDS - already);
        assertThat(salvagedOffsetsIn(cluster, RESUMED_0)).as("each salvaged record once, in offset order")
                .containsExactlyElementsOf(LongStream.range(0, BULK_RECORDS).boxed().toList());

        // and a third run, after a complete one, produces nothing
        CliRun third = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "replay",
                "--salvage-dir", bulk.toString(), "--to-topic", RESUMED, "--execute", "--reason", "test", "--without-result");
        assertThat(third.exitCode()).as(third.err()).isEqualTo(ExitCode.OK);
        assertThat(third.out()).contains(BULK_RECORDS + " record(s) are in " + RESUMED + " already, from an earlier"
                + " replay of this salvage", "Produced 0 record(s) into " + RESUMED);
        assertThat(endOffset(cluster, RESUMED_0)).isEqualTo(BULK_RECORDS);
    }

    /** 2,000 records of 1 KB, 10 a batch, of a partition "bulk-0" as a broker's disk held them. */
    private static Path bulkSalvage(LocalKafkaCluster cluster) throws Exception {
        List<ByteBuffer> batches = new ArrayList<>();
        byte[] value = new byte[1000];
        for (int base = 0; base < BULK_RECORDS; base += 10) {
            SimpleRecord[] records = new SimpleRecord[10];
            for (int i = 0; i < 10; i++) {
                records[i] = new SimpleRecord(FIRST_TIMESTAMP + base + i,
                        ("bulk-" + (base + i)).getBytes(StandardCharsets.UTF_8), value);
            }
            batches.add(MemoryRecords.withRecords(base, Compression.NONE, 0, records).buffer());
        }
        DoomedRange range = new DoomedRange(new TopicPartition("bulk", 0), Uuid.randomUuid(), BROKER, 0,
                BULK_RECORDS, 0);
        Path dir = work.resolve("bulk-salvage");
        new CopiedBatches(range, List.of(SalvageSource.DISK), batches).writeTo(SalvageStore.open(dir,
                new SalvageStore.PlanReference(work.resolve("bulk.json").toString(), cluster.clusterId(), Instant.now()),
                ToolVersion.describe()));
        return dir;
    }

    /** A produce quota on the tool's client id (null: none): the broker delays its answers to keep the rate. */
    private static void throttleTheTool(LocalKafkaCluster cluster, Double bytesPerSecond) throws Exception {
        try (Admin admin = cluster.createAdmin()) {
            admin.alterClientQuotas(List.of(new ClientQuotaAlteration(
                    new ClientQuotaEntity(Map.of(ClientQuotaEntity.CLIENT_ID, "kafka-unclean-recovery")),
                    List.of(new ClientQuotaAlteration.Op("producer_byte_rate", bytesPerSecond))))).all()
                    .get(30, TimeUnit.SECONDS);
        }
    }

    /** The salvage.offset header of every record of {@code partition}, in the partition's order. */
    private static List<Long> salvagedOffsetsIn(LocalKafkaCluster cluster, TopicPartition partition) throws Exception {
        return consume(cluster, partition, 0, endOffset(cluster, partition), IsolationLevel.READ_UNCOMMITTED).stream()
                .map(r -> Long.parseLong(new String(r.headers().lastHeader("salvage.offset").value(),
                        StandardCharsets.UTF_8)))
                .toList();
    }

    // ---- the ledger ----

    /**
     * One batch per record (each send waited for): plain records with keys, headers and timestamps, a committed
     * transaction of payments, an aborted one of refunds, and plain records after them.
     */
    private static void produceLedger(LocalKafkaCluster cluster) throws Exception {
        try (KafkaProducer<String, String> plain = producer(cluster, null)) {
            for (int i = 0; i < 6; i++) {
                ProducerRecord<String, String> record = new ProducerRecord<>(LEDGER, 0, FIRST_TIMESTAMP + i,
                        "entry-" + i, "amount " + i);
                record.headers().add("source", ("till-" + (i % 2)).getBytes(StandardCharsets.UTF_8));
                plain.send(record).get();
            }
        }
        try (KafkaProducer<String, String> transactional = producer(cluster, "replay-test-" + UUID.randomUUID())) {
            transactional.initTransactions();
            transactional.beginTransaction();
            for (int i = 0; i < 3; i++) {
                transactional.send(new ProducerRecord<>(LEDGER, 0, FIRST_TIMESTAMP + 100 + i, "payment-" + i,
                        "amount " + (10 + i))).get();
            }
            transactional.commitTransaction();
            transactional.beginTransaction();
            for (int i = 0; i < 2; i++) {
                transactional.send(new ProducerRecord<>(LEDGER, 0, FIRST_TIMESTAMP + 200 + i, "payment-" + i,
                        "refund " + i)).get();
            }
            transactional.abortTransaction();
        }
        try (KafkaProducer<String, String> plain = producer(cluster, null)) {
            for (int i = 6; i < 9; i++) {
                plain.send(new ProducerRecord<>(LEDGER, 0, FIRST_TIMESTAMP + 300 + i, null, "late " + i)).get();
            }
        }
    }

    private static KafkaProducer<String, String> producer(LocalKafkaCluster cluster, String transactionalId) {
        Map<String, Object> config = new HashMap<>(cluster.clientProperties());
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        if (transactionalId != null) {
            config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        }
        return new KafkaProducer<>(config);
    }

    /** The markers follow commit and abort asynchronously: wait until the last stable offset is the log end. */
    private static long awaitNoOpenTransaction(LocalKafkaCluster cluster) throws Exception {
        try (Admin admin = cluster.createAdmin()) {
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (true) {
                long stable = admin.listOffsets(Map.of(SOURCE, OffsetSpec.latest()),
                        new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).partitionResult(SOURCE).get().offset();
                long end = admin.listOffsets(Map.of(SOURCE, OffsetSpec.latest())).partitionResult(SOURCE).get().offset();
                if (stable == end && cluster.metadata().openTransactionStarts(SOURCE).isEmpty()) {
                    return end;
                }
                assertThat(System.nanoTime()).as("the transaction markers were written").isLessThan(deadline);
                Thread.sleep(100);
            }
        }
    }

    /** The batches of the replica's segment files from the one holding {@code from} on, as the broker wrote them. */
    private static ByteBuffer batchesFrom(Path replicaDirectory, long from) throws Exception {
        List<Path> segments;
        try (Stream<Path> files = Files.list(replicaDirectory)) {
            segments = files.filter(f -> f.getFileName().toString().endsWith(".log")).sorted().toList();
        }
        ByteBuffer all = ByteBuffer.allocate(segments.stream().mapToInt(ReplayClusterTest::size).sum());
        for (Path segment : segments) {
            all.put(Files.readAllBytes(segment));
        }
        all.flip();
        int position = 0;
        for (RecordBatch batch : MemoryRecords.readableRecords(all.duplicate()).batches()) {
            if (batch.lastOffset() >= from) {
                break;
            }
            position += batch.sizeInBytes();
        }
        return all.position(position).slice();
    }

    private static int size(Path file) {
        try {
            return (int) Files.size(file);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static List<ConsumerRecord<byte[], byte[]>> consume(LocalKafkaCluster cluster, TopicPartition partition,
                                                               long from, long until, IsolationLevel isolation) {
        Map<String, Object> config = new HashMap<>(cluster.clientProperties());
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation.toString());
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config)) {
            consumer.assign(List.of(partition));
            consumer.seek(partition, from);
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (consumer.position(partition) < until) {
                assertThat(System.nanoTime()).as("consumed " + partition + " up to " + until).isLessThan(deadline);
                consumer.poll(Duration.ofMillis(200)).records(partition).forEach(records::add);
            }
        }
        return records;
    }

    static long endOffset(LocalKafkaCluster cluster, TopicPartition partition) throws Exception {
        try (Admin admin = cluster.createAdmin()) {
            return admin.listOffsets(Map.of(partition, OffsetSpec.latest())).partitionResult(partition)
                    .get(30, TimeUnit.SECONDS).offset();
        }
    }

    private static Header header(String key, String value) {
        return new RecordHeader(key, value.getBytes(StandardCharsets.UTF_8));
    }

    private static void copyTree(Path from, Path to) throws Exception {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path file : files.toList()) {
                Path target = to.resolve(from.relativize(file).toString());
                if (Files.isDirectory(file)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(file, target);
                }
            }
        }
    }
}
