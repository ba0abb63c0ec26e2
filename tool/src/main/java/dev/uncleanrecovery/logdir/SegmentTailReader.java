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
 * point), found as Kafka finds it ({@code LogSegment.readNextOffset}): it looks the offset of its offset index's last
 * entry up in the index, searches the log from there ({@link UncheckedReads#search}), and takes the last batch of the
 * file from the batch found; when it finds none, the segment counts as empty and ends at its base offset. Nothing is
 * checked, so a corrupt batch there is served as it is: noted, not cut.
 *
 * <p>A 1 GiB segment costs an index lookup (a binary search of 8-byte reads) and the last few KiB.
 *
 * <p>Opens files read-only: it never writes, locks or renames anything.
 */
final class SegmentTailReader {

    private SegmentTailReader() {
    }

    /** @throws LogDirReadException when Kafka's reader fails on the segment, with what the broker does */
    static SegmentTail read(Path logFile, long baseOffset, Path indexFile, Path logDir) throws IOException {
        try (FileChannel log = LogDirFile.open(logFile)) {
            UncheckedReads reads = new UncheckedReads(logFile, log, logDir, "while it finds the end of segment "
                    + baseOffset + " (it does not recover the segment)");
            long size = reads.size();
            OffsetIndexFile.KafkaLookup lookup;
            try (FileChannel index = LogDirFile.open(indexFile)) {
                lookup = OffsetIndexFile.kafkaLookupOfLastEntry(index, baseOffset);
            }
            List<String> notes = new ArrayList<>();
            UncheckedReads.Located found = reads.search(lookup.target(), lookup.position());
            if (found == null) {
                if (size > 0) {
                    notes.add("Kafka looks up offset " + lookup.target() + " (the last entry of " + indexFile.getFileName()
                            + ", position " + lookup.position() + ") and finds no batch from there: it takes segment "
                            + baseOffset + " as empty, so the log ends at " + baseOffset + " though the file holds "
                            + size + " bytes; moving the index aside makes Kafka recover the segment instead");
                }
                return new SegmentTail(logFile, baseOffset, size, null, 0, size, null, false, false, lookup.position(),
                        reads.bytesRead(), notes);
            }
            UncheckedReads.Located last = reads.lastBatch(found.position(), size);
            long end = last.position() + last.batch().sizeInBytes();
            RecordBatchHeader lastBatch = withKnownLastOffset(reads, last);
            noteUncheckedDamage(reads, found.position(), end, notes);
            String tailReason = end < size ? reads.endReason(end) : null;
            return new SegmentTail(logFile, baseOffset, size, lastBatch, end, size - end, tailReason, false, false,
                    lookup.position(), reads.bytesRead(), notes);
        }
    }

    /** The last batch, its header read as Kafka reads it for the next offset (which fails where the file cuts it). */
    private static RecordBatchHeader withKnownLastOffset(UncheckedReads reads, UncheckedReads.Located last) {
        reads.lastOffset(last);
        return last.batch();
    }

    /** Batches that recovery would have cut, and which Kafka serves unchecked since it does not recover the segment. */
    private static void noteUncheckedDamage(UncheckedReads reads, long from, long end, List<String> notes)
            throws IOException {
        long position = from;
        while (position < end) {
            BatchCheck check = reads.checked(position);
            if (!check.isBatch()) {
                notes.add("Kafka serves the batches from position " + position + " unchecked, though the first of"
                        + " them would fail its recovery (" + check.reason() + "): its followers cannot fetch it");
                return;
            }
            position += check.header().sizeInBytes();
        }
    }
}
