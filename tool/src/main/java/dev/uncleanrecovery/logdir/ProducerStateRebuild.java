// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The segments Kafka 4.4 reads <em>unchecked</em> while it loads a log: to rebuild the producer state
 * ({@code UnifiedLog.rebuildProducerState}) before it recovers a segment and once more at the log end, it reads the
 * batches from its latest producer snapshot ({@code <offset>.snapshot}) up to that point with its plain batch reader,
 * which throws on a length below 14. On a broker's own disk a snapshot sits at every rolled segment's base, so this
 * reads nothing it does not recover; without snapshots (a log copied without them, or never rolled) it reads every
 * segment before the recovery point, and damage there stops the broker.
 *
 * <p>Replayed here in Kafka's order, with the snapshots Kafka writes as it goes: one at the end of each rebuild and
 * of each recovered segment, at the base of the last two segments it passes, and none read but named, as Kafka
 * lists them. A failure is a {@link LogDirReadException} saying what Kafka does, or why inspect does not predict it.
 */
final class ProducerStateRebuild {

    private final Path logDir;
    private final TreeSet<Long> snapshots = new TreeSet<>();
    private final Set<Long> recovered = new HashSet<>();

    private ProducerStateRebuild(Path logDir) {
        this.logDir = logDir;
    }

    /** The producer snapshots the partition directory holds, as Kafka lists them when it opens the log. */
    static ProducerStateRebuild of(Path partitionDir, Path logDir) throws IOException {
        ProducerStateRebuild rebuild = new ProducerStateRebuild(logDir);
        try (DirectoryStream<Path> files = Files.newDirectoryStream(partitionDir, "*.snapshot")) {
            for (Path file : files) {
                String name = file.getFileName().toString();
                if (Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS) && name.matches("\\d{1,19}\\.snapshot")) {
                    rebuild.snapshots.add(Long.parseLong(name.substring(0, name.indexOf('.'))));
                }
            }
        }
        return rebuild;
    }

    /** Kafka rebuilds the state up to {@code segment} before it recovers it, from the segments loaded so far. */
    void beforeRecovering(SegmentFiles.Segment segment, List<SegmentFiles.Segment> loaded, long checkpointedLogStart)
            throws IOException {
        rebuild(segment.baseOffset(), checkpointedLogStart, false, loaded);
    }

    /** Recovery leaves a snapshot where the recovered segment ends. */
    void recovered(SegmentFiles.Segment segment, SegmentTail tail) {
        recovered.add(segment.baseOffset());
        snapshots.add(tail.nextOffset());
    }

    /** The last rebuild, up to the log end, over the segments left. */
    void atLoadEnd(List<SegmentFiles.Segment> kept, long logStartOffset, long logEndOffset, boolean cleanShutdown)
            throws IOException {
        removeStraySnapshots(kept);
        rebuild(logEndOffset, logStartOffset, cleanShutdown, kept);
    }

    private void rebuild(long target, long logStartOffset, boolean afterCleanShutdown,
                         List<SegmentFiles.Segment> segments) throws IOException {
        Set<Long> snapshotOffsets = new HashSet<>();
        if (!segments.isEmpty()) {
            snapshotOffsets.add(segments.get(segments.size() - 1).baseOffset());
            if (segments.size() > 1) {
                snapshotOffsets.add(segments.get(segments.size() - 2).baseOffset());
            }
        }
        snapshotOffsets.add(target);
        if (snapshots.isEmpty() && afterCleanShutdown) {
            // Kafka 4.4 takes no snapshot after a clean shutdown for an upgrade: it writes empty ones, reads nothing
            snapshots.addAll(snapshotOffsets);
            return;
        }
        // a fresh producer state starts at offset 0: at 0 there is nothing to load
        if (target > 0) {
            snapshots.removeIf(offset -> offset > target || offset <= logStartOffset);
            long mapEnd = snapshots.isEmpty() ? logStartOffset : snapshots.last();
            if (target > mapEnd) {
                for (SegmentFiles.Segment segment : overlapping(segments, mapEnd, target)) {
                    long start = Math.max(Math.max(segment.baseOffset(), mapEnd), logStartOffset);
                    if (snapshotOffsets.contains(segment.baseOffset())) {
                        snapshots.add(start);
                    }
                    if (!recovered.contains(segment.baseOffset())) {
                        readUnchecked(segment, start, target, segment == floor(segments, target));
                    }
                }
            }
        }
        snapshots.add(target);
    }

    /** Kafka's LogSegments.values(from, to): the segment holding {@code from} and those after it, below {@code to}. */
    private static List<SegmentFiles.Segment> overlapping(List<SegmentFiles.Segment> segments, long from, long to) {
        List<SegmentFiles.Segment> result = new ArrayList<>();
        int first = 0;
        for (int i = 0; i < segments.size(); i++) {
            if (segments.get(i).baseOffset() <= from) {
                first = i;
            }
        }
        for (int i = first; i < segments.size() && segments.get(i).baseOffset() < to; i++) {
            result.add(segments.get(i));
        }
        return result;
    }

    private static SegmentFiles.Segment floor(List<SegmentFiles.Segment> segments, long offset) {
        SegmentFiles.Segment floor = null;
        for (SegmentFiles.Segment segment : segments) {
            if (segment.baseOffset() <= offset) {
                floor = segment;
            }
        }
        return floor;
    }

    /** Kafka keeps only snapshots at segment bases, and the latest other one when it is past the last base. */
    private void removeStraySnapshots(List<SegmentFiles.Segment> segments) {
        Set<Long> bases = new HashSet<>();
        segments.forEach(s -> bases.add(s.baseOffset()));
        Long latestStray = null;
        for (Long offset : List.copyOf(snapshots)) {
            if (!bases.contains(offset)) {
                if (latestStray != null) {
                    snapshots.remove(latestStray);
                }
                latestStray = offset;
            }
        }
        if (latestStray != null && !segments.isEmpty() && latestStray < segments.get(segments.size() - 1).baseOffset()) {
            snapshots.remove(latestStray);
        }
    }

    /**
     * Reads {@code segment} as Kafka's producer state rebuild does ({@code LogSegment.read}): from the batch its
     * search finds for {@code start}, up to the batch it finds for {@code target} when the segment holds it, else to
     * the end; it reads each batch's header for its producer id, and decodes control batches.
     */
    private void readUnchecked(SegmentFiles.Segment segment, long start, long target, boolean holdsTarget)
            throws IOException {
        try (FileChannel log = LogDirFile.open(segment.log()); FileChannel index = LogDirFile.open(segment.offsetIndex())) {
            UncheckedReads reads = new UncheckedReads(segment.log(), log, logDir, "while it reads segment "
                    + segment.baseOffset() + " unchecked to rebuild producer state (no producer snapshot covers it, and"
                    + " it is not recovered)");
            long end = reads.size();
            if (holdsTarget) {
                UncheckedReads.Located limit = reads.search(target, OffsetIndexFile.kafkaPosition(index,
                        segment.baseOffset(), target));
                end = limit == null ? reads.size() : limit.position();
            }
            UncheckedReads.Located first = reads.search(start, OffsetIndexFile.kafkaPosition(index, segment.baseOffset(),
                    start));
            if (first == null) {
                return;
            }
            long position = first.position();
            for (UncheckedReads.Located batch = reads.next(position, end); batch != null;
                 batch = reads.next(position, end)) {
                if (!batch.batch().isLegacy()) {
                    reads.lastOffset(batch); // the header, read for the producer id
                    if (batch.batch().producerId() >= 0 && batch.batch().isControlBatch()
                            && !reads.checked(position).isBatch()) {
                        throw new LogDirReadException(segment.log() + ": the control batch at position " + position
                                + " fails its checks, and Kafka decodes it to rebuild producer state; what it makes of"
                                + " it is not predictable");
                    }
                }
                position += batch.batch().sizeInBytes();
            }
        }
    }
}
