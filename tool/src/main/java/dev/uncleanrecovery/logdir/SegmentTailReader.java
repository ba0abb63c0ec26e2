// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The end of a segment that Kafka 4.4 loads without recovering it (after a clean shutdown, or before the recovery
 * point), found the way Kafka finds it ({@code LogSegment.readNextOffset}): it looks up the offset of its offset
 * index's last entry through the index, reads batches from there up to the first one that reaches that offset, and
 * takes the last batch of the file from there on. It checks none of them: this reader does, and stops predicting where
 * a batch fails, since the broker would then serve what recovery would have cut.
 *
 * <p>A 1 GiB segment costs an index lookup (a binary search of 8-byte reads) and the last few KiB.
 *
 * <p>Opens files read-only: it never writes, locks or renames anything.
 */
final class SegmentTailReader {

    private SegmentTailReader() {
    }

    /**
     * @throws LogDirReadException when the segment holds a batch that fails Kafka's checks after the index's last entry,
     *                             or the index and the log disagree: Kafka would serve it unchecked, which inspect
     *                             does not predict
     */
    static SegmentTail read(Path logFile, long baseOffset, Path indexFile) throws IOException {
        SegmentBatchReader reader = new SegmentBatchReader();
        try (FileChannel log = LogDirFile.open(logFile)) {
            long size = log.size();
            OffsetIndexFile.KafkaLookup lookup;
            try (FileChannel index = LogDirFile.open(indexFile)) {
                lookup = OffsetIndexFile.kafkaLookupOfLastEntry(index, baseOffset);
            }
            String moveIndexAside = " — move " + indexFile.getFileName() + " out of the partition directory (Kafka then"
                    + " recovers the segment at start-up and rebuilds the index) and inspect again";
            long position = lookup.position();
            RecordBatchHeader last = null;
            boolean reachedTarget = false;
            BatchCheck stop = null;
            while (position < size) {
                BatchCheck check = reader.check(log, position, size);
                if (check.verdict() == BatchCheck.Verdict.END) {
                    stop = check;
                    break;
                }
                if (!check.isBatch()) {
                    throw new LogDirReadException(logFile + ": Kafka does not recover this segment at start-up, and the"
                            + " " + check.reason() + "; what the broker serves from here is not predictable"
                            + moveIndexAside);
                }
                RecordBatchHeader batch = check.header();
                reachedTarget |= batch.lastOffset() >= lookup.target();
                last = batch;
                position += batch.sizeInBytes();
            }
            if (size > 0 && !reachedTarget) {
                throw new LogDirReadException(logFile + ": Kafka does not recover this segment at start-up and finds its"
                        + " end through the offset index, whose last entry (offset " + lookup.target() + ", position "
                        + lookup.position() + ") names no batch of the log; what the broker serves is not predictable"
                        + moveIndexAside);
            }
            List<String> notes = new ArrayList<>();
            return new SegmentTail(logFile, baseOffset, size, last, position, size - position,
                    stop == null ? null : stop.reason(), stop != null && stop.zeroFilled(), false, lookup.position(),
                    reader.bytesRead(), notes);
        }
    }
}
