// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;

/**
 * Reads a stopped broker's log dirs (its {@code log.dirs}) and reports, per partition, what the broker will
 * hold when it starts again: log start and end offsets, last written leader epoch, invalid tail bytes, and
 * whether it stopped cleanly. This is the offline evidence for choosing a leader when the broker cannot be
 * asked over the network.
 *
 * <p>Read-only, always: every file is opened for reading only, nothing is written, locked or renamed — so it is
 * safe on the disks of a broker that must be restarted afterwards. It is meant for stopped brokers; on a
 * running one it reads a moving target. A partition costs a few small reads whatever its size (see
 * {@link SegmentTailReader}).
 *
 * <p>A problem with one partition becomes that partition's error or note; only log dirs that cannot be used
 * at all (missing, not a directory, belonging to different brokers) make {@link #inspect} throw.
 */
public final class LogDirInspector {

    private final Clock clock;

    public LogDirInspector() {
        this(Clock.systemUTC());
    }

    public LogDirInspector(Clock clock) {
        this.clock = clock;
    }

    /**
     * @param logDirs the broker's log dirs, all of one broker
     * @throws LogDirReadException when a log dir cannot be listed, or the dirs belong to different brokers or clusters
     */
    public LogDirReport inspect(List<Path> logDirs, PartitionFilter filter) {
        if (logDirs.isEmpty()) {
            throw new LogDirReadException("no log dir given: pass the broker's log.dirs entries");
        }
        var inspectedAt = clock.instant();
        List<LogDirSummary> summaries = new ArrayList<>();
        List<PartitionLogSummary> partitions = new ArrayList<>();
        List<SkippedDirectory> skipped = new ArrayList<>();
        Set<Path> seen = new HashSet<>();
        for (Path logDir : logDirs) {
            Path dir = logDir.toAbsolutePath().normalize();
            if (!seen.add(dir)) {
                throw new LogDirReadException("log dir " + dir + " is given twice");
            }
            requireDirectory(dir);
            List<String> notes = new ArrayList<>();
            CleanShutdownMarker marker = CleanShutdownMarker.read(dir);
            Map<TopicPartition, Long> logStartOffsets = readOffsets(dir, CheckpointFile.LOG_START_OFFSET, notes);
            Map<TopicPartition, Long> recoveryPoints = readOffsets(dir, CheckpointFile.RECOVERY_POINT, notes);
            LogDirSummary summary = readLogDir(dir, marker, notes);
            summaries.add(summary);
            var context = new PartitionLogReader.LogDirContext(dir, summary.brokerId(), marker, logStartOffsets,
                    recoveryPoints);
            readPartitions(dir, context, filter, partitions, skipped);
        }
        requireOneBroker(summaries);
        markDuplicates(partitions);
        partitions.sort(Comparator.comparing(PartitionLogSummary::topic).thenComparingInt(PartitionLogSummary::partition)
                .thenComparing(p -> p.logDir().toString()));
        skipped.sort(Comparator.comparing((SkippedDirectory s) -> s.logDir().toString()).thenComparing(SkippedDirectory::directory));
        return new LogDirReport(inspectedAt, summaries, partitions, skipped);
    }

    private static void readPartitions(Path logDir, PartitionLogReader.LogDirContext context, PartitionFilter filter,
                                       List<PartitionLogSummary> partitions, List<SkippedDirectory> skipped) {
        for (Path child : listDirectories(logDir)) {
            String name = child.getFileName().toString();
            PartitionDirectoryName kind = PartitionDirectoryName.classify(name);
            TopicPartition tp = kind.topicPartition();
            if (tp != null && !filter.matches(tp.topic(), tp.partition())) {
                continue;
            }
            if (!kind.isPartition()) {
                // Directories that name no partition are only worth showing when nothing was filtered out.
                if (tp != null || filter.selectsAll()) {
                    skipped.add(new SkippedDirectory(logDir, name, kind.skipReason()));
                }
                continue;
            }
            partitions.add(PartitionLogReader.read(child, tp, context));
        }
    }

    private static LogDirSummary readLogDir(Path dir, CleanShutdownMarker marker, List<String> notes) {
        if (marker.problem() != null) {
            notes.add(marker.problem());
        }
        if (!marker.present()) {
            notes.add("no clean-shutdown marker (" + CleanShutdownMarker.FILE_NAME + "): the broker did not stop"
                    + " cleanly, Kafka will run log recovery and the controller will treat the restart as unclean");
        }
        try {
            BrokerMetaProperties meta = BrokerMetaProperties.read(dir);
            return new LogDirSummary(dir, meta.nodeId(), meta.clusterId(), meta.directoryId(), marker.present(),
                    marker.brokerEpoch(), notes, null);
        } catch (NoSuchFileException e) {
            return new LogDirSummary(dir, -1, null, null, marker.present(), marker.brokerEpoch(), notes,
                    BrokerMetaProperties.FILE_NAME + " is missing: the broker id of this dir is unknown"
                            + " (was it formatted with kafka-storage.sh?)");
        } catch (IOException | LogDirReadException e) {
            return new LogDirSummary(dir, -1, null, null, marker.present(), marker.brokerEpoch(), notes,
                    BrokerMetaProperties.FILE_NAME + " is unusable: " + PartitionLogReader.describe(e));
        }
    }

    /** A missing checkpoint is normal (a new dir); an unreadable one costs only precision, so it is a note. */
    private static Map<TopicPartition, Long> readOffsets(Path dir, String fileName, List<String> notes) {
        try {
            return CheckpointFile.readOffsets(dir.resolve(fileName));
        } catch (NoSuchFileException e) {
            return Map.of();
        } catch (IOException | LogDirReadException e) {
            notes.add(fileName + " is unusable (" + PartitionLogReader.describe(e) + "); "
                    + (fileName.equals(CheckpointFile.LOG_START_OFFSET)
                    ? "log start offsets come from the first segment of each partition"
                    : "cannot tell which earlier segments Kafka's recovery will re-check"));
            return Map.of();
        }
    }

    private static void requireDirectory(Path dir) {
        if (!Files.exists(dir)) {
            throw new LogDirReadException("log dir " + dir + " does not exist: pass the broker's log.dirs entries");
        }
        if (!Files.isDirectory(dir)) {
            throw new LogDirReadException(dir + " is not a directory: pass the broker's log.dirs entries");
        }
    }

    private static List<Path> listDirectories(Path logDir) {
        List<Path> dirs = new ArrayList<>();
        try (DirectoryStream<Path> children = Files.newDirectoryStream(logDir, Files::isDirectory)) {
            children.forEach(dirs::add);
        } catch (IOException e) {
            throw new LogDirReadException("cannot list log dir " + logDir + ": " + PartitionLogReader.describe(e), e);
        }
        dirs.sort(Comparator.comparing(p -> p.getFileName().toString()));
        return dirs;
    }

    /** Evidence is per broker: mixing two brokers' dirs would attribute one broker's logs to the other. */
    private static void requireOneBroker(List<LogDirSummary> summaries) {
        Map<Integer, List<Path>> byBroker = new TreeMap<>();
        Map<String, List<Path>> byCluster = new LinkedHashMap<>();
        for (LogDirSummary s : summaries) {
            if (s.brokerId() >= 0) {
                byBroker.computeIfAbsent(s.brokerId(), k -> new ArrayList<>()).add(s.path());
            }
            if (s.clusterId() != null) {
                byCluster.computeIfAbsent(s.clusterId(), k -> new ArrayList<>()).add(s.path());
            }
        }
        if (byBroker.size() > 1) {
            throw new LogDirReadException("the log dirs belong to different brokers (" + byBroker.entrySet().stream()
                    .map(e -> "node.id " + e.getKey() + ": " + e.getValue()).collect(Collectors.joining("; "))
                    + "); run inspect once per broker");
        }
        if (byCluster.size() > 1) {
            throw new LogDirReadException("the log dirs belong to different clusters (" + byCluster.entrySet().stream()
                    .map(e -> "cluster.id " + e.getKey() + ": " + e.getValue()).collect(Collectors.joining("; "))
                    + "); run inspect once per broker");
        }
    }

    /** Kafka refuses to start when a partition has a current log in two log dirs; so is its evidence unusable. */
    private static void markDuplicates(List<PartitionLogSummary> partitions) {
        Map<TopicPartition, List<PartitionLogSummary>> byPartition = partitions.stream()
                .collect(Collectors.groupingBy(PartitionLogSummary::topicPartition));
        for (var entry : byPartition.entrySet()) {
            List<PartitionLogSummary> copies = entry.getValue();
            if (copies.size() < 2) {
                continue;
            }
            String dirs = copies.stream().map(p -> p.logDir().toString()).collect(Collectors.joining(", "));
            for (PartitionLogSummary copy : copies) {
                partitions.set(partitions.indexOf(copy), new PartitionLogSummary(copy.topic(), copy.partition(),
                        copy.topicId(), copy.brokerId(), copy.logDir(), copy.logStartOffset(), -1, -1,
                        copy.lastBatchLeaderEpoch(), copy.invalidTailBytes(), copy.cleanShutdown(), copy.brokerEpoch(),
                        copy.notes(), entry.getKey() + " has a current log in several log dirs (" + dirs
                                + "): Kafka refuses to start like this — remove the stale copy, then inspect again"));
            }
        }
    }
}
