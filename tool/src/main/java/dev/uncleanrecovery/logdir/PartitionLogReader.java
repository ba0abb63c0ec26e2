// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

/**
 * Reads one partition directory into a {@link PartitionLogSummary}, predicting what Kafka's log loading will
 * make of it at the next start-up. Every problem becomes a note or the summary's error: it never throws.
 */
final class PartitionLogReader {

    /** Segment files are named by their base offset, zero-padded to 20 digits. */
    private static final Pattern SEGMENT_FILE = Pattern.compile("\\d{20}\\.log");

    /** What the log dir around a partition directory says about it. */
    record LogDirContext(Path logDir, int brokerId, CleanShutdownMarker cleanShutdown,
                         Map<TopicPartition, Long> logStartOffsets, Map<TopicPartition, Long> recoveryPoints) {
    }

    private final Path dir;
    private final TopicPartition topicPartition;
    private final LogDirContext context;
    private final List<String> notes = new ArrayList<>();

    private PartitionLogReader(Path dir, TopicPartition topicPartition, LogDirContext context) {
        this.dir = dir;
        this.topicPartition = topicPartition;
        this.context = context;
    }

    static PartitionLogSummary read(Path partitionDir, TopicPartition topicPartition, LogDirContext context) {
        return new PartitionLogReader(partitionDir, topicPartition, context).read();
    }

    private PartitionLogSummary read() {
        Uuid topicId = readTopicId();
        try {
            return readLog(topicId);
        } catch (IOException | LogDirReadException e) {
            boolean namesItsFile = e instanceof LogDirReadException || e instanceof FileSystemException;
            return summary(topicId, -1, -1, -1, -1, 0, namesItsFile ? describe(e)
                    : "cannot read the log in " + dir + ": " + describe(e));
        }
    }

    private PartitionLogSummary readLog(Uuid topicId) throws IOException {
        List<Long> segments = segmentBaseOffsets();
        // Kafka starts from 0 when the log dir's checkpoint has no entry for the partition.
        long checkpointedLogStart = context.logStartOffsets().getOrDefault(topicPartition, 0L);
        if (segments.isEmpty()) {
            notes.add("no segment files: Kafka creates an empty segment at offset " + checkpointedLogStart
                    + " (the log start offset checkpoint)");
            int lastWritten = lastWrittenEpoch(checkpointedLogStart, checkpointedLogStart, -1);
            return summary(topicId, checkpointedLogStart, checkpointedLogStart, lastWritten, -1, 0, null);
        }

        long lastBase = segments.get(segments.size() - 1);
        SegmentTail tail = SegmentTailReader.read(segmentFile(lastBase), lastBase, indexFile(lastBase));
        notes.addAll(tail.notes());
        if (tail.invalidTailBytes() > 0) {
            notes.add(tail.invalidTailBytes() + " bytes after the last valid batch of segment " + lastBase
                    + " (" + tail.invalidTailReason() + ")" + (tail.zeroFilledTail() ? "" : "; they hold no"
                    + " readable data") + "; " + (context.cleanShutdown().present()
                    ? "the clean-shutdown marker makes Kafka skip log recovery, so nothing checks them at start-up;"
                    + " inspect counts the log only up to the last valid batch"
                    : "Kafka's log recovery will truncate them"));
        }
        long logEndOffset = tail.nextOffset();
        RecordBatchHeader lastBatch = tail.hasValidBatch() ? tail.lastBatch() : lastBatchBefore(segments);
        int lastBatchEpoch = lastBatch == null ? -1 : lastBatch.partitionLeaderEpoch();

        long logStartOffset = Math.max(checkpointedLogStart, segments.get(0));
        if (logEndOffset < checkpointedLogStart) {
            // Kafka deletes every segment when the log ends before its checkpointed start and starts over there.
            notes.add("the log ends at " + logEndOffset + ", before its checkpointed log start offset "
                    + checkpointedLogStart + ": Kafka will delete all segments and start the log at "
                    + checkpointedLogStart);
            return summary(topicId, checkpointedLogStart, checkpointedLogStart, -1, lastBatchEpoch,
                    tail.invalidTailBytes(), null);
        }
        noteUnrecoveredSegments(lastBase);
        int lastWritten = lastWrittenEpoch(logEndOffset, checkpointedLogStart, lastBatchEpoch);
        return summary(topicId, logStartOffset, logEndOffset, lastWritten, lastBatchEpoch, tail.invalidTailBytes(), null);
    }

    /**
     * The latest epoch of the leader epoch cache as Kafka will hold it after loading the log.
     *
     * <p>Kafka cuts the cache to the log at every load, clean or not: entries that start at or after the log end
     * offset are dropped (a replica elected leader that wrote nothing leaves such an entry, and so does a log
     * whose tail recovery removed), and the earliest entry is moved up to the log start offset. So the answer is
     * the highest epoch whose entry, so adjusted, starts below the log end offset. After an unclean shutdown,
     * recovery also adds the epoch of recovered batches when it is later than the cache's latest.
     */
    private int lastWrittenEpoch(long logEndOffset, long logStartOffset, int lastBatchEpoch) {
        Path file = dir.resolve(CheckpointFile.LEADER_EPOCH);
        List<EpochEntry> entries;
        try {
            entries = CheckpointFile.readLeaderEpochs(file);
        } catch (NoSuchFileException e) {
            notes.add(CheckpointFile.LEADER_EPOCH + " is missing; last written epoch taken from the last batch ("
                    + lastBatchEpoch + ")");
            return lastBatchEpoch;
        } catch (IOException | LogDirReadException e) {
            notes.add(CheckpointFile.LEADER_EPOCH + " is unusable (" + describe(e)
                    + "); last written epoch taken from the last batch (" + lastBatchEpoch + ")");
            return lastBatchEpoch;
        }
        List<EpochEntry> dropped = entries.stream()
                .filter(e -> Math.max(e.startOffset(), logStartOffset) >= logEndOffset).toList();
        OptionalInt kept = entries.stream()
                .filter(e -> Math.max(e.startOffset(), logStartOffset) < logEndOffset)
                .mapToInt(EpochEntry::epoch).max();
        // An empty log always has its leader's epoch at the log end offset: only a non-empty one is worth a note.
        if (!dropped.isEmpty() && logEndOffset > logStartOffset) {
            notes.add(CheckpointFile.LEADER_EPOCH + " entries at or after the log end offset " + logEndOffset + " ("
                    + dropped.stream().map(e -> "epoch " + e.epoch() + " from " + e.startOffset())
                            .collect(Collectors.joining(", "))
                    + ") name no data on disk; Kafka drops them when it loads the log");
        }
        int checkpointEpoch = kept.orElse(-1);
        if (!context.cleanShutdown().present() && lastBatchEpoch > checkpointEpoch) {
            notes.add("the last batch has epoch " + lastBatchEpoch + ", later than " + CheckpointFile.LEADER_EPOCH
                    + "'s " + checkpointEpoch + ": Kafka's log recovery adds it to the epoch cache");
            return lastBatchEpoch;
        }
        if (lastBatchEpoch >= 0 && lastBatchEpoch != checkpointEpoch) {
            notes.add("the last batch has epoch " + lastBatchEpoch + " but " + CheckpointFile.LEADER_EPOCH
                    + " ends at epoch " + checkpointEpoch + " below the log end offset; using the checkpoint,"
                    + " which is what Kafka will serve");
        }
        return checkpointEpoch;
    }

    /**
     * When the last segment holds no valid batch, the last batch (and its epoch) is in an earlier segment.
     * Empty segments cost nothing to skip; at most one non-empty segment is read, at its tail.
     */
    private RecordBatchHeader lastBatchBefore(List<Long> segments) throws IOException {
        for (int i = segments.size() - 2; i >= 0; i--) {
            long base = segments.get(i);
            if (Files.size(segmentFile(base)) == 0) {
                continue;
            }
            SegmentTail tail = SegmentTailReader.read(segmentFile(base), base, indexFile(base));
            if (tail.invalidTailBytes() > 0) {
                notes.add("earlier segment " + base + " also has " + tail.invalidTailBytes()
                        + " invalid bytes at its end (" + tail.invalidTailReason() + ")");
            }
            if (tail.hasValidBatch()) {
                return tail.lastBatch();
            }
        }
        return null;
    }

    /**
     * After an unclean shutdown Kafka recovers every segment from the recovery point on; inspect checks only
     * the tail of the last one, so say when more is at stake.
     */
    private void noteUnrecoveredSegments(long lastBase) {
        Long recoveryPoint = context.recoveryPoints().get(topicPartition);
        if (!context.cleanShutdown().present() && recoveryPoint != null && recoveryPoint < lastBase) {
            notes.add("the recovery point " + recoveryPoint + " is before the last segment (" + lastBase
                    + "): Kafka's recovery will also re-check the segments in between, which inspect did not read");
        }
    }

    private Uuid readTopicId() {
        try {
            return PartitionMetadataFile.readTopicId(dir);
        } catch (NoSuchFileException e) {
            notes.add(PartitionMetadataFile.FILE_NAME + " is missing: topic id unknown, so a topic deleted and"
                    + " re-created under the same name cannot be told apart");
        } catch (IOException | LogDirReadException e) {
            notes.add(PartitionMetadataFile.FILE_NAME + " is unusable (" + describe(e) + "): topic id unknown");
        }
        return null;
    }

    private List<Long> segmentBaseOffsets() throws IOException {
        List<Long> offsets = new ArrayList<>();
        int swapFiles = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path file : files) {
                String name = file.getFileName().toString();
                if (SEGMENT_FILE.matcher(name).matches()) {
                    offsets.add(Long.parseLong(name.substring(0, 20)));
                } else if (name.endsWith(".swap")) {
                    swapFiles++;
                }
            }
        }
        if (swapFiles > 0) {
            // .swap files come from a log cleaner pass or segment split cut short; the cleaner never touches
            // the active segment, so the log end offset does not depend on them.
            notes.add(swapFiles + " .swap file(s): a compaction or segment split was interrupted; Kafka completes"
                    + " it at start-up");
        }
        offsets.sort(null);
        return offsets;
    }

    private Path segmentFile(long baseOffset) {
        return dir.resolve(String.format("%020d.log", baseOffset));
    }

    private Path indexFile(long baseOffset) {
        return dir.resolve(String.format("%020d.index", baseOffset));
    }

    private PartitionLogSummary summary(Uuid topicId, long logStartOffset, long logEndOffset, int lastWrittenEpoch,
                                        int lastBatchEpoch, long invalidTailBytes, String error) {
        CleanShutdownMarker marker = context.cleanShutdown();
        return new PartitionLogSummary(topicPartition.topic(), topicPartition.partition(), topicId,
                context.brokerId(), context.logDir(), logStartOffset, logEndOffset, lastWrittenEpoch, lastBatchEpoch,
                invalidTailBytes, marker.present(), marker.brokerEpoch(), notes, error);
    }

    /** One line for a person: permission problems say how to fix them. */
    static String describe(Exception e) {
        if (e instanceof AccessDeniedException) {
            return "permission denied reading " + ((AccessDeniedException) e).getFile()
                    + " — run inspect as the user that runs Kafka, or with read access to the log dirs";
        }
        if (e instanceof NoSuchFileException) {
            return ((NoSuchFileException) e).getFile() + " disappeared while reading — is the broker still running?";
        }
        if (e instanceof LogDirReadException) {
            return e.getMessage();
        }
        return e.getClass().getSimpleName() + ": " + e.getMessage();
    }
}
