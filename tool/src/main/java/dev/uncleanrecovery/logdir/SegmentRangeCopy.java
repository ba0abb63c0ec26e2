// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What a copy of the record batches of one partition directory that cover offsets {@code [fromOffset, toOffset)}
 * read: whole batches, byte for byte as the segment files hold them, the first the one holding {@code fromOffset} (or
 * the first after it where compaction left a gap), across segment boundaries. The batches are handed over as they are
 * read, a few at a time ({@link Reads}), never the range at once.
 *
 * <p>Every batch is checked as Kafka's log recovery checks it ({@link SegmentBatchReader}: length, CRC, offsets in the
 * segment and increasing), so a copy never carries a batch the broker would throw away. Files are opened for reading
 * only, regular files only and never through a symbolic link ({@link LogDirFile}): nothing in the log dir is written,
 * locked or renamed. They are read with positional reads, not mapped: a
 * segment a broker truncates under the copy (it restarted and recovered its log) ends a read early, an
 * {@link IOException}, where a mapped file would fault (SIGBUS, an InternalError) the moment its lost pages are read.
 *
 * @param firstOffset     the first batch's base offset; -1 when no batch was copied
 * @param lastOffset      the last batch's last offset; -1 when no batch was copied
 * @param records         records in the copied batches (control records included), from their headers
 * @param firstBatchEpoch partitionLeaderEpoch of the first batch; -1 when none
 * @param lastBatchEpoch  partitionLeaderEpoch of the last batch; -1 when none
 * @param segments        base offsets of the segment files read
 * @param stoppedBy       why the copy ends before {@code toOffset - 1}; null when it reaches it
 */
public record SegmentRangeCopy(long firstOffset, long lastOffset, long records, int batches, long bytes,
                               int firstBatchEpoch, int lastBatchEpoch, List<Long> segments, String stoppedBy) {

    /** Bytes handed over at a time, unless one batch is larger. */
    private static final int READ_BYTES = 1 << 20;

    public SegmentRangeCopy {
        segments = List.copyOf(segments);
    }

    /** Called after every batch is checked, with the totals so far. */
    @FunctionalInterface
    public interface Progress {
        void copied(long bytes, long records);
    }

    /** Takes the copy a read at a time, in offset order. */
    @FunctionalInterface
    public interface Reads<E extends Exception> {
        /** @param batches whole batches, following those of the read before; reused once this returns */
        void take(ByteBuffer batches) throws E;
    }

    /**
     * @param partitionDir a partition's directory in a log dir of a stopped broker
     * @throws LogDirReadException when a segment uses message format v0/v1
     * @throws IOException         when a segment cannot be read, or ends before the size it had when the copy began
     * @throws E                   when {@code reads} refuses a read
     */
    public static <E extends Exception> SegmentRangeCopy read(Path partitionDir, long fromOffset, long toOffset,
                                                              Progress progress, Reads<E> reads) throws IOException, E {
        if (toOffset <= fromOffset) {
            throw new IllegalArgumentException("[" + fromOffset + ", " + toOffset + ") is empty");
        }
        return new Walk<>(partitionDir, fromOffset, toOffset, progress, reads).run();
    }

    private static final class Walk<E extends Exception> {
        private final Path dir;
        private final long fromOffset;
        private final long toOffset;
        private final Progress progress;
        private final Reads<E> reads;
        private final SegmentBatchReader checker = new SegmentBatchReader();
        private final List<Long> segmentsRead = new ArrayList<>();
        private ByteBuffer buffer = ByteBuffer.allocate(0);
        private RecordBatchHeader first;
        private RecordBatchHeader last;
        private RecordBatchHeader previous;
        private long records;
        private int batches;
        private long bytes;

        Walk(Path dir, long fromOffset, long toOffset, Progress progress, Reads<E> reads) {
            this.dir = dir;
            this.fromOffset = fromOffset;
            this.toOffset = toOffset;
            this.progress = progress;
            this.reads = reads;
        }

        SegmentRangeCopy run() throws IOException, E {
            List<Long> bases = segmentBaseOffsets();
            if (bases.isEmpty()) {
                return result("the partition directory " + dir + " has no segment file");
            }
            // the segment holding fromOffset is the last one whose base offset is at or below it
            int start = 0;
            for (int i = 0; i < bases.size(); i++) {
                if (bases.get(i) <= fromOffset) {
                    start = i;
                }
            }
            for (int i = start; i < bases.size(); i++) {
                String stopped = copySegment(bases.get(i), i == start, i == bases.size() - 1);
                if (stopped != null || reachedEnd()) {
                    return result(stopped);
                }
            }
            return result(last == null ? "no batch at or after offset " + fromOffset + " on disk"
                    : "the log on disk ends at offset " + last.lastOffset() + ", before " + (toOffset - 1));
        }

        private boolean reachedEnd() {
            return last != null && last.lastOffset() >= toOffset - 1;
        }

        /** Copies this segment's part of the range; returns why the copy must stop, or null to go on. */
        private String copySegment(long base, boolean holdsFrom, boolean lastSegment) throws IOException, E {
            Path file = dir.resolve(SegmentFiles.fileName(base, ".log"));
            try (FileChannel log = LogDirFile.open(file)) {
                long size = log.size();
                long position = holdsFrom ? startPosition(log, base, size) : 0;
                long readStart = -1;
                segmentsRead.add(base);
                String stopped = null;
                while (position < size && !reachedEnd()) {
                    BatchCheck check = checker.check(log, position, size);
                    RecordBatchHeader batch = check.isBatch() ? check.header() : null;
                    if (batch != null && batch.isLegacy()) {
                        throw new LogDirReadException("segment " + file + " holds message format v"
                                + batch.magic() + " at position " + position + "; only format v2 is copied");
                    }
                    if (batch != null && !batch.fitsSegment(base)) {
                        stopped = "segment " + base + " position " + position + ": the batch's offsets ["
                                + batch.baseOffset() + ".." + batch.lastOffset() + "] are outside the segment";
                        break;
                    }
                    if (batch != null && previous != null && batch.baseOffset() < previous.nextOffset()) {
                        stopped = "segment " + base + " position " + position + ": the batch starts at offset "
                                + batch.baseOffset() + ", below the end of the batch before it ("
                                + previous.nextOffset() + ")";
                        break;
                    }
                    if (batch == null) {
                        // Kafka's recovery truncates the log at the first invalid batch: nothing after it is served
                        stopped = (lastSegment ? "" : "segment " + base + " is not the last, yet ")
                                + "segment " + base + " has no valid batch at position " + position + ": "
                                + check.reason();
                        break;
                    }
                    if (batch.baseOffset() >= toOffset) {
                        break;
                    }
                    if (batch.lastOffset() >= fromOffset) {
                        if (readStart < 0) {
                            readStart = position;
                        } else if (position + batch.sizeInBytes() - readStart > READ_BYTES) {
                            handOver(log, readStart, position);
                            readStart = position;
                        }
                        if (first == null) {
                            first = batch;
                        }
                        last = batch;
                        records += batch.recordsCount();
                        batches++;
                        bytes += batch.sizeInBytes();
                        progress.copied(bytes, records);
                    }
                    previous = batch;
                    position += batch.sizeInBytes();
                }
                if (readStart >= 0) {
                    // the walk stops right after the last copied batch, so the read ends at its position
                    handOver(log, readStart, position);
                }
                return stopped;
            }
        }

        /** Reads the checked batches in {@code [from, to)} again and hands them over. */
        private void handOver(FileChannel log, long from, long to) throws IOException, E {
            int length = Math.toIntExact(to - from);
            if (buffer.capacity() < length) {
                buffer = ByteBuffer.allocate(Math.max(length, READ_BYTES));
            }
            buffer.clear().limit(length);
            checker.readFully(log, buffer, from);
            reads.take(buffer.flip());
        }

        /** The offset index's floor entry for fromOffset when it points at a valid batch at or before it; else 0. */
        private long startPosition(FileChannel log, long base, long size) throws IOException {
            Path index = dir.resolve(SegmentFiles.fileName(base, ".index"));
            if (!Files.isRegularFile(index, LinkOption.NOFOLLOW_LINKS) || size == 0) {
                return 0;
            }
            OffsetIndexFile.Lookup lookup;
            try {
                lookup = OffsetIndexFile.floorEntry(index, base, fromOffset, size);
            } catch (IOException e) {
                return 0;
            }
            if (lookup.entry() == null) {
                return 0;
            }
            BatchCheck check = checker.check(log, lookup.entry().position(), size);
            return check.isBatch() && check.header().baseOffset() <= lookup.entry().offset()
                    ? lookup.entry().position() : 0;
        }

        private List<Long> segmentBaseOffsets() throws IOException {
            return SegmentFiles.list(dir).segments().stream().map(SegmentFiles.Segment::baseOffset).toList();
        }

        private SegmentRangeCopy result(String stoppedBy) {
            String why = stoppedBy;
            if (why == null && !reachedEnd()) {
                why = "the log on disk ends before offset " + (toOffset - 1);
            }
            return new SegmentRangeCopy(first == null ? -1 : first.baseOffset(),
                    last == null ? -1 : last.lastOffset(), records, batches, bytes,
                    first == null ? -1 : first.partitionLeaderEpoch(), last == null ? -1 : last.partitionLeaderEpoch(),
                    segmentsRead, reachedEnd() ? null : why);
        }
    }
}
