// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.List;

/**
 * What Kafka 4.4's recovery of one segment ({@code LogSegment.recover}) keeps of it, read-only: every batch from the
 * start of the file is checked ({@link SegmentBatchReader#check}), and the segment is cut at the first that fails. Each
 * kept batch of format v2 with a later epoch than the cache's latest adds that epoch to the cache, as recovery does.
 *
 * <p>Two kinds of valid batch make the outcome depend on more than the file, so they end the prediction: a batch
 * whose offsets do not fit the segment (Kafka splits the segment), and a batch that does not end after the one before
 * it (Kafka keeps it or empties the whole segment, depending on whether an offset index entry falls on it, which
 * depends on the topic's {@code index.interval.bytes}).
 */
final class SegmentRecovery {

    private SegmentRecovery() {
    }

    /**
     * @param epochs the partition's epoch cache, to which recovery adds the epochs of the kept batches
     * @throws LogDirReadException when what Kafka keeps cannot be predicted
     */
    static SegmentTail recover(Path logFile, long baseOffset, LeaderEpochCache epochs) throws IOException {
        SegmentBatchReader reader = new SegmentBatchReader();
        try (FileChannel log = LogDirFile.open(logFile)) {
            long size = log.size();
            long position = 0;
            RecordBatchHeader last = null;
            BatchCheck stop = null;
            while (position < size) {
                BatchCheck check = reader.check(log, position, size);
                if (!check.isBatch()) {
                    stop = check;
                    break;
                }
                RecordBatchHeader batch = check.header();
                if (!batch.fitsSegment(baseOffset)) {
                    throw new LogDirReadException(logFile + ": the valid batch at position " + position + " ends at"
                            + " offset " + batch.lastOffset() + ", which segment " + baseOffset + " cannot index: Kafka"
                            + " splits such a segment when it loads it, which inspect does not predict");
                }
                if (last != null && batch.lastOffset() <= last.lastOffset()) {
                    throw new LogDirReadException(logFile + ": the valid batch at position " + position + " ends at"
                            + " offset " + batch.lastOffset() + ", not after the batch before it (" + last.lastOffset()
                            + "): whether Kafka's recovery keeps it or empties the segment depends on the topic's"
                            + " index.interval.bytes, so inspect does not predict this log");
                }
                if (!batch.isLegacy()) {
                    epochs.assignRecovered(batch.partitionLeaderEpoch(), batch.baseOffset(),
                            logFile + " position " + position);
                }
                last = batch;
                position += batch.sizeInBytes();
            }
            boolean dataAfterCut = stop != null && stop.verdict() == BatchCheck.Verdict.CORRUPT && !stop.zeroFilled()
                    && (stop.header() == null || position + stop.header().sizeInBytes() < size);
            return new SegmentTail(logFile, baseOffset, size, last, position, size - position,
                    stop == null ? null : stop.reason(), stop != null && stop.zeroFilled(), dataAfterCut, 0,
                    reader.bytesRead(), List.of());
        }
    }
}
