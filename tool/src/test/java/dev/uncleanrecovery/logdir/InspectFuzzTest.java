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
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
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
 * {@link Damage}), then inspected, and each partition is then loaded by Kafka ({@link KafkaLogLoading}) from a copy.
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

    /** The ways a crash or a failing disk damages a partition directory. */
    enum Damage {
        /** The last segment cut at any byte: writes the page cache never flushed. */
        TRUNCATE,
        /** A byte of one batch's CRC field flipped. */
        FLIP_CRC,
        /** Any byte of a segment flipped, header fields outside the CRC included. */
        FLIP_ANY,
        /** The last segment zeroed from any byte on: blocks allocated but never written. */
        ZERO_TAIL,
        /** One 4 KiB page of a segment zeroed: a lost write in the middle. */
        ZERO_PAGE,
        /** Random bytes for an offset index. */
        GARBAGE_INDEX,
        /** An offset index deleted. */
        DELETE_INDEX,
        /** A transaction index of random aborted transactions. */
        GARBAGE_TXN_INDEX,
        /** leader-epoch-checkpoint cut at any byte, zeroed at its end, or with a line added. */
        TORN_EPOCH_CHECKPOINT,
        /** partition.metadata cut at any byte. */
        TORN_PARTITION_METADATA,
        /** Random bytes after the last batch. */
        APPEND_GARBAGE,
        /** A copy of an earlier batch written again after the last one. */
        APPEND_COPY,
        /** A batch's length field set to a huge or negative value. */
        HUGE_LENGTH,
        /** A batch's magic byte set to any value. */
        MAGIC
    }

    /** What one seed built and did, to say in a failure. */
    private record Built(Path logDir, boolean cleanShutdown, Map<TopicPartition, Long> recoveryPoints,
                         Map<TopicPartition, List<Damage>> damage) {
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
        Map<Damage, Integer> applied = new EnumMap<>(Damage.class);
        List<Long> seeds = seeds();
        for (long seed : seeds) {
            Built built = build(seed, tmp.resolve("seed-" + seed));
            built.damage().values().forEach(list -> list.forEach(d -> applied.merge(d, 1, Integer::sum)));
            LogDirReport report = inspectWithinBounds(seed, built.logDir());
            int before = disagreements.size();
            for (PartitionLogSummary inspected : report.partitions()) {
                String outcome = judge(seed, built, inspected, disagreements);
                outcomes.merge(outcome, 1, Integer::sum);
            }
            if (disagreements.size() > before) {
                keepForALook(seed, built.logDir());
            }
            deleteRecursively(tmp.resolve("seed-" + seed));
        }
        int partitions = outcomes.values().stream().mapToInt(Integer::intValue).sum();
        System.out.println("inspect fuzz: " + seeds.size() + " seeds from " + seeds.get(0) + ", " + partitions
                + " partitions: " + outcomes + "; damage applied: " + applied);
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
                built.cleanShutdown());
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
                    || inspected.logStartOffset() != kafkaSays.logStartOffset()) {
                disagreements.add(context + "inspect [" + inspected.logStartOffset() + ", " + inspected.logEndOffset()
                        + ") epoch " + inspected.lastWrittenLeaderEpoch() + ", Kafka [" + kafkaSays.logStartOffset()
                        + ", " + kafkaSays.logEndOffset() + ") epoch " + kafkaSays.latestEpoch() + "; notes "
                        + inspected.notes());
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
        Map<TopicPartition, List<Damage>> damage = new HashMap<>();
        int partitions = 1 + random.nextInt(3);
        for (int p = 0; p < partitions; p++) {
            TopicPartition tp = new TopicPartition(TOPIC, p);
            PartitionModel model = PartitionModel.build(logDir.partition(TOPIC, p), random);
            int choice = random.nextInt(4);
            if (choice > 0) {
                recoveryPoints.put(tp, choice == 1 ? 0 : choice == 2 ? model.randomSegmentBase(random) : model.logEnd);
            }
            List<Damage> applied = new ArrayList<>();
            int damages = random.nextInt(4); // 0 to 3: an undamaged log must come out right too
            for (int i = 0; i < damages; i++) {
                Damage d = Damage.values()[random.nextInt(Damage.values().length)];
                model.apply(d, random);
                applied.add(d);
            }
            damage.put(tp, applied);
        }
        logDir.recoveryPoints(recoveryPoints.entrySet().stream()
                .map(e -> e.getKey().topic() + " " + e.getKey().partition() + " " + e.getValue()).toArray(String[]::new));
        return new Built(logDir.dir, clean, recoveryPoints, damage);
    }

    /** One partition as built: its segments and where their batches start, to aim the damage. */
    private static final class PartitionModel {
        private final Partition partition;
        private final List<Segment> segments = new ArrayList<>();
        private final List<List<Integer>> batchPositions = new ArrayList<>();
        private final List<MemoryRecords> batches = new ArrayList<>();
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
                List<Integer> positions = new ArrayList<>();
                int batchCount = random.nextInt(s == segmentCount - 1 ? 12 : 8) + (s == segmentCount - 1 ? 0 : 1);
                for (int b = 0; b < batchCount; b++) {
                    if (random.nextInt(8) == 0) {
                        epoch += 1 + random.nextInt(2);
                        model.epochLines.add(epoch + " " + offset);
                    }
                    MemoryRecords records = randomBatch(random, epoch, offset, timestamp);
                    positions.add((int) segment.size());
                    segment.append(records);
                    model.batches.add(records);
                    for (RecordBatch batch : records.batches()) {
                        offset = batch.nextOffset();
                    }
                    timestamp += random.nextInt(1000);
                }
                model.segments.add(segment);
                model.batchPositions.add(positions);
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

        void apply(Damage damage, Random random) {
            Segment last = segments.get(segments.size() - 1);
            int index = random.nextInt(segments.size());
            Segment any = segments.get(index);
            List<Integer> positions = batchPositions.get(index);
            switch (damage) {
                case TRUNCATE -> truncate(last.log, random.nextInt((int) last.size() + 1));
                case FLIP_CRC -> {
                    if (!positions.isEmpty()) {
                        flip(any.log, positions.get(random.nextInt(positions.size())) + 17 + random.nextInt(4), random);
                    }
                }
                case FLIP_ANY -> {
                    if (any.size() > 0) {
                        flip(any.log, random.nextInt((int) any.size()), random);
                    }
                }
                case ZERO_TAIL -> {
                    int from = random.nextInt((int) last.size() + 1);
                    write(last.log, from, new byte[(int) last.size() - from]);
                }
                case ZERO_PAGE -> {
                    int pages = (int) (any.size() / 4096) + 1;
                    int from = random.nextInt(pages) * 4096;
                    write(any.log, from, new byte[(int) Math.min(4096, Math.max(0, any.size() - from))]);
                }
                case GARBAGE_INDEX -> {
                    byte[] garbage = new byte[random.nextInt(4096)];
                    random.nextBytes(garbage);
                    rewrite(any.index, garbage);
                }
                case DELETE_INDEX -> delete(any.index);
                case GARBAGE_TXN_INDEX -> {
                    ByteBuffer txns = ByteBuffer.allocate(34 * (1 + random.nextInt(3)));
                    while (txns.hasRemaining()) {
                        long first = any.baseOffset + random.nextInt(50) - 10;
                        txns.putShort((short) (random.nextInt(10) == 0 ? 1 : 0)).putLong(random.nextInt(1000))
                                .putLong(first).putLong(first + random.nextInt(20) - 5).putLong(first);
                    }
                    rewrite(any.log.resolveSibling(SegmentFiles.fileName(any.baseOffset, ".txnindex")), txns.array());
                }
                case TORN_EPOCH_CHECKPOINT -> tear(partition.path(CheckpointFile.LEADER_EPOCH), random);
                case TORN_PARTITION_METADATA -> {
                    Path metadata = partition.path(PartitionMetadataFile.FILE_NAME);
                    if (Files.exists(metadata)) {
                        truncate(metadata, random.nextInt((int) size(metadata) + 1));
                    }
                }
                case APPEND_GARBAGE -> {
                    byte[] garbage = new byte[1 + random.nextInt(200)];
                    random.nextBytes(garbage);
                    last.appendRaw(garbage);
                }
                case APPEND_COPY -> {
                    if (!batches.isEmpty()) {
                        MemoryRecords copy = batches.get(random.nextInt(batches.size()));
                        byte[] bytes = new byte[copy.sizeInBytes()];
                        copy.buffer().duplicate().get(bytes);
                        last.appendRaw(bytes);
                    }
                }
                case HUGE_LENGTH -> {
                    if (!positions.isEmpty()) {
                        int value = switch (random.nextInt(3)) {
                            case 0 -> Integer.MAX_VALUE;
                            case 1 -> Integer.MAX_VALUE - random.nextInt(1 << 20);
                            default -> -1 - random.nextInt(Integer.MAX_VALUE);
                        };
                        write(any.log, positions.get(random.nextInt(positions.size())) + 8,
                                ByteBuffer.allocate(4).putInt(value).array());
                    }
                }
                case MAGIC -> {
                    if (!positions.isEmpty()) {
                        write(any.log, positions.get(random.nextInt(positions.size())) + 16,
                                new byte[] {(byte) random.nextInt(256)});
                    }
                }
            }
        }

        private static void tear(Path checkpoint, Random random) {
            if (!Files.exists(checkpoint)) {
                return;
            }
            long size = size(checkpoint);
            switch (random.nextInt(3)) {
                case 0 -> truncate(checkpoint, random.nextInt((int) size + 1));
                case 1 -> {
                    int from = random.nextInt((int) size + 1);
                    write(checkpoint, from, new byte[(int) size - from + random.nextInt(8)]);
                }
                default -> {
                    String[] junk = {"x y\n", "3\n", "7 -1\n", "1 2 3\n", "\n", "99999999999 0\n", "5 12\n"};
                    append(checkpoint, junk[random.nextInt(junk.length)].getBytes(StandardCharsets.UTF_8));
                }
            }
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

    private static long size(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void truncate(Path file, long length) {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.truncate(length);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void write(Path file, long position, byte[] bytes) {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.wrap(bytes), position);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void flip(Path file, long position, Random random) {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(1);
            if (channel.read(b, position) == 1) {
                b.put(0, (byte) (b.get(0) ^ (1 + random.nextInt(255))));
                channel.write(b.rewind(), position);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void rewrite(Path file, byte[] bytes) {
        try {
            Files.write(file, bytes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void append(Path file, byte[] bytes) {
        try {
            Files.write(file, bytes, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void delete(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
