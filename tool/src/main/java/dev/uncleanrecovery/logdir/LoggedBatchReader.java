// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;

/**
 * The batches of a stopped broker's log where a new leader may cut it, for the plan to tell a lost batch from one the
 * new leader holds alike: a producer's batch that one leader appended without acknowledging it is sent again to the
 * next, which appends it at the same offsets in its own epoch. So the cut lies where this replica's epoch starts (it
 * led in an epoch the new leader lacks: the first batches of its last epochs), or where the new leader's epoch starts
 * (this replica led before it and stopped: its last batches). Only batch headers are read (61 bytes each), starting
 * from an offset index entry, never past the log end offset inspect found.
 */
final class LoggedBatchReader {

    /** Epochs whose first batches are kept, latest first; a replica that led the latest few epochs alone is rare. */
    static final int EPOCHS = 3;
    /** Batches kept at each place: more than a producer has in flight (five by default), for a few producers. */
    static final int BATCHES = 16;
    /** How far back from the log end the last batches are looked for, in offsets. */
    private static final long TAIL_OFFSETS = 512;

    private final List<SegmentFiles.Segment> segments;
    private final Set<Long> recovered;
    private final long logStart;
    private final long logEnd;
    private final SegmentBatchReader reader = new SegmentBatchReader();

    private LoggedBatchReader(List<SegmentFiles.Segment> segments, Set<Long> recovered, long logStart, long logEnd) {
        this.segments = segments;
        this.recovered = recovered;
        this.logStart = logStart;
        this.logEnd = logEnd;
    }

    /**
     * The first batches of the latest {@link #EPOCHS} epochs and the last {@link #BATCHES} batches, by offset.
     *
     * @param segments  the segments Kafka keeps once the log is loaded, by base offset
     * @param recovered base offsets of the segments Kafka recovers (and re-indexes) at start-up
     * @param epochs    the epoch cache cut to the log, oldest first
     */
    static List<LoggedBatch> read(List<SegmentFiles.Segment> segments, Set<Long> recovered, long logStart,
                                  long logEnd, List<EpochEntry> epochs) throws IOException {
        TreeMap<Long, LoggedBatch> kept = new TreeMap<>();
        if (segments.isEmpty() || logEnd <= logStart) {
            return List.of();
        }
        LoggedBatchReader log = new LoggedBatchReader(segments, recovered, logStart, logEnd);
        for (int i = Math.max(0, epochs.size() - EPOCHS); i < epochs.size(); i++) {
            for (LoggedBatch batch : log.from(epochs.get(i).startOffset(), BATCHES, false)) {
                kept.put(batch.baseOffset(), batch);
            }
        }
        Deque<LoggedBatch> last = new ArrayDeque<>();
        for (LoggedBatch batch : log.from(Math.max(logStart, logEnd - TAIL_OFFSETS), Integer.MAX_VALUE, true)) {
            last.addLast(batch);
            if (last.size() > BATCHES) {
                last.removeFirst();
            }
        }
        last.forEach(batch -> kept.put(batch.baseOffset(), batch));
        return List.copyOf(kept.values());
    }

    /**
     * Up to {@code max} batches from the one holding {@code offset} on, below the log end, across segments, as
     * fetches from there read them, as far as they follow each other without a gap; or, {@code pastGaps}, those after
     * the last gap (the cleaner leaves gaps in a compacted log's older segments, never in the one being appended).
     */
    private List<LoggedBatch> from(long offset, int max, boolean pastGaps) throws IOException {
        int first = 0;
        for (int i = 0; i < segments.size(); i++) {
            if (segments.get(i).baseOffset() <= offset) {
                first = i;
            }
        }
        List<LoggedBatch> found = new ArrayList<>();
        long target = offset;
        for (int i = first; i < segments.size() && found.size() < max; i++) {
            SegmentFiles.Segment segment = segments.get(i);
            try (FileChannel log = LogDirFile.open(segment.log())) {
                long size = log.size();
                long position = startPosition(segment, log, target, size);
                while (position < size && found.size() < max) {
                    BatchCheck framed = reader.frame(log, position, size);
                    RecordBatchHeader batch = framed.isBatch() ? framed.header() : null;
                    // a legacy message's CRC covers other bytes than a v2 batch's: not comparable, so none is kept
                    if (batch == null || batch.isLegacy() || (!found.isEmpty() && batch.lastOffset() < target)) {
                        return found;
                    }
                    position += batch.sizeInBytes();
                    if (batch.lastOffset() < target) {
                        continue; // before the offset looked for: Kafka's search passes it by
                    }
                    if (batch.baseOffset() >= logEnd || batch.lastOffset() >= logEnd) {
                        return found;
                    }
                    if (!found.isEmpty() && batch.baseOffset() != target) {
                        if (!pastGaps) {
                            return found;
                        }
                        found.clear();
                    }
                    if (batch.baseOffset() >= logStart) {
                        found.add(new LoggedBatch(batch.baseOffset(), batch.lastOffset(), batch.crc()));
                    }
                    target = batch.lastOffset() + 1;
                }
            }
        }
        return found;
    }

    /**
     * Where a fetch of {@code offset} starts reading the segment: the position Kafka's own lookup in its offset index
     * gives, trusting the entries as Kafka does; for a segment Kafka recovers at start-up (it rebuilds the index
     * then), the floor entry of the index on disk when the batch it names starts there, else the segment's start.
     */
    private long startPosition(SegmentFiles.Segment segment, FileChannel log, long offset, long size)
            throws IOException {
        if (!recovered.contains(segment.baseOffset()) && segment.hasOffsetIndex()
                && Files.isRegularFile(segment.offsetIndex(), LinkOption.NOFOLLOW_LINKS)) {
            try (FileChannel index = LogDirFile.open(segment.offsetIndex())) {
                return OffsetIndexFile.kafkaPosition(index, segment.baseOffset(), offset);
            }
        }
        return verifiedFloorEntry(segment, log, offset, size);
    }

    /**
     * The offset index's floor entry for {@code offset} when the batch it names starts there (Kafka indexes a batch's
     * last offset with its position); else 0.
     */
    private long verifiedFloorEntry(SegmentFiles.Segment segment, FileChannel log, long offset, long size)
            throws IOException {
        if (!segment.hasOffsetIndex() || !Files.isRegularFile(segment.offsetIndex(), LinkOption.NOFOLLOW_LINKS)
                || size == 0) {
            return 0;
        }
        OffsetIndexFile.Lookup lookup;
        try {
            lookup = OffsetIndexFile.floorEntry(segment.offsetIndex(), segment.baseOffset(), offset, size);
        } catch (IOException e) {
            return 0;
        }
        if (lookup.entry() == null) {
            return 0;
        }
        BatchCheck framed = reader.frame(log, lookup.entry().position(), size);
        return framed.isBatch() && framed.header().lastOffset() == lookup.entry().offset()
                ? lookup.entry().position() : 0;
    }
}
