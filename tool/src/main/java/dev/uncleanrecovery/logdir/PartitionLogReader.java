// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

import dev.uncleanrecovery.support.BoundedFiles;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

/**
 * Reads one partition directory into a {@link PartitionLogSummary}: what Kafka 4.4's log loading ({@code LogLoader})
 * will make of it at the next start-up, replayed read-only in Kafka's order.
 * <ol>
 *   <li>The leader epoch cache is loaded from leader-epoch-checkpoint.</li>
 *   <li>Every segment without an offset index (or with a corrupt transaction index) is recovered.</li>
 *   <li>After an unclean shutdown, every segment from the one holding the recovery point on is recovered; the first
 *       that recovery cuts is the last: Kafka deletes the segments after it.</li>
 *   <li>The log end offset is that of the last segment left, recovered or read as Kafka reads it
 *       ({@link SegmentTailReader}); a log that ends before its checkpointed start is emptied.</li>
 *   <li>The epoch cache is cut to the log: entries from the log end offset on go.</li>
 * </ol>
 * Every problem becomes a note or the summary's error, naming the file: it never throws. Where Kafka's loading fails on
 * a file, the error says what the broker will do ({@link KafkaLoadFailure}).
 */
final class PartitionLogReader {

    /**
     * What the log dir around a partition directory says about it.
     *
     * @param failure why Kafka will not load any partition of this log dir (a checkpoint it fails on); null normally
     */
    record LogDirContext(Path logDir, int brokerId, CleanShutdownMarker cleanShutdown,
                         Map<TopicPartition, Long> logStartOffsets, Map<TopicPartition, Long> recoveryPoints,
                         String failure) {
    }

    private final Path dir;
    private final TopicPartition topicPartition;
    private final LogDirContext context;
    private final List<String> notes = new ArrayList<>();
    /** See {@link PartitionLogSummary#recoveryCutsData()}. */
    private String recoveryCutsData;
    /** The epoch cache once cut to the log, as Kafka serves it; set when the log is read. */
    private List<EpochEntry> epochEntries = List.of();
    /** Where a new leader may cut the log; set when the log is read. */
    private List<LoggedBatch> batches = List.of();
    /** Set when a file is damaged or odd: what a fetch reads from an offset is then not known for sure. */
    private boolean damaged;

    private PartitionLogReader(Path dir, TopicPartition topicPartition, LogDirContext context) {
        this.dir = dir;
        this.topicPartition = topicPartition;
        this.context = context;
    }

    static PartitionLogSummary read(Path partitionDir, TopicPartition topicPartition, LogDirContext context) {
        return new PartitionLogReader(partitionDir, topicPartition, context).read();
    }

    /** A partition directory that is a symbolic link: Kafka loads what it points to, inspect never follows it. */
    static PartitionLogSummary symbolicLink(Path link, TopicPartition topicPartition, LogDirContext context) {
        return new PartitionLogReader(link, topicPartition, context).summary(null, -1, -1, -1, -1, 0,
                link + " is " + LogDirFile.describeType(link) + ": Kafka loads what it points to as this partition's"
                        + " log, inspect does not follow links out of the log dir — inspect the directory it points to"
                        + " as a log dir of its own, or replace the link with the directory");
    }

    private PartitionLogSummary read() {
        if (context.failure() != null) {
            return summary(knownTopicId(), -1, -1, -1, -1, 0, context.failure());
        }
        try {
            return readLog();
        } catch (IOException | LogDirReadException e) {
            boolean namesItsFile = e instanceof LogDirReadException || e instanceof FileSystemException;
            return summary(knownTopicId(), -1, -1, -1, -1, 0, namesItsFile ? describe(e)
                    : "cannot read the log in " + dir + ": " + describe(e));
        } catch (RuntimeException e) {
            // a defect of inspect must cost this partition's evidence, not the whole run
            return summary(knownTopicId(), -1, -1, -1, -1, 0, "inspect failed reading " + dir + " (" + e
                    + "); this replica's log is unknown — please report it");
        }
    }

    /** The topic id for a partition whose log is unknown anyway: its file's problems are not worth another error. */
    private Uuid knownTopicId() {
        try {
            return PartitionMetadataFile.readTopicId(dir);
        } catch (IOException | LogDirReadException e) {
            return null;
        }
    }

    /** Kafka's order: the epoch cache, the segments (recovered as needed), the log end, then the topic id. */
    private PartitionLogSummary readLog() throws IOException {
        LeaderEpochCache epochs = loadEpochs();
        int checkpointedLatest = epochs.latestEpoch().orElse(-1);
        SegmentFiles files = SegmentFiles.list(dir);
        notes.addAll(files.notes());
        damaged = !files.notes().isEmpty();
        // Kafka starts from 0 when the log dir's checkpoint has no entry for the partition.
        long checkpointedLogStart = context.logStartOffsets().getOrDefault(topicPartition, 0L);
        boolean clean = context.cleanShutdown().present();
        if (files.isEmpty()) {
            notes.add("no segment files: Kafka creates an empty segment at offset " + checkpointedLogStart
                    + " (the log start offset checkpoint)");
            int lastWritten = cutEpochs(epochs, checkpointedLogStart, checkpointedLogStart);
            return summary(readTopicId(), checkpointedLogStart, checkpointedLogStart, lastWritten, -1, 0, null);
        }

        ProducerStateRebuild producerState = ProducerStateRebuild.of(dir, context.logDir());
        Map<Long, SegmentTail> recovered = new HashMap<>();
        long removedBytes = 0;
        List<SegmentFiles.Segment> loaded = new ArrayList<>();
        for (SegmentFiles.Segment segment : files.segments()) {
            String why = SegmentFiles.recoveredAtLoad(segment);
            if (why != null) {
                damaged = true;
                SegmentTail tail = recover(segment, loaded, checkpointedLogStart, epochs, producerState);
                recovered.put(segment.baseOffset(), tail);
                removedBytes += tail.invalidTailBytes();
                if (tail.dataAfterCut()) {
                    recoveryCutsData = "Kafka's recovery of segment " + segment.baseOffset() + " (" + why + ") cuts it"
                            + " at position " + tail.validBytes() + " before " + tail.invalidTailBytes() + " bytes: "
                            + tail.invalidTailReason();
                }
                notes.add("segment " + segment.baseOffset() + " is recovered at every start-up, clean or not: " + why
                        + (tail.invalidTailBytes() > 0 ? "; recovery cuts its last " + tail.invalidTailBytes()
                        + " bytes (" + tail.invalidTailReason() + ")" : ""));
            }
            loaded.add(segment);
        }
        List<SegmentFiles.Segment> kept = new ArrayList<>(files.segments());
        SegmentTail cut = null;
        if (!clean) {
            long recoveryPoint = context.recoveryPoints().getOrDefault(topicPartition, 0L);
            for (int i = firstToRecover(kept, recoveryPoint); i < kept.size(); i++) {
                SegmentFiles.Segment segment = kept.get(i);
                if (recovered.containsKey(segment.baseOffset())) {
                    continue; // recovered once already: its second recovery finds nothing to cut
                }
                SegmentTail tail = recover(segment, kept, checkpointedLogStart, epochs, producerState);
                recovered.put(segment.baseOffset(), tail);
                if (tail.invalidTailBytes() > 0) {
                    cut = tail;
                    List<SegmentFiles.Segment> deleted = new ArrayList<>(kept.subList(i + 1, kept.size()));
                    kept.subList(i + 1, kept.size()).clear();
                    removedBytes += tail.invalidTailBytes() + deleted.stream().mapToLong(SegmentFiles.Segment::sizeInBytes).sum();
                    noteCut(tail, deleted);
                    if (tail.dataAfterCut() || !deleted.isEmpty()) {
                        recoveryCutsData = "Kafka's log recovery cuts segment " + tail.baseOffset() + " at offset "
                                + tail.nextOffset() + " (" + tail.invalidTailReason() + ")" + (deleted.isEmpty() ? ""
                                : " and deletes the " + deleted.size() + " segment(s) after it");
                    }
                    break;
                }
            }
        }

        SegmentFiles.Segment last = kept.get(kept.size() - 1);
        SegmentTail tail = recovered.containsKey(last.baseOffset()) ? recovered.get(last.baseOffset())
                : SegmentTailReader.read(last.log(), last.baseOffset(), last.offsetIndex(), context.logDir());
        notes.addAll(tail.notes());
        damaged |= !tail.notes().isEmpty() || recoveryCutsData != null;
        if (!recovered.containsKey(last.baseOffset()) && tail.invalidTailReason() != null) {
            damaged = true;
            removedBytes += tail.invalidTailBytes();
            notes.add(tail.invalidTailBytes() + " bytes after the last whole batch of segment " + last.baseOffset()
                    + " (" + tail.invalidTailReason() + "): the clean-shutdown marker makes Kafka skip log recovery,"
                    + " so they stay on disk, unread; the log ends before them");
        }
        long logEndOffset = tail.nextOffset();
        RecordBatchHeader lastBatch = tail.hasValidBatch() ? tail.lastBatch() : lastBatchBefore(kept, recovered);
        int lastBatchEpoch = lastBatch == null ? -1 : lastBatch.partitionLeaderEpoch();

        long logStartOffset = Math.max(checkpointedLogStart, kept.get(0).baseOffset());
        if (logEndOffset < checkpointedLogStart) {
            // Kafka deletes every segment when the log ends before its checkpointed start and starts over there.
            notes.add("the log ends at " + logEndOffset + ", before its checkpointed log start offset "
                    + checkpointedLogStart + ": Kafka will delete all segments and start the log at "
                    + checkpointedLogStart);
            return summary(readTopicId(), checkpointedLogStart, checkpointedLogStart, -1, lastBatchEpoch, removedBytes,
                    null);
        }
        producerState.atLoadEnd(kept, logStartOffset, logEndOffset, clean);
        if (epochs.latestEpoch().orElse(-1) > checkpointedLatest) {
            notes.add("recovered batches have epoch " + epochs.latestEpoch().getAsInt() + ", later than "
                    + CheckpointFile.LEADER_EPOCH + "'s " + checkpointedLatest + ": Kafka's log recovery adds it to the"
                    + " epoch cache");
        }
        int lastWritten = cutEpochs(epochs, logEndOffset, checkpointedLogStart);
        noteEpochs(lastWritten, lastBatchEpoch, cut != null || recovered.containsKey(last.baseOffset()));
        readBatches(kept, recovered.keySet(), logStartOffset, logEndOffset);
        return summary(readTopicId(), logStartOffset, logEndOffset, lastWritten, lastBatchEpoch, removedBytes, null);
    }

    /**
     * The batches where a new leader may cut the log: without them a batch it holds alike only counts as lost. Not
     * read from a damaged log (a missing or corrupt index, odd files, a recovery that cuts data, bytes Kafka serves
     * unchecked): what a fetch would read there is not known for sure.
     */
    private void readBatches(List<SegmentFiles.Segment> kept, Set<Long> recovered, long logStartOffset,
                             long logEndOffset) {
        if (damaged) {
            return;
        }
        try {
            batches = LoggedBatchReader.read(kept, recovered, logStartOffset, logEndOffset, epochEntries);
        } catch (IOException | LogDirReadException e) {
            notes.add("the batch headers where a new leader may cut this log cannot be read (" + describe(e)
                    + "): the plan counts every record past the cut as lost");
        }
    }

    /** One segment recovered as Kafka recovers it: producer state rebuilt up to it first, from the segments given. */
    private static SegmentTail recover(SegmentFiles.Segment segment, List<SegmentFiles.Segment> segments,
                                       long checkpointedLogStart, LeaderEpochCache epochs,
                                       ProducerStateRebuild producerState) throws IOException {
        producerState.beforeRecovering(segment, segments, checkpointedLogStart);
        SegmentTail tail = SegmentRecovery.recover(segment.log(), segment.baseOffset(), epochs);
        producerState.recovered(segment, tail);
        return tail;
    }

    /** Kafka recovers the segments from the one holding the recovery point on (all of them when it precedes them all). */
    private static int firstToRecover(List<SegmentFiles.Segment> segments, long recoveryPoint) {
        if (recoveryPoint == Long.MAX_VALUE) {
            return segments.size(); // Kafka asks for the segments in [recovery point, Long.MAX_VALUE): none
        }
        int first = 0;
        for (int i = 0; i < segments.size(); i++) {
            if (segments.get(i).baseOffset() <= recoveryPoint) {
                first = i;
            }
        }
        return first;
    }

    private void noteCut(SegmentTail tail, List<SegmentFiles.Segment> deleted) {
        notes.add(tail.invalidTailBytes() + " bytes after the last valid batch of segment " + tail.baseOffset()
                + " (" + tail.invalidTailReason() + ")" + (tail.zeroFilledTail() ? "" : "; they hold no readable data")
                + "; Kafka's log recovery will truncate them"
                + (deleted.isEmpty() ? "" : " and delete the " + deleted.size() + " later segment(s) ("
                + deleted.stream().map(s -> String.valueOf(s.baseOffset())).collect(Collectors.joining(", "))
                + ", " + deleted.stream().mapToLong(SegmentFiles.Segment::sizeInBytes).sum() + " bytes)"));
    }

    /**
     * The leader epoch cache as Kafka loads it from leader-epoch-checkpoint; a checkpoint Kafka cannot read is this
     * partition's error, with what the broker will do about it.
     */
    private LeaderEpochCache loadEpochs() throws IOException {
        Path file = dir.resolve(CheckpointFile.LEADER_EPOCH);
        List<EpochEntry> entries;
        try {
            entries = CheckpointFile.readLeaderEpochs(file);
        } catch (NoSuchFileException e) {
            notes.add(CheckpointFile.LEADER_EPOCH + " is missing: Kafka starts with an empty epoch cache, which only"
                    + " log recovery fills");
            return new LeaderEpochCache();
        } catch (KafkaReaderFailure e) {
            throw new LogDirReadException(e.getMessage() + ": " + e.whenLoadingAPartition().consequence(context.logDir())
                    + " — restore the file or remove it (Kafka then rebuilds the cache from what log recovery reads)");
        } catch (BoundedFiles.NotRegularFileException | BoundedFiles.TooLargeException e) {
            throw new LogDirReadException(e.getMessage() + "; inspect did not read it, so this replica's last written"
                    + " epoch is unknown");
        } catch (IOException e) {
            throw new LogDirReadException(file + " cannot be read (" + describe(e) + "): "
                    + KafkaLoadFailure.LOG_DIR_OFFLINE.consequence(context.logDir()), e);
        }
        return LeaderEpochCache.loaded(entries, file.toString());
    }

    /**
     * Cuts the cache to the log as Kafka does after loading it, and returns the latest epoch left: the highest whose
     * entry starts below the log end offset. A replica elected leader that wrote nothing, and a log whose tail recovery
     * removed, leave entries at or after the log end offset, which name no data.
     */
    private int cutEpochs(LeaderEpochCache epochs, long logEndOffset, long checkpointedLogStart) {
        List<EpochEntry> dropped = epochs.truncateFromEnd(logEndOffset);
        epochs.truncateFromStart(checkpointedLogStart);
        epochEntries = epochs.entries();
        // An empty log always has its leader's epoch at the log end offset: only a non-empty one is worth a note.
        if (!dropped.isEmpty() && logEndOffset > checkpointedLogStart) {
            notes.add(CheckpointFile.LEADER_EPOCH + " entries at or after the log end offset " + logEndOffset + " ("
                    + dropped.stream().map(e -> "epoch " + e.epoch() + " from " + e.startOffset())
                    .collect(Collectors.joining(", "))
                    + ") name no data on disk; Kafka drops them when it loads the log");
        }
        return epochs.latestEpoch().orElse(-1);
    }

    private void noteEpochs(int lastWritten, int lastBatchEpoch, boolean lastSegmentRecovered) {
        if (lastBatchEpoch < 0 || lastBatchEpoch == lastWritten) {
            return;
        }
        notes.add("the last batch has epoch " + lastBatchEpoch + " but the epoch cache ends at epoch " + lastWritten
                + " below the log end offset" + (lastSegmentRecovered ? "" : " (Kafka does not recover this segment,"
                + " so the batches do not add to the cache)") + "; the cache is what Kafka will serve");
    }

    /**
     * When the last segment holds no valid batch, the last batch (and its epoch) is in an earlier segment: the result of
     * its recovery, or its end as Kafka reads it. Empty segments cost nothing to skip; at most one other is read.
     */
    private RecordBatchHeader lastBatchBefore(List<SegmentFiles.Segment> segments, Map<Long, SegmentTail> recovered) {
        for (int i = segments.size() - 2; i >= 0; i--) {
            SegmentFiles.Segment segment = segments.get(i);
            SegmentTail tail = recovered.get(segment.baseOffset());
            if (tail == null && segment.sizeInBytes() == 0) {
                continue;
            }
            if (tail == null) {
                try {
                    tail = SegmentTailReader.read(segment.log(), segment.baseOffset(), segment.offsetIndex(),
                            context.logDir());
                } catch (IOException | LogDirReadException e) {
                    notes.add("the epoch of the last batch is unknown: " + describe(e));
                    return null;
                }
            }
            if (tail.hasValidBatch()) {
                return tail.lastBatch();
            }
        }
        return null;
    }

    /** The topic id Kafka reads at load; a file its loading fails on is this partition's error. */
    private Uuid readTopicId() throws IOException {
        try {
            return PartitionMetadataFile.readTopicId(dir);
        } catch (NoSuchFileException e) {
            notes.add(PartitionMetadataFile.FILE_NAME + " is missing: topic id unknown, so a topic deleted and"
                    + " re-created under the same name cannot be told apart");
            return null;
        } catch (KafkaReaderFailure e) {
            throw new LogDirReadException(e.getMessage() + ": " + e.whenLoadingAPartition().consequence(context.logDir())
                    + " — restore the file or remove it (Kafka then writes it anew)");
        } catch (BoundedFiles.NotRegularFileException | BoundedFiles.TooLargeException e) {
            throw new LogDirReadException(e.getMessage() + "; inspect did not read it, and what Kafka makes of it is"
                    + " not predictable");
        } catch (IOException e) {
            throw new LogDirReadException(dir.resolve(PartitionMetadataFile.FILE_NAME) + " cannot be read ("
                    + describe(e) + "): " + KafkaLoadFailure.LOG_DIR_OFFLINE.consequence(context.logDir()), e);
        }
    }

    private PartitionLogSummary summary(Uuid topicId, long logStartOffset, long logEndOffset, int lastWrittenEpoch,
                                        int lastBatchEpoch, long invalidTailBytes, String error) {
        CleanShutdownMarker marker = context.cleanShutdown();
        return new PartitionLogSummary(topicPartition.topic(), topicPartition.partition(), topicId,
                context.brokerId(), context.logDir(), logStartOffset, logEndOffset, lastWrittenEpoch, lastBatchEpoch,
                invalidTailBytes, marker.present(), marker.brokerEpoch(), notes, error, error == null ? recoveryCutsData : null,
                error == null && lastWrittenEpoch >= 0 ? epochEntries : List.of(), error == null ? batches : List.of());
    }

    /** One line for a person: permission problems say how to fix them. */
    static String describe(Exception e) {
        if (e instanceof AccessDeniedException denied) {
            return "permission denied reading " + denied.getFile()
                    + " — run inspect as the user that runs Kafka, or with read access to the log dirs";
        }
        if (e instanceof NoSuchFileException missing) {
            return missing.getFile() + " disappeared while reading — is the broker still running?";
        }
        if (e instanceof LogDirReadException || e instanceof BoundedFiles.NotRegularFileException
                || e instanceof BoundedFiles.TooLargeException) {
            return e.getMessage();
        }
        return e.getClass().getSimpleName() + ": " + e.getMessage();
    }
}
