// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Finds the last valid record batch of one segment file, reading as little as possible.
 *
 * <p>It jumps to the segment's last offset index entry and walks batch headers from there to the end of the
 * file, checking each batch the way Kafka's log recovery does (length, magic, CRC-32C, offsets in range) and
 * stopping at the first that fails: recovery truncates the segment there. A 1 GiB segment costs an index
 * binary search and the last few KiB. Only when the index is missing or points at something that is not a
 * valid batch does it walk the whole segment, as Kafka would rebuild the index.
 *
 * <p>Trade-off, on purpose: batches before the index entry are not re-checked. After a crash Kafka recovers the
 * whole unflushed part of the log, so corruption in the middle of a segment (rare: lost page-cache writes hit
 * the tail) would make Kafka truncate more than inspect reports.
 *
 * <p>Opens files with {@link StandardOpenOption#READ} only: it never writes, locks or renames anything.
 */
final class SegmentTailReader {

    private static final int CHUNK = 64 * 1024;

    private final ByteBuffer header = ByteBuffer.allocate(RecordBatchHeader.HEADER_SIZE);
    private final ByteBuffer chunk = ByteBuffer.allocate(CHUNK);
    private long logBytesRead;

    SegmentTailReader() {
    }

    /**
     * Reads the end of {@code logFile} whose base offset is {@code baseOffset}, using {@code indexFile} (its
     * {@code .index}, which may be missing) to skip ahead.
     *
     * @throws LogDirReadException when the segment uses message format v0/v1, which inspect does not read
     */
    static SegmentTail read(Path logFile, long baseOffset, Path indexFile) throws IOException {
        return new SegmentTailReader().readTail(logFile, baseOffset, indexFile);
    }

    private SegmentTail readTail(Path logFile, long baseOffset, Path indexFile) throws IOException {
        List<String> notes = new ArrayList<>();
        try (FileChannel log = FileChannel.open(logFile, StandardOpenOption.READ)) {
            long size = log.size();
            long start = size == 0 ? 0 : startPosition(log, size, baseOffset, logFile, indexFile, notes);
            return walk(log, size, logFile, baseOffset, start, notes);
        }
    }

    /** Where to start walking: the last offset index entry if it points at a valid batch, else 0. */
    private long startPosition(FileChannel log, long size, long baseOffset, Path logFile, Path indexFile,
                               List<String> notes) throws IOException {
        if (!Files.exists(indexFile)) {
            notes.add("offset index " + indexFile.getFileName() + " is missing; read segment "
                    + logFile.getFileName() + " from its start (Kafka rebuilds the index at start-up)");
            return 0;
        }
        OffsetIndexFile.Lookup lookup;
        try {
            lookup = OffsetIndexFile.lastEntryWithin(indexFile, baseOffset, size);
        } catch (IOException e) {
            notes.add("offset index " + indexFile.getFileName() + " is unreadable (" + e.getMessage()
                    + "); read segment " + logFile.getFileName() + " from its start");
            return 0;
        }
        if (lookup.problem() != null) {
            notes.add("offset index " + indexFile.getFileName() + " is not usable (" + lookup.problem()
                    + "); read segment " + logFile.getFileName() + " from its start, as Kafka rebuilds a corrupt index");
            return 0;
        }
        if (lookup.entry() == null) {
            // Normal for a segment smaller than index.interval.bytes (4 KiB): Kafka wrote no entry yet.
            return 0;
        }
        OffsetIndexFile.Entry e = lookup.entry();
        BatchCheck check = checkBatchAt(log, e.position(), size, baseOffset);
        if (check.header() != null && check.header().baseOffset() <= e.offset()) {
            return e.position();
        }
        String why = check.header() == null ? check.invalidReason()
                : "the batch there starts at offset " + check.header().baseOffset() + ", after the entry's offset";
        notes.add("offset index " + indexFile.getFileName() + " is not usable (its last entry, offset " + e.offset()
                + " at position " + e.position() + ", does not point at a valid batch: " + why
                + "); read segment " + logFile.getFileName() + " from its start, as Kafka rebuilds a corrupt index");
        return 0;
    }

    private SegmentTail walk(FileChannel log, long size, Path logFile, long baseOffset, long start,
                             List<String> notes) throws IOException {
        long position = start;
        RecordBatchHeader last = null;
        String invalidReason = null;
        boolean zeroFilled = false;
        while (position < size) {
            BatchCheck check = checkBatchAt(log, position, size, baseOffset);
            if (check.header() == null) {
                if (check.legacyMagic() >= 0) {
                    throw new LogDirReadException("segment " + logFile + " holds message format v"
                            + check.legacyMagic() + " (magic " + check.legacyMagic() + ") at position " + position
                            + "; inspect reads only format v2 (Kafka 0.11 and later) — let the broker load this log,"
                            + " or read it with kafka-dump-log.sh");
                }
                invalidReason = check.invalidReason();
                zeroFilled = check.zeroFilled();
                break;
            }
            RecordBatchHeader batch = check.header();
            if (last != null && batch.baseOffset() < last.nextOffset()) {
                invalidReason = "batch at position " + position + " starts at offset " + batch.baseOffset()
                        + ", below the end of the batch before it (" + last.nextOffset() + ")";
                break;
            }
            last = batch;
            position += batch.sizeInBytes();
        }
        return new SegmentTail(logFile, baseOffset, size, last, position, size - position, invalidReason,
                zeroFilled, start, logBytesRead, notes);
    }

    /** One batch at a file position: its header when every check passed, otherwise why not. */
    record BatchCheck(RecordBatchHeader header, String invalidReason, boolean zeroFilled, int legacyMagic) {
        static BatchCheck valid(RecordBatchHeader header) {
            return new BatchCheck(header, null, false, -1);
        }

        static BatchCheck invalid(String reason) {
            return new BatchCheck(null, reason, false, -1);
        }
    }

    /**
     * Checks the batch at {@code position} in the order Kafka's reader does: enough bytes for a header, a
     * plausible length that fits in the file, the magic byte, then the CRC over the whole batch.
     */
    BatchCheck checkBatchAt(FileChannel log, long position, long size, long baseOffset) throws IOException {
        long remaining = size - position;
        int headerBytes = (int) Math.min(RecordBatchHeader.HEADER_SIZE, remaining);
        header.clear().limit(headerBytes);
        readFully(log, header, position);
        header.flip();
        if (isAllZero(header)) {
            return new BatchCheck(null, remaining + " bytes from position " + position + " start with zeros"
                    + " (preallocated or never-written space, not data)", true, -1);
        }
        if (remaining < RecordBatchHeader.HEADER_SIZE_UP_TO_MAGIC) {
            return BatchCheck.invalid("only " + remaining + " bytes left at position " + position
                    + ", too few for a batch header: a write was cut short");
        }
        int batchLength = header.getInt(8);
        byte magic = header.get(RecordBatchHeader.MAGIC_OFFSET);
        if (batchLength < 0 || (magic == RecordBatchHeader.CURRENT_MAGIC && batchLength < RecordBatchHeader.MIN_BATCH_LENGTH)) {
            return BatchCheck.invalid("batch at position " + position + " has an impossible length " + batchLength);
        }
        long batchSize = RecordBatchHeader.LOG_OVERHEAD + (long) batchLength;
        if (batchSize > remaining) {
            return BatchCheck.invalid("batch at position " + position + " needs " + batchSize + " bytes but only "
                    + remaining + " are left: a write was cut short (torn batch)");
        }
        if (magic == 0 || magic == 1) {
            return new BatchCheck(null, null, false, magic);
        }
        if (magic != RecordBatchHeader.CURRENT_MAGIC) {
            return BatchCheck.invalid("batch at position " + position + " has unknown magic " + magic);
        }
        RecordBatchHeader batch = RecordBatchHeader.parse(header);
        long computed = crcOfBatch(log, position, batchSize);
        if (computed != batch.crc()) {
            return BatchCheck.invalid("batch at position " + position + " fails its CRC check (stored "
                    + Long.toHexString(batch.crc()) + ", computed " + Long.toHexString(computed) + ")");
        }
        if (batch.lastOffsetDelta() < 0 || batch.lastOffset() < baseOffset
                || batch.lastOffset() - baseOffset > Integer.MAX_VALUE) {
            // The offset index stores offsets relative to the segment's base as int32: Kafka refuses the rest.
            return BatchCheck.invalid("batch at position " + position + " has offsets [" + batch.baseOffset()
                    + ".." + batch.lastOffset() + "] outside the range of segment " + baseOffset);
        }
        return BatchCheck.valid(batch);
    }

    /** CRC-32C of the bytes from the attributes field to the end of the batch, read in 64 KiB chunks. */
    private long crcOfBatch(FileChannel log, long position, long batchSize) throws IOException {
        CRC32C crc = new CRC32C();
        long from = position + RecordBatchHeader.ATTRIBUTES_OFFSET;
        long end = position + batchSize;
        while (from < end) {
            chunk.clear().limit((int) Math.min(CHUNK, end - from));
            readFully(log, chunk, from);
            chunk.flip();
            crc.update(chunk);
            from += chunk.limit();
        }
        return crc.getValue();
    }

    void readFully(FileChannel channel, ByteBuffer buffer, long position) throws IOException {
        long at = position;
        while (buffer.hasRemaining()) {
            int n = channel.read(buffer, at);
            if (n < 0) {
                throw new IOException("file ended at position " + at + " while its size said otherwise;"
                        + " is a broker still writing to it?");
            }
            at += n;
            logBytesRead += n;
        }
    }

    private static boolean isAllZero(ByteBuffer buffer) {
        for (int i = buffer.position(); i < buffer.limit(); i++) {
            if (buffer.get(i) != 0) {
                return false;
            }
        }
        return true;
    }
}
