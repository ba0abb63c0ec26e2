// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

import java.nio.file.Path;
import java.util.List;

/**
 * The end of one segment file as Kafka's log recovery would leave it.
 *
 * @param baseOffset        from the file name; the segment's next offset when it holds no valid batch
 * @param sizeInBytes       the file's size
 * @param lastBatch         the last batch that passed every check; null when there is none
 * @param validBytes        where the valid batches end: recovery truncates the file to this size
 * @param invalidTailBytes  bytes after the last valid batch ({@code sizeInBytes - validBytes})
 * @param invalidTailReason why the first of those bytes is not a valid batch; null when there are none
 * @param zeroFilledTail    the invalid tail starts with zeros (preallocated or never-written space), which is
 *                          not lost data, unlike a torn or corrupt batch
 * @param dataAfterCut      the invalid tail is not a write cut short: a batch that fails its checks is followed by
 *                          more bytes (or its length cannot be read), which recovery removes with it
 * @param scannedFrom       the file position the batch walk started at (0, or an offset index entry's)
 * @param logBytesRead      bytes read from the log file, to keep the "few reads at the tail" promise honest
 * @param notes             what else a person should know (an unusable index, ...)
 */
record SegmentTail(
        Path logFile,
        long baseOffset,
        long sizeInBytes,
        RecordBatchHeader lastBatch,
        long validBytes,
        long invalidTailBytes,
        String invalidTailReason,
        boolean zeroFilledTail,
        boolean dataAfterCut,
        long scannedFrom,
        long logBytesRead,
        List<String> notes) {

    SegmentTail {
        notes = List.copyOf(notes);
    }

    /** The offset Kafka gives the next batch appended to this segment: its log end offset if it is the last one. */
    long nextOffset() {
        return lastBatch == null ? baseOffset : lastBatch.nextOffset();
    }

    boolean hasValidBatch() {
        return lastBatch != null;
    }
}
