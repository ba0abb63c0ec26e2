// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

import java.nio.ByteBuffer;

/**
 * The fixed 61-byte header of a record batch in message format v2 (magic 2), as it sits in a segment file.
 *
 * <pre>
 * offset  field                 type
 *  0      baseOffset            int64   \ "log overhead": every message format starts with these two
 *  8      batchLength           int32   / batchLength counts the bytes after this field
 * 12      partitionLeaderEpoch  int32   not covered by the CRC: the leader stamps it after the producer
 * 16      magic                 int8    at byte 16 in every message format, so v0/v1 are recognisable
 * 17      crc                   uint32  CRC-32C of the bytes from attributes to the end of the batch
 * 21      attributes            int16   bit 4 transactional, bit 5 control batch
 * 23      lastOffsetDelta       int32
 * 27      baseTimestamp         int64
 * 35      maxTimestamp          int64
 * 43      producerId            int64
 * 51      producerEpoch         int16
 * 53      baseSequence          int32
 * 57      recordsCount          int32
 * 61      records...
 * </pre>
 *
 * <p>A message of format v0/v1 (magic 0 or 1) shares only the first 17 bytes: offset, length, a CRC-32 where v2 has
 * the partition leader epoch, and magic. Kafka reads any magic below 2 as such a message (the byte is signed) and
 * any magic from 2 up as a v2 batch; {@link #legacy} describes one with the fields it has.
 */
record RecordBatchHeader(
        long baseOffset,
        int batchLength,
        int partitionLeaderEpoch,
        byte magic,
        long crc,
        short attributes,
        int lastOffsetDelta,
        long baseTimestamp,
        long maxTimestamp,
        long producerId,
        short producerEpoch,
        int baseSequence,
        int recordsCount) {

    /** baseOffset + batchLength: the part of a batch that is outside batchLength. */
    static final int LOG_OVERHEAD = 12;
    /** Bytes up to and including magic: fewer than that left at the end of a file is a torn write. */
    static final int HEADER_SIZE_UP_TO_MAGIC = 17;
    static final int MAGIC_OFFSET = 16;
    static final int CRC_OFFSET = 17;
    static final int ATTRIBUTES_OFFSET = 21;
    static final int HEADER_SIZE = 61;
    /** The smallest batchLength a v2 batch can have: a header without records. */
    static final int MIN_BATCH_LENGTH = HEADER_SIZE - LOG_OVERHEAD;
    static final byte CURRENT_MAGIC = 2;
    /** partitionLeaderEpoch of a v0/v1 message, which has none. */
    static final int NO_PARTITION_LEADER_EPOCH = -1;

    private static final int TRANSACTIONAL_FLAG = 0x10;
    private static final int CONTROL_FLAG = 0x20;
    private static final int LEGACY_CODEC_MASK = 0x07;

    /** Parses a header from {@code buffer} at its position (which is left unchanged); needs 61 bytes. */
    static RecordBatchHeader parse(ByteBuffer buffer) {
        int p = buffer.position();
        return new RecordBatchHeader(
                buffer.getLong(p),
                buffer.getInt(p + 8),
                buffer.getInt(p + 12),
                buffer.get(p + MAGIC_OFFSET),
                Integer.toUnsignedLong(buffer.getInt(p + CRC_OFFSET)),
                buffer.getShort(p + ATTRIBUTES_OFFSET),
                buffer.getInt(p + 23),
                buffer.getLong(p + 27),
                buffer.getLong(p + 35),
                buffer.getLong(p + 43),
                buffer.getShort(p + 51),
                buffer.getInt(p + 53),
                buffer.getInt(p + 57));
    }

    /**
     * A message of format v0/v1 (a compressed one wraps others): Kafka gives it the offset in its log header as its
     * last offset and no leader epoch.
     */
    static RecordBatchHeader legacy(long offset, int length, byte magic, long crc, byte attributes) {
        return new RecordBatchHeader(offset, length, NO_PARTITION_LEADER_EPOCH, magic, crc, attributes, 0, -1, -1, -1,
                (short) -1, -1, 1);
    }

    /** A v2 batch of which only the log header (offset, length) and magic could be read. */
    static RecordBatchHeader logHeaderOnly(long baseOffset, int length, byte magic) {
        return new RecordBatchHeader(baseOffset, length, -1, magic, -1, (short) 0, 0, -1, -1, -1, (short) -1, -1, 0);
    }

    /** A v0/v1 message whose attributes name a compression codec: it wraps others, which Kafka reads for its base offset. */
    boolean isCompressedLegacy() {
        return isLegacy() && (attributes & LEGACY_CODEC_MASK) != 0;
    }

    /** A message of format v0/v1, which Kafka reads (and its log recovery keeps) but never writes any more. */
    boolean isLegacy() {
        return magic < CURRENT_MAGIC;
    }

    /**
     * Kafka's offset index keeps offsets relative to the segment's base offset as int32: a batch whose last offset is
     * below the base or more than 2^31-1 above it does not fit its segment.
     */
    boolean fitsSegment(long segmentBaseOffset) {
        long relative = lastOffset() - segmentBaseOffset;
        return relative >= 0 && relative <= Integer.MAX_VALUE;
    }

    /** Bytes this batch occupies in the segment file. */
    long sizeInBytes() {
        return LOG_OVERHEAD + (long) batchLength;
    }

    long lastOffset() {
        return baseOffset + lastOffsetDelta;
    }

    /** The offset the next batch gets; for the last batch of a log this is the log end offset. */
    long nextOffset() {
        return lastOffset() + 1;
    }

    boolean isTransactional() {
        return !isLegacy() && (attributes & TRANSACTIONAL_FLAG) != 0;
    }

    boolean isControlBatch() {
        return !isLegacy() && (attributes & CONTROL_FLAG) != 0;
    }

    @Override
    public String toString() {
        if (isLegacy()) {
            return "message format v" + magic + " at offset " + baseOffset + ", " + sizeInBytes() + " bytes";
        }
        return "batch [" + baseOffset + ".." + lastOffset() + "] epoch " + partitionLeaderEpoch
                + ", " + sizeInBytes() + " bytes" + (isControlBatch() ? ", control" : "")
                + (isTransactional() ? ", transactional" : "");
    }
}
