// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;

/**
 * Reads record batches from a segment file the way Kafka 4.4 does, in the same order of checks, so that every reader
 * of a log dir (inspect's log end offsets, the salvage copy) stops where Kafka's log recovery truncates.
 *
 * <p>Kafka's batch iterator ({@code FileLogInputStream.nextBatch}) first frames a batch: it stops when 17 bytes or
 * fewer are left, throws CorruptRecordException for a length below 14, stops when the length runs past the end of
 * the file, and only then looks at the magic byte: below 2 (signed) a message of format v0/v1, from 2 up a v2 batch.
 * Log recovery ({@code LogSegment.recover}) then checks each framed batch ({@code ensureValid}): a v2 batch must be
 * at least 61 bytes and pass its CRC-32C from the attributes field to its end; a v0/v1 message must pass its CRC-32
 * from the magic byte to its end. The magic byte is covered by neither CRC, so a v2 batch whose magic was zeroed
 * fails as a v0 message would: it is corrupt, not of another format.
 *
 * <p>Memory is bounded whatever the file holds: a 61-byte header and a 64 KiB chunk for the CRC, never a buffer of
 * the size a length field claims.
 */
final class SegmentBatchReader {

    private static final int CHUNK = 64 * 1024;
    /** Kafka's smallest legal length field: that of a v0 message with empty key and value. */
    private static final int MIN_LENGTH = 14;
    /** Where a v0/v1 message's CRC-32 is stored (v2 keeps its partition leader epoch there). */
    private static final int LEGACY_CRC_OFFSET = 12;

    private final ByteBuffer header = ByteBuffer.allocate(RecordBatchHeader.HEADER_SIZE);
    private final ByteBuffer chunk = ByteBuffer.allocate(CHUNK);
    private long bytesRead;

    /** Bytes read from log files so far. */
    long bytesRead() {
        return bytesRead;
    }

    /**
     * Frames the batch at {@code position} as Kafka's iterator does, without its own checks: what a broker that
     * skipped recovery (after a clean shutdown) reads.
     */
    BatchCheck frame(FileChannel log, long position, long size) throws IOException {
        return frame(log, position, size, size);
    }

    /**
     * Frames the batch at {@code position} of a read that ends at {@code end} (Kafka reads slices of a segment), in a
     * file of {@code fileSize} bytes: the header of a v2 batch is read from the file whatever the slice, as Kafka does.
     */
    BatchCheck frame(FileChannel log, long position, long end, long fileSize) throws IOException {
        long remaining = end - position;
        int headerBytes = (int) Math.min(RecordBatchHeader.HEADER_SIZE, fileSize - position);
        header.clear().limit(headerBytes);
        readFully(log, header, position);
        header.flip();
        boolean zeros = isAllZero(header);
        if (remaining <= RecordBatchHeader.HEADER_SIZE_UP_TO_MAGIC) {
            return BatchCheck.end(zeros ? zeros(remaining, position)
                    : "only " + remaining + " bytes left at position " + position
                    + ", too few for a batch header: a write was cut short", zeros);
        }
        int length = header.getInt(8);
        if (length < MIN_LENGTH) {
            return BatchCheck.corrupt(zeros ? zeros(remaining, position)
                    : "batch at position " + position + " has an impossible length " + length, zeros);
        }
        long batchSize = RecordBatchHeader.LOG_OVERHEAD + (long) length;
        if (batchSize > remaining) {
            return BatchCheck.end("batch at position " + position + " needs " + batchSize + " bytes but only "
                    + remaining + " are left: a write was cut short (torn batch)", false);
        }
        byte magic = header.get(RecordBatchHeader.MAGIC_OFFSET);
        if (magic < RecordBatchHeader.CURRENT_MAGIC) {
            return BatchCheck.unchecked(RecordBatchHeader.legacy(header.getLong(0), length, magic,
                    Integer.toUnsignedLong(header.getInt(LEGACY_CRC_OFFSET)),
                    header.get(RecordBatchHeader.MAGIC_OFFSET + 1)));
        }
        if (headerBytes < RecordBatchHeader.HEADER_SIZE) {
            // Kafka reads the 61-byte header of a v2 batch even when the batch is shorter; here the file ends first
            return BatchCheck.shortHeader(RecordBatchHeader.logHeaderOnly(header.getLong(0), length, magic),
                    "batch at position " + position + " is " + batchSize + " bytes, shorter than a v2 batch header,"
                    + " and the file ends before 61 bytes");
        }
        return BatchCheck.unchecked(RecordBatchHeader.parse(header));
    }

    /**
     * Frames the batch at {@code position} and checks it as Kafka's log recovery does: the checks after which
     * recovery keeps a batch, or the first one that makes it truncate the segment here. Whether the batch's offsets
     * fit the segment is left to the caller ({@link RecordBatchHeader#fitsSegment}).
     */
    BatchCheck check(FileChannel log, long position, long size) throws IOException {
        BatchCheck framed = frame(log, position, size);
        if (framed.verdict() == BatchCheck.Verdict.SHORT_HEADER) {
            return BatchCheck.corrupt(framed.reason(), false);
        }
        if (!framed.isBatch()) {
            return framed;
        }
        RecordBatchHeader batch = framed.header();
        if (batch.isLegacy()) {
            long computed = crc(new CRC32(), log, position + RecordBatchHeader.MAGIC_OFFSET, position + batch.sizeInBytes());
            if (computed != batch.crc()) {
                return BatchCheck.corrupt(batch, "bytes at position " + position + " have magic " + batch.magic()
                        + " (below 2), so Kafka reads them as a message of format v0/v1, and its CRC-32 does not"
                        + " match (stored " + Long.toHexString(batch.crc()) + ", computed " + Long.toHexString(computed)
                        + "): not a batch");
            }
            return BatchCheck.valid(batch);
        }
        if (batch.batchLength() < RecordBatchHeader.MIN_BATCH_LENGTH) {
            return BatchCheck.corrupt(batch, "batch at position " + position + " has an impossible length "
                    + batch.batchLength() + " (a v2 batch needs at least " + RecordBatchHeader.MIN_BATCH_LENGTH + ")");
        }
        long computed = crc(new CRC32C(), log, position + RecordBatchHeader.ATTRIBUTES_OFFSET,
                position + batch.sizeInBytes());
        if (computed != batch.crc()) {
            return BatchCheck.corrupt(batch, "batch at position " + position + " fails its CRC check (stored "
                    + Long.toHexString(batch.crc()) + ", computed " + Long.toHexString(computed) + ")");
        }
        return BatchCheck.valid(batch);
    }

    /** The checksum of the file's bytes in {@code [from, to)}, read a chunk at a time. */
    private long crc(java.util.zip.Checksum checksum, FileChannel log, long from, long to) throws IOException {
        long at = from;
        while (at < to) {
            chunk.clear().limit((int) Math.min(CHUNK, to - at));
            readFully(log, chunk, at);
            chunk.flip();
            checksum.update(chunk);
            at += chunk.limit();
        }
        return checksum.getValue();
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
            bytesRead += n;
        }
    }

    private static String zeros(long remaining, long position) {
        return remaining + " bytes from position " + position + " start with zeros (preallocated or never-written"
                + " space, not data)";
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
