// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
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
 * whether it stopped cleanly — what Kafka 4.4's own log loading will make of the same files
 * ({@link PartitionLogReader}). This is the offline evidence for choosing a leader when the broker cannot be
 * asked over the network.
 *
 * <p>Read-only, always: every file is opened for reading only, nothing is written, locked or renamed — so it is
 * safe on the disks of a broker that must be restarted afterwards. Only regular files are opened, never through a
 * symbolic link, and every read is bounded ({@link LogDirFile}): a damaged disk cannot make it hang or exhaust
 * memory. It is meant for stopped brokers; on a running one it reads a moving target.
 *
 * <p>A problem with one partition becomes that partition's error or note, and a problem with a log dir's own files
 * that log dir's error; only log dirs that cannot be used at all (missing, not a directory, belonging to different
 * brokers) make {@link #inspect} throw.
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
            List<String> failures = new ArrayList<>();
            CleanShutdownMarker marker = CleanShutdownMarker.read(dir);
            Map<TopicPartition, Long> logStartOffsets = readOffsets(dir, CheckpointFile.LOG_START_OFFSET, notes, failures);
            Map<TopicPartition, Long> recoveryPoints = readOffsets(dir, CheckpointFile.RECOVERY_POINT, notes, failures);
            LogDirSummary summary = readLogDir(dir, marker, notes, failures);
            summaries.add(summary);
            var context = new PartitionLogReader.LogDirContext(dir, summary.brokerId(), marker, logStartOffsets,
                    recoveryPoints, failures.isEmpty() ? null : String.join("; ", failures));
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
        for (Map.Entry<Path, BasicFileAttributes> entry : listEntries(logDir).entrySet()) {
            Path child = entry.getKey();
            BasicFileAttributes attributes = entry.getValue();
            String name = child.getFileName().toString();
            PartitionDirectoryName kind = PartitionDirectoryName.classify(name);
            TopicPartition tp = kind.topicPartition();
            if (tp != null && !filter.matches(tp.topic(), tp.partition())) {
                continue;
            }
            if (!attributes.isDirectory() && !attributes.isSymbolicLink()) {
                continue; // Kafka loads directories only; files such as its checkpoints are read above
            }
            if (!kind.isPartition()) {
                // Directories that name no partition are only worth showing when nothing was filtered out.
                if (tp != null || filter.selectsAll()) {
                    skipped.add(new SkippedDirectory(logDir, name, kind.skipReason()
                            + (attributes.isSymbolicLink() ? " (" + LogDirFile.describeType(child) + ", not followed)" : "")));
                }
                continue;
            }
            partitions.add(attributes.isSymbolicLink() ? PartitionLogReader.symbolicLink(child, tp, context)
                    : PartitionLogReader.read(child, tp, context));
        }
    }

    /**
     * The log dir as a whole. Kafka's storage loader counts a log dir whose meta.properties it cannot read among its
     * failed dirs (and a broker whose metadata log lives there does not start): that is this log dir's error, and its
     * partitions' (see {@link #inspect}), never the other log dirs'. A missing meta.properties is different: Kafka
     * formats such a dir anew and loads its partitions, which inspect reads, unattributed.
     */
    private static LogDirSummary readLogDir(Path dir, CleanShutdownMarker marker, List<String> notes,
                                            List<String> failures) {
        if (marker.problem() != null) {
            notes.add(marker.problem());
        }
        if (!marker.present()) {
            notes.add("no clean-shutdown marker (" + CleanShutdownMarker.FILE_NAME + "): the broker did not stop"
                    + " cleanly, Kafka will run log recovery and the controller will treat the restart as unclean");
        }
        List<String> errors = new ArrayList<>();
        BrokerMetaProperties meta = null;
        try {
            meta = BrokerMetaProperties.read(dir);
        } catch (NoSuchFileException e) {
            errors.add(BrokerMetaProperties.FILE_NAME + " is missing: the broker id of this dir is unknown"
                    + " (was it formatted with kafka-storage.sh?)");
        } catch (IOException | LogDirReadException e) {
            failures.add(0, BrokerMetaProperties.FILE_NAME + " is unusable: " + PartitionLogReader.describe(e)
                    + "; Kafka counts log dir " + dir + " as failed and loads none of its partitions (a broker whose"
                    + " metadata log lives there does not start) — restore the file from another log dir of this"
                    + " broker, keeping this dir's directory.id");
        }
        errors.addAll(failures);
        String error = errors.isEmpty() ? null : String.join("; ", errors);
        return meta == null
                ? new LogDirSummary(dir, -1, null, null, marker.present(), marker.brokerEpoch(), notes, error)
                : new LogDirSummary(dir, meta.nodeId(), meta.clusterId(), meta.directoryId(), marker.present(),
                        marker.brokerEpoch(), notes, error);
    }

    /**
     * A log dir's offset checkpoints, read as Kafka's LogManager reads them. A missing one is normal (a new dir).
     * One its reader fails on with an IOException also marks the log dir failed, which makes every partition of the
     * dir unusable ({@code failures}); any other failure makes Kafka ignore the file, a note.
     */
    private static Map<TopicPartition, Long> readOffsets(Path dir, String fileName, List<String> notes,
                                                         List<String> failures) {
        Path file = dir.resolve(fileName);
        try {
            return CheckpointFile.readOffsets(file);
        } catch (NoSuchFileException e) {
            return Map.of();
        } catch (KafkaReaderFailure e) {
            if (e.isIoException()) {
                failures.add(e.getMessage() + ": Kafka marks log dir " + dir + " failed when it reads it, so every"
                        + " replica in it goes offline (a broker with no other log dir shuts down) — restore the file or"
                        + " remove it");
            } else {
                notes.add(e.getMessage() + ": Kafka ignores the file (" + (fileName.equals(CheckpointFile.LOG_START_OFFSET)
                        ? "log start offsets come from the first segment of each partition"
                        : "every segment of every partition is recovered after an unclean shutdown") + ")");
            }
            return Map.of();
        } catch (IOException | LogDirReadException e) {
            failures.add(file + " cannot be read (" + PartitionLogReader.describe(e) + "); inspect cannot tell what"
                    + " Kafka makes of this log dir's partitions");
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

    /** The log dir's entries by name, each with what it is (links not followed). */
    private static Map<Path, BasicFileAttributes> listEntries(Path logDir) {
        Map<Path, BasicFileAttributes> entries = new TreeMap<>(Comparator.comparing(p -> p.getFileName().toString()));
        try (DirectoryStream<Path> children = Files.newDirectoryStream(logDir)) {
            for (Path child : children) {
                entries.put(child, Files.readAttributes(child, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS));
            }
        } catch (IOException e) {
            throw new LogDirReadException("cannot list log dir " + logDir + ": " + PartitionLogReader.describe(e), e);
        }
        return entries;
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
