// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.uncleanrecovery.logdir.LogDirFixture.Partition;
import dev.uncleanrecovery.logdir.LogDirFixture.Segment;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seeded damage to real segment files, in this JVM, with Kafka 4.4's own log loading as the judge. For every seed a
 * log dir of a few partitions is built from real v2 batches (kafka-clients' builder: plain, compressed,
 * transactional with their COMMIT markers, compacted), damaged the way crashes and failing disks damage logs (see
 * {@link LogDamage}), then inspected, and each partition is then loaded by Kafka ({@link KafkaLogLoading}) from a copy.
 *
 * <p>inspect must never throw, never take longer than {@link #TIME_BOUND}, never allocate more than
 * {@link #ALLOCATION_BOUND} (a length field of 2 GiB must not become a 2 GiB buffer), and wherever it answers, the log
 * start and end offsets and the latest epoch must be Kafka's; where it says Kafka's loading fails, Kafka's must fail
 * the same way. It may decline to predict (an error that says why) only for a small share of the partitions.
 *
 * <p>Seeds: {@value #DEFAULT_SEEDS} by default, 1 to 500. {@code -Dinspect.fuzz.seeds=N} runs N seeds from
 * {@code -Dinspect.fuzz.firstSeed} (default 1); {@code -Dinspect.fuzz.seed=S} reruns seed S alone. A failure names its
 * seed. See docs/inspect.md.
 */
class InspectFuzzTest {

    static final int DEFAULT_SEEDS = 500;
    static final Duration TIME_BOUND = Duration.ofSeconds(10);
    static final long ALLOCATION_BOUND = 64L << 20;
    /** The share of partitions inspect may decline to predict before the test says it proves too little. */
    private static final double MAX_DECLINED = 0.25;
    private static final String TOPIC = "fuzz";
    /** Where the log dir of a seed that disagreed is kept for a look. */
    private static final Path KEPT = Path.of("target", "inspect-fuzz");

    private static KafkaLogLoading kafka;

    @TempDir
    Path tmp;

    /** What one seed built and did, to say in a failure. */
    private record Built(Path logDir, boolean cleanShutdown, Map<TopicPartition, Long> recoveryPoints,
                         Map<TopicPartition, List<LogDamage>> damage) {
    }

    @BeforeAll
    static void kafkasOwnLogLoading() {
        kafka = KafkaLogLoading.open();
    }

    @AfterAll
    static void closeKafka() throws Exception {
        if (kafka != null) {
            kafka.close();
        }
    }

    @Test
    void on_seeded_damage_inspect_never_throws_hangs_or_overallocates_and_answers_what_kafkas_log_loading_does()
            throws IOException {
        List<String> disagreements = new ArrayList<>();
        Map<String, Integer> outcomes = new HashMap<>();
        Map<LogDamage, Integer> applied = new EnumMap<>(LogDamage.class);
        List<Long> seeds = seeds();
        for (long seed : seeds) {
            Built built = build(seed, tmp.resolve("seed-" + seed));
            built.damage().values().forEach(list -> list.forEach(d -> applied.merge(d, 1, Integer::sum)));
            LogDirReport report = inspectWithinBounds(seed, built.logDir());
            int before = disagreements.size();
            for (PartitionLogSummary inspected : report.partitions()) {
                String outcome = judge(seed, built, inspected, disagreements);
                outcomes.merge(outcome, 1, Integer::sum);
                outcomes.merge("batches kept", inspected.batches().size(), Integer::sum);
            }
            if (disagreements.size() > before) {
                keepForALook(seed, built.logDir());
            }
            deleteRecursively(tmp.resolve("seed-" + seed));
        }
        int batchesKept = outcomes.remove("batches kept");
        int partitions = outcomes.values().stream().mapToInt(Integer::intValue).sum();
        System.out.println("inspect fuzz: " + seeds.size() + " seeds from " + seeds.get(0) + ", " + partitions
                + " partitions: " + outcomes + ", " + batchesKept + " batches kept; damage applied: " + applied);
        assertThat(batchesKept).as("batches inspect kept, each compared with the one Kafka reads there").isPositive();
        assertThat(disagreements).as("partitions where inspect's answer is not Kafka's (their log dirs are kept in "
                + KEPT.toAbsolutePath() + "; rerun one with -Dinspect.fuzz.seed=S)").isEmpty();
        assertThat(outcomes.getOrDefault("declined", 0)).as("partitions inspect declined to predict, of " + partitions)
                .isLessThanOrEqualTo((int) (partitions * MAX_DECLINED));
    }

    private static List<Long> seeds() {
        String one = System.getProperty("inspect.fuzz.seed");
        if (one != null && !one.isBlank()) {
            return List.of(Long.parseLong(one.trim()));
        }
        long first = Long.getLong("inspect.fuzz.firstSeed", 1);
        int count = Integer.getInteger("inspect.fuzz.seeds", DEFAULT_SEEDS);
        return Stream.iterate(first, s -> s + 1).limit(count).toList();
    }

    /** Inspects on a thread of its own, within the time bound, and measures what that thread allocated. */
    private static LogDirReport inspectWithinBounds(long seed, Path logDir) {
        return assertTimeoutPreemptively(TIME_BOUND, () -> {
            var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            long before = threads.getCurrentThreadAllocatedBytes();
            LogDirReport report = new LogDirInspector().inspect(List.of(logDir), PartitionFilter.all());
            long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            assertThat(allocated).as("bytes inspect allocated for seed " + seed).isLessThan(ALLOCATION_BOUND);
            return report;
        }, () -> "inspect of seed " + seed + " did not finish within " + TIME_BOUND);
    }

    /** Loads a copy of the partition with Kafka and compares; returns the kind of outcome, for the tally. */
    private String judge(long seed, Built built, PartitionLogSummary inspected, List<String> disagreements)
            throws IOException {
        TopicPartition tp = inspected.topicPartition();
        Path copy = copyOf(built.logDir().resolve(tp.topic() + "-" + tp.partition()),
                built.logDir().resolveSibling("kafka").resolve(tp.topic() + "-" + tp.partition()));
        KafkaLogLoading.Outcome kafkaSays = kafka.load(copy, 0, built.recoveryPoints().getOrDefault(tp, 0L),
                built.cleanShutdown(), inspected.error() == null ? KafkaLogLoading.batchOffsets(inspected) : List.of());
        String context = "seed " + seed + " " + tp + " (" + (built.cleanShutdown() ? "clean" : "unclean")
                + " shutdown, recovery point " + built.recoveryPoints().get(tp) + ", damage "
                + built.damage().get(tp) + "): ";
        String error = inspected.error();
        if (error == null) {
            if (kafkaSays.failure() != null) {
                disagreements.add(context + "inspect answered log end " + inspected.logEndOffset() + " but Kafka's"
                        + " loading failed (" + kafkaSays.failure() + ": " + kafkaSays.cause() + ")");
            } else if (inspected.logEndOffset() != kafkaSays.logEndOffset()
                    || inspected.lastWrittenLeaderEpoch() != kafkaSays.latestEpoch()
                    || !inspected.leaderEpochs().equals(kafkaSays.epochs())
                    || inspected.logStartOffset() != kafkaSays.logStartOffset()) {
                disagreements.add(context + "inspect [" + inspected.logStartOffset() + ", " + inspected.logEndOffset()
                        + ") epochs " + inspected.leaderEpochs() + ", Kafka [" + kafkaSays.logStartOffset()
                        + ", " + kafkaSays.logEndOffset() + ") epochs " + kafkaSays.epochs() + "; notes "
                        + inspected.notes());
            } else if (kafkaSays.batchesDifferFrom(inspected, false) != null) {
                disagreements.add(context + kafkaSays.batchesDifferFrom(inspected, false));
            }
            return kafkaSays.failure() == null ? "agreed" : "disagreed";
        }
        for (KafkaLoadFailure failure : KafkaLoadFailure.values()) {
            if (error.contains(failure.consequence(built.logDir()))) {
                if (kafkaSays.failure() != failure) {
                    disagreements.add(context + "inspect says " + failure + " (" + error + ") but Kafka "
                            + (kafkaSays.failure() == null ? "loaded the log to " + kafkaSays.logEndOffset()
                            : kafkaSays.failure() + ": " + kafkaSays.cause()));
                }
                return "Kafka fails: " + failure;
            }
        }
        if (Boolean.getBoolean("inspect.fuzz.printDeclined")) {
            System.out.println("declined " + context + error);
        }
        return "declined";
    }

    // ---- building a log dir ----

    private static Built build(long seed, Path root) {
        Random random = new Random(seed);
        LogDirFixture logDir = LogDirFixture.formatted(root.resolve("data"), 1);
        boolean clean = random.nextInt(5) == 0;
        if (clean) {
            logDir.cleanShutdown(7);
        }
        Map<TopicPartition, Long> recoveryPoints = new HashMap<>();
        Map<TopicPartition, List<LogDamage>> damage = new HashMap<>();
        int partitions = 1 + random.nextInt(3);
        for (int p = 0; p < partitions; p++) {
            TopicPartition tp = new TopicPartition(TOPIC, p);
            PartitionModel model = PartitionModel.build(logDir.partition(TOPIC, p), random);
            int choice = random.nextInt(4);
            if (choice > 0) {
                recoveryPoints.put(tp, choice == 1 ? 0 : choice == 2 ? model.randomSegmentBase(random) : model.logEnd);
            }
            List<LogDamage> applied = new ArrayList<>();
            int damages = random.nextInt(4); // 0 to 3: an undamaged log must come out right too
            for (int i = 0; i < damages; i++) {
                LogDamage d = LogDamage.values()[random.nextInt(LogDamage.values().length)];
                d.applyTo(model.partition.dir, random);
                applied.add(d);
            }
            damage.put(tp, applied);
        }
        logDir.recoveryPoints(recoveryPoints.entrySet().stream()
                .map(e -> e.getKey().topic() + " " + e.getKey().partition() + " " + e.getValue()).toArray(String[]::new));
        return new Built(logDir.dir, clean, recoveryPoints, damage);
    }

    /** One partition as built: its segments and where its log ends. */
    private static final class PartitionModel {
        private final Partition partition;
        private final List<Segment> segments = new ArrayList<>();
        private final List<String> epochLines = new ArrayList<>();
        private long logEnd;

        private PartitionModel(Partition partition) {
            this.partition = partition;
        }

        static PartitionModel build(Partition partition, Random random) {
            PartitionModel model = new PartitionModel(partition);
            int epoch = random.nextInt(3);
            model.epochLines.add(epoch + " 0");
            long offset = 0;
            long timestamp = 1_700_000_000_000L + random.nextInt(1_000_000);
            int segmentCount = 1 + random.nextInt(3);
            for (int s = 0; s < segmentCount; s++) {
                Segment segment = partition.segment(offset);
                int batchCount = random.nextInt(s == segmentCount - 1 ? 12 : 8) + (s == segmentCount - 1 ? 0 : 1);
                for (int b = 0; b < batchCount; b++) {
                    if (random.nextInt(8) == 0) {
                        epoch += 1 + random.nextInt(2);
                        model.epochLines.add(epoch + " " + offset);
                    }
                    MemoryRecords records = randomBatch(random, epoch, offset, timestamp);
                    segment.append(records);
                    for (RecordBatch batch : records.batches()) {
                        offset = batch.nextOffset();
                    }
                    timestamp += random.nextInt(1000);
                }
                model.segments.add(segment);
            }
            model.logEnd = offset;
            if (random.nextInt(6) == 0) {
                // a leader elected in a later epoch that wrote nothing before the crash
                model.epochLines.add((epoch + 1) + " " + offset);
            }
            partition.leaderEpochs(model.epochLines.toArray(String[]::new));
            return model;
        }

        long randomSegmentBase(Random random) {
            return segments.get(random.nextInt(segments.size())).baseOffset;
        }

    }

    /** A batch of any kind a broker writes: plain, compressed, transactional with its marker, or compacted. */
    private static MemoryRecords randomBatch(Random random, int epoch, long offset, long timestamp) {
        int count = 1 + random.nextInt(20);
        return switch (random.nextInt(6)) {
            case 0 -> {
                MemoryRecordsBuilder builder = builder(epoch, offset, Compression.lz4().build(), RecordBatch.NO_PRODUCER_ID,
                        RecordBatch.NO_PRODUCER_EPOCH, RecordBatch.NO_SEQUENCE, false);
                yield append(builder, random, offset, count, timestamp);
            }
            case 1 -> {
                MemoryRecordsBuilder builder = builder(epoch, offset, Compression.NONE, 4000 + random.nextInt(10),
                        (short) 0, random.nextInt(100), true);
                yield append(builder, random, offset, count, timestamp);
            }
            case 2 -> MemoryRecords.withEndTransactionMarker(offset, timestamp, epoch, 4000 + random.nextInt(10),
                    (short) 0, new EndTransactionMarker(ControlRecordType.COMMIT, 0));
            case 3 -> {
                // compacted: some offsets kept, the batch's last offset unchanged
                MemoryRecordsBuilder builder = builder(epoch, offset, Compression.NONE, RecordBatch.NO_PRODUCER_ID,
                        RecordBatch.NO_PRODUCER_EPOCH, RecordBatch.NO_SEQUENCE, false);
                builder.appendWithOffset(offset, record(random, timestamp));
                builder.appendWithOffset(offset + count, record(random, timestamp));
                builder.overrideLastOffset(offset + count + random.nextInt(3));
                yield builder.build();
            }
            default -> {
                MemoryRecordsBuilder builder = builder(epoch, offset, Compression.NONE, RecordBatch.NO_PRODUCER_ID,
                        RecordBatch.NO_PRODUCER_EPOCH, RecordBatch.NO_SEQUENCE, false);
                yield append(builder, random, offset, count, timestamp);
            }
        };
    }

    private static MemoryRecords append(MemoryRecordsBuilder builder, Random random, long offset, int count,
                                        long timestamp) {
        for (int i = 0; i < count; i++) {
            builder.appendWithOffset(offset + i, record(random, timestamp + i));
        }
        return builder.build();
    }

    private static SimpleRecord record(Random random, long timestamp) {
        byte[] value = new byte[random.nextInt(300)];
        random.nextBytes(value);
        return new SimpleRecord(timestamp, ("k" + random.nextInt(100)).getBytes(StandardCharsets.UTF_8), value);
    }

    private static MemoryRecordsBuilder builder(int epoch, long baseOffset, Compression compression, long producerId,
                                                short producerEpoch, int baseSequence, boolean transactional) {
        return MemoryRecords.builder(ByteBuffer.allocate(1024), RecordBatch.CURRENT_MAGIC_VALUE, compression,
                TimestampType.CREATE_TIME, baseOffset, RecordBatch.NO_TIMESTAMP, producerId, producerEpoch,
                baseSequence, transactional, epoch);
    }

    // ---- files ----

    private static Path copyOf(Path partitionDir, Path target) throws IOException {
        Files.createDirectories(target);
        try (Stream<Path> files = Files.list(partitionDir)) {
            for (Path file : files.toList()) {
                if (Files.isRegularFile(file, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    Files.copy(file, target.resolve(file.getFileName()));
                }
            }
        }
        return target;
    }

    /** The damaged log dir of a seed that disagreed, as inspect read it, under target/inspect-fuzz/. */
    private static void keepForALook(long seed, Path logDir) throws IOException {
        Path kept = KEPT.resolve("seed-" + seed);
        deleteRecursively(kept);
        try (Stream<Path> paths = Files.walk(logDir)) {
            for (Path path : paths.toList()) {
                Path target = kept.resolve(logDir.relativize(path).toString());
                if (Files.isDirectory(path, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    Files.createDirectories(target);
                } else if (Files.isRegularFile(path, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    Files.copy(path, target);
                }
            }
        }
    }

    /** Best effort: Kafka's scheduler may still write a checkpoint into its copy while it is removed. */
    private static void deleteRecursively(Path root) {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        } catch (IOException | UncheckedIOException e) {
            // left for the temporary directory's own clean-up
        }
    }
}
