// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * Builds a Kafka log dir on disk the way a broker lays it out: meta.properties, checkpoints, partition
 * directories, and segments made of real v2 record batches built by kafka-clients, with an offset index
 * written as a broker writes it (an entry every {@code index.interval.bytes}).
 */
public final class LogDirFixture {

    public static final String CLUSTER_ID = "q1Sh-9_ISia_zwGINzRvyQ";

    public final Path dir;

    private LogDirFixture(Path dir) {
        this.dir = dir;
    }

    /** A formatted log dir of broker {@code nodeId}, as kafka-storage.sh format leaves it. */
    public static LogDirFixture formatted(Path dir, int nodeId) {
        LogDirFixture fixture = new LogDirFixture(dir);
        fixture.write("meta.properties", "#\n#Sun Nov 29 15:55:08 UTC 2026\nnode.id=" + nodeId
                + "\ndirectory.id=" + Uuid.randomUuid() + "\nversion=1\ncluster.id=" + CLUSTER_ID + "\n");
        return fixture;
    }

    public LogDirFixture cleanShutdown(long brokerEpoch) {
        return write(".kafka_cleanshutdown", "{\"version\":0,\"brokerEpoch\":" + brokerEpoch + "}");
    }

    /** Lines of {@code topic partition offset}. */
    LogDirFixture logStartOffsets(String... entries) {
        return write("log-start-offset-checkpoint", checkpoint(entries));
    }

    LogDirFixture recoveryPoints(String... entries) {
        return write("recovery-point-offset-checkpoint", checkpoint(entries));
    }

    LogDirFixture write(String name, String content) {
        try {
            Files.createDirectories(dir);
            Files.writeString(dir.resolve(name), content, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    public Partition partition(String topic, int partition) {
        return new Partition(mkdirs(dir.resolve(topic + "-" + partition)));
    }

    Path mkdir(String name) {
        return mkdirs(dir.resolve(name));
    }

    static String checkpoint(String... entries) {
        return "0\n" + entries.length + "\n" + (entries.length == 0 ? "" : String.join("\n", entries) + "\n");
    }

    private static Path mkdirs(Path path) {
        try {
            return Files.createDirectories(path);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A partition directory with partition.metadata; segments and the epoch checkpoint are added by the test. */
    public static final class Partition {
        public final Path dir;
        public final Uuid topicId = Uuid.randomUuid();

        Partition(Path dir) {
            this.dir = dir;
            file("partition.metadata", "version: 0\ntopic_id: " + topicId + "\n");
        }

        /** Lines of {@code epoch startOffset}. */
        public Partition leaderEpochs(String... entries) {
            return file("leader-epoch-checkpoint", checkpoint(entries));
        }

        public Partition file(String name, String content) {
            try {
                Files.writeString(dir.resolve(name), content, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return this;
        }

        public Segment segment(long baseOffset) {
            return new Segment(dir, baseOffset);
        }

        Path path(String name) {
            return dir.resolve(name);
        }
    }

    /** One segment: {@code <base>.log} plus its {@code .index}, appended to like a broker appends. */
    public static final class Segment {
        static final int INDEX_INTERVAL_BYTES = 4096;

        public final Path log;
        final Path index;
        final long baseOffset;
        private int bytesSinceLastIndexEntry;

        Segment(Path dir, long baseOffset) {
            this.baseOffset = baseOffset;
            this.log = dir.resolve(String.format("%020d.log", baseOffset));
            this.index = dir.resolve(String.format("%020d.index", baseOffset));
            try {
                Files.write(log, new byte[0]);
                Files.write(index, new byte[0]);
                Files.write(dir.resolve(String.format("%020d.timeindex", baseOffset)), new byte[0]);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** Appends records as a leader would: an index entry (last offset, position) every 4 KiB. */
        Segment append(MemoryRecords records) {
            try {
                long position = Files.size(log);
                if (bytesSinceLastIndexEntry > INDEX_INTERVAL_BYTES) {
                    long lastOffset = -1;
                    for (RecordBatch batch : records.batches()) {
                        lastOffset = batch.lastOffset();
                    }
                    ByteBuffer entry = ByteBuffer.allocate(8)
                            .putInt((int) (lastOffset - baseOffset)).putInt((int) position);
                    Files.write(index, entry.array(), StandardOpenOption.APPEND);
                    bytesSinceLastIndexEntry = 0;
                }
                bytesSinceLastIndexEntry += records.sizeInBytes();
                byte[] bytes = new byte[records.sizeInBytes()];
                records.buffer().duplicate().get(bytes);
                Files.write(log, bytes, StandardOpenOption.APPEND);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return this;
        }

        public Segment batch(int epoch, long baseOffset, int records) {
            return append(Batches.records(epoch, baseOffset, records, Compression.NONE));
        }

        /** The active segment's index after a crash: preallocated to its full size, zeros after the entries. */
        Segment preallocateIndex(int bytes) {
            try (var channel = java.nio.channels.FileChannel.open(index, StandardOpenOption.WRITE)) {
                channel.write(ByteBuffer.allocate(1), bytes - 1);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return this;
        }

        public Segment appendRaw(byte[] bytes) {
            try {
                Files.write(log, bytes, StandardOpenOption.APPEND);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return this;
        }

        long size() {
            try {
                return Files.size(log);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** Real record batches, built by kafka-clients as producers and leaders build them. */
    static final class Batches {
        private Batches() {
        }

        static MemoryRecords records(int epoch, long baseOffset, int count, Compression compression) {
            MemoryRecordsBuilder builder = builder(epoch, baseOffset, compression, RecordBatch.NO_PRODUCER_ID,
                    RecordBatch.NO_PRODUCER_EPOCH, RecordBatch.NO_SEQUENCE, false);
            for (int i = 0; i < count; i++) {
                builder.appendWithOffset(baseOffset + i, record(baseOffset + i));
            }
            return builder.build();
        }

        /** A batch as the log cleaner leaves it: only some offsets kept, the batch's last offset unchanged. */
        static MemoryRecords compacted(int epoch, long lastOffset, long... keptOffsets) {
            MemoryRecordsBuilder builder = builder(epoch, keptOffsets[0], Compression.NONE, RecordBatch.NO_PRODUCER_ID,
                    RecordBatch.NO_PRODUCER_EPOCH, RecordBatch.NO_SEQUENCE, false);
            for (long offset : keptOffsets) {
                builder.appendWithOffset(offset, record(offset));
            }
            builder.overrideLastOffset(lastOffset);
            return builder.build();
        }

        static MemoryRecords transactional(int epoch, long baseOffset, int count, long producerId, short producerEpoch) {
            MemoryRecordsBuilder builder = builder(epoch, baseOffset, Compression.NONE, producerId, producerEpoch, 0, true);
            for (int i = 0; i < count; i++) {
                builder.appendWithOffset(baseOffset + i, record(baseOffset + i));
            }
            return builder.build();
        }

        /** The COMMIT control batch the transaction coordinator has the leader write. */
        static MemoryRecords commitMarker(int epoch, long offset, long producerId, short producerEpoch) {
            return MemoryRecords.withEndTransactionMarker(offset, System.currentTimeMillis(), epoch, producerId,
                    producerEpoch, new EndTransactionMarker(ControlRecordType.COMMIT, 0));
        }

        /** Records with values big enough that a few batches cross the 4 KiB index interval. */
        static MemoryRecords large(int epoch, long baseOffset, int count, int valueBytes) {
            MemoryRecordsBuilder builder = builder(epoch, baseOffset, Compression.NONE, RecordBatch.NO_PRODUCER_ID,
                    RecordBatch.NO_PRODUCER_EPOCH, RecordBatch.NO_SEQUENCE, false);
            byte[] value = new byte[valueBytes];
            for (int i = 0; i < count; i++) {
                builder.appendWithOffset(baseOffset + i, new SimpleRecord(System.currentTimeMillis(), null, value));
            }
            return builder.build();
        }

        static List<MemoryRecords> many(int epoch, long baseOffset, int batches, int recordsPerBatch) {
            List<MemoryRecords> all = new ArrayList<>();
            for (int b = 0; b < batches; b++) {
                all.add(records(epoch, baseOffset + (long) b * recordsPerBatch, recordsPerBatch, Compression.NONE));
            }
            return all;
        }

        private static MemoryRecordsBuilder builder(int epoch, long baseOffset, Compression compression,
                                                    long producerId, short producerEpoch, int baseSequence,
                                                    boolean transactional) {
            return MemoryRecords.builder(ByteBuffer.allocate(1024), RecordBatch.CURRENT_MAGIC_VALUE, compression,
                    TimestampType.CREATE_TIME, baseOffset, RecordBatch.NO_TIMESTAMP, producerId, producerEpoch,
                    baseSequence, transactional, epoch);
        }

        private static SimpleRecord record(long offset) {
            return new SimpleRecord(System.currentTimeMillis(), ("key-" + offset).getBytes(StandardCharsets.UTF_8),
                    ("value-" + offset + "-" + "x".repeat(40)).getBytes(StandardCharsets.UTF_8));
        }
    }

    /** The file position of the batch whose base offset is {@code baseOffset}, read with kafka-clients. */
    public static int positionOf(byte[] segment, long baseOffset) {
        int position = 0;
        for (RecordBatch batch : MemoryRecords.readableRecords(ByteBuffer.wrap(segment)).batches()) {
            if (batch.baseOffset() == baseOffset) {
                return position;
            }
            position += batch.sizeInBytes();
        }
        if (baseOffset > 0 && position == segment.length) {
            return position;
        }
        throw new AssertionError("no batch at " + baseOffset);
    }

}
