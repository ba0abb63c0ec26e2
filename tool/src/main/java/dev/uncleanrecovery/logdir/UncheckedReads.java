// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/**
 * How Kafka 4.4 reads a segment it has not recovered, while it loads a log: to find the segment's last offset
 * ({@code LogSegment.readNextOffset}) and to rebuild producer state. Its plain reader frames batches and checks
 * nothing else; a read starts at the batch its offset search picks ({@code FileRecords.searchForOffsetFromPosition},
 * which in 4.4 compares base offsets) and ends at the end of the file or a given position.
 *
 * <p>What Kafka's reader throws here fails its log loading, so the broker does not start: a length below 14, the
 * header of a v2 batch cut by the end of the file, the base offset of a v0/v1 message that names a compression
 * codec but is not a v0/v1 wrapper. Each is a {@link LogDirReadException} saying so; a genuine compressed v0/v1
 * message (whose base offset Kafka decompresses to learn) is one inspect declines to predict.
 */
final class UncheckedReads {

    /** The highest compression codec id Kafka knows (zstd). */
    private static final int MAX_CODEC = 4;

    /**
     * A batch at a file position.
     *
     * @param headerCut the file ends inside the batch's 61-byte v2 header: only its offset and length are known
     */
    record Located(long position, RecordBatchHeader batch, boolean headerCut) {
    }

    private final SegmentBatchReader reader = new SegmentBatchReader();
    private final Path file;
    private final FileChannel log;
    private final long size;
    private final Path logDir;
    private final String during;

    /** @param during what Kafka is doing, for messages: "while it finds the end of segment 42" */
    UncheckedReads(Path file, FileChannel log, Path logDir, String during) throws IOException {
        this.file = file;
        this.log = log;
        this.size = log.size();
        this.logDir = logDir;
        this.during = during;
    }

    long size() {
        return size;
    }

    long bytesRead() {
        return reader.bytesRead();
    }

    /**
     * The batch a read of {@code target} starts at, searching from {@code from}: the first whose base offset is
     * {@code target}, or the one before the first whose base offset is past it when that one reaches it, else that
     * first one; at the end, the last batch if it reaches {@code target}. Null when there is none.
     */
    Located search(long target, long from) throws IOException {
        Located previous = null;
        long position = from;
        while (true) {
            Located current = next(position, size);
            if (current == null) {
                return previous != null && lastOffset(previous) >= target ? previous : null;
            }
            long base = baseOffset(current);
            if (base == target) {
                return current;
            }
            if (base > target) {
                return previous != null && lastOffset(previous) >= target ? previous : current;
            }
            previous = current;
            position += current.batch().sizeInBytes();
        }
    }

    /** The last batch Kafka's iterator returns from {@code position} up to {@code end}; null when none. */
    Located lastBatch(long position, long end) throws IOException {
        Located last = null;
        long at = position;
        for (Located batch = next(at, end); batch != null; batch = next(at, end)) {
            last = batch;
            at += batch.batch().sizeInBytes();
        }
        return last;
    }

    /** Where Kafka's iterator stops after {@code position} up to {@code end}: past the last whole batch. */
    long endOfBatches(long position, long end) throws IOException {
        long at = position;
        for (Located batch = next(at, end); batch != null; batch = next(at, end)) {
            at += batch.batch().sizeInBytes();
        }
        return at;
    }

    /** The next batch Kafka's iterator returns, or null where it stops. */
    Located next(long position, long end) throws IOException {
        if (position >= end) {
            return null;
        }
        BatchCheck framed = reader.frame(log, position, end, size);
        return switch (framed.verdict()) {
            case END -> null;
            case CORRUPT -> throw refusal(position, framed.reason());
            // Kafka reads a v2 batch's header only when asked for more than its base offset: see lastOffset
            case SHORT_HEADER -> new Located(position, framed.header(), true);
            default -> new Located(position, framed.header(), false);
        };
    }

    /** Why Kafka's iterator stops at {@code position}: the bytes there are no whole batch. */
    String endReason(long position) throws IOException {
        return reader.frame(log, position, size).reason();
    }

    /** The batch at {@code position} checked as recovery would check it: whether Kafka serves a corrupt batch here. */
    BatchCheck checked(long position) throws IOException {
        return reader.check(log, position, size);
    }

    /** A batch's last offset; Kafka reads a v2 batch's header for it, and fails where the file cuts the header. */
    long lastOffset(Located located) {
        if (located.headerCut()) {
            throw refusal(located.position(), "the file ends inside the header of the v2 batch there");
        }
        return located.batch().lastOffset();
    }

    /** Kafka's base offset of a batch: from its log header, except that of a compressed v0/v1 message. */
    long baseOffset(Located located) {
        RecordBatchHeader batch = located.batch();
        if (!batch.isCompressedLegacy()) {
            return batch.baseOffset();
        }
        int codec = batch.attributes() & 0x07;
        if (codec > MAX_CODEC || (batch.magic() != 0 && batch.magic() != 1)) {
            throw refusal(located.position(), "its bytes read as a compressed v0/v1 message with magic " + batch.magic()
                    + " and codec " + codec + ", which Kafka's reader rejects when it looks for its base offset");
        }
        throw new LogDirReadException(file + ": the v0/v1 message at position " + located.position() + " is compressed;"
                + " Kafka decompresses it " + during + " to learn its base offset, which inspect does not predict");
    }

    private LogDirReadException refusal(long position, String why) {
        return new LogDirReadException(file + ": Kafka's reader throws at position " + position + " " + during + " ("
                + why + "): " + KafkaLoadFailure.BROKER_DOES_NOT_START.consequence(logDir));
    }
}
