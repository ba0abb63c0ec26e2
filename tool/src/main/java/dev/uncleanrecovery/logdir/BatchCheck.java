// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

/**
 * What Kafka's log reading makes of the bytes at one position of a segment file.
 *
 * @param verdict    whether a batch starts here, and if not, how Kafka's reader stops
 * @param header     the batch; null unless {@link Verdict#VALID} or {@link Verdict#UNCHECKED}, or a
 *                   {@link Verdict#CORRUPT} batch that Kafka could frame (its CRC or size check failed), or the log
 *                   header of a {@link Verdict#SHORT_HEADER} one
 * @param reason     why the bytes are not a valid batch, for a person; null when they are
 * @param zeroFilled the bytes from here on start with zeros: preallocated or never-written space, not lost data
 */
record BatchCheck(Verdict verdict, RecordBatchHeader header, String reason, boolean zeroFilled) {

    enum Verdict {
        /** A whole batch that passes every check of Kafka's log recovery. */
        VALID,
        /** A whole batch whose own checks (size, CRC) were not run: what Kafka's reader sees outside recovery. */
        UNCHECKED,
        /**
         * Kafka's batch iterator ends here without an error: 17 bytes or fewer are left, or the batch's length runs
         * past the end of the file (a write cut short). Log recovery truncates the segment here.
         */
        END,
        /**
         * Kafka's reader throws CorruptRecordException here: a length below 14, a v2 batch shorter than its 61-byte
         * header, or a CRC that does not match. Log recovery truncates the segment here.
         */
        CORRUPT,
        /**
         * A v2 batch shorter than its 61-byte header at the very end of the file: Kafka's plain reader, which reads the
         * header to learn the batch's offsets, meets the end of the file. Log recovery counts it as {@link #CORRUPT}.
         */
        SHORT_HEADER
    }

    static BatchCheck valid(RecordBatchHeader header) {
        return new BatchCheck(Verdict.VALID, header, null, false);
    }

    static BatchCheck unchecked(RecordBatchHeader header) {
        return new BatchCheck(Verdict.UNCHECKED, header, null, false);
    }

    static BatchCheck end(String reason, boolean zeroFilled) {
        return new BatchCheck(Verdict.END, null, reason, zeroFilled);
    }

    static BatchCheck corrupt(String reason, boolean zeroFilled) {
        return new BatchCheck(Verdict.CORRUPT, null, reason, zeroFilled);
    }

    /** @param framed the batch's base offset and length, from its log header; the rest is unknown */
    static BatchCheck shortHeader(RecordBatchHeader framed, String reason) {
        return new BatchCheck(Verdict.SHORT_HEADER, framed, reason, false);
    }

    /** A batch Kafka frames, whose own checks fail: its length says where the bytes after it start. */
    static BatchCheck corrupt(RecordBatchHeader framed, String reason) {
        return new BatchCheck(Verdict.CORRUPT, framed, reason, false);
    }

    /** A batch starts here; with {@link Verdict#VALID}, one that log recovery keeps. */
    boolean isBatch() {
        return verdict == Verdict.VALID || verdict == Verdict.UNCHECKED;
    }
}
