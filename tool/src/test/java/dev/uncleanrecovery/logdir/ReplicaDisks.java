// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * What each replica on a stopped broker's disk holds once its own log recovery has run, record by record: the oracle
 * the fault-injection suite judges a recovery by. The log end offset is the tool's own log reader's
 * ({@link LogDirInspector}), checked against Kafka 4.4's {@code UnifiedLog} loading a copy of the same directory
 * ({@link KafkaLogLoading}); the records below it are read from the segment files with kafka-clients' reader.
 */
public final class ReplicaDisks implements AutoCloseable {

    /**
     * @param values the value of every data record below the log end offset, by offset (control records left out)
     */
    public record ReplicaLog(int broker, TopicPartition partition, long logEndOffset, int lastWrittenLeaderEpoch,
                             Map<Long, String> values) {
    }

    private final KafkaLogLoading kafka;

    private ReplicaDisks(KafkaLogLoading kafka) {
        this.kafka = kafka;
    }

    /** @throws org.opentest4j.TestAbortedException when the build has not resolved Kafka 4.4's server jars */
    public static ReplicaDisks open() {
        return new ReplicaDisks(KafkaLogLoading.open());
    }

    /**
     * Every replica of {@code topics} in the stopped broker's {@code logDir}.
     *
     * @param scratch an empty directory for the copies Kafka's loading may change
     * @throws AssertionError when the tool's reader and Kafka's loading disagree on a replica's log
     */
    public List<ReplicaLog> read(Path logDir, Set<String> topics, Path scratch) {
        LogDirReport report = new LogDirInspector().inspect(List.of(logDir), PartitionFilter.all());
        Map<TopicPartition, Long> recoveryPoints = offsets(logDir.resolve(CheckpointFile.RECOVERY_POINT));
        Map<TopicPartition, Long> logStarts = offsets(logDir.resolve(CheckpointFile.LOG_START_OFFSET));
        List<ReplicaLog> replicas = new ArrayList<>();
        for (PartitionLogSummary summary : report.partitions()) {
            TopicPartition tp = summary.topicPartition();
            if (!topics.contains(tp.topic())) {
                continue;
            }
            if (!summary.isReadable()) {
                throw new AssertionError("broker " + report.brokerId() + " " + tp + ": the tool cannot read it: "
                        + summary.error());
            }
            Path dir = logDir.resolve(tp.topic() + "-" + tp.partition());
            Path copy = copy(dir, scratch.resolve(report.brokerId() + "-" + tp.topic() + "-" + tp.partition()));
            KafkaLogLoading.Outcome kafkaSays = kafka.load(copy, logStarts.getOrDefault(tp, 0L),
                    recoveryPoints.getOrDefault(tp, 0L), report.cleanShutdown(), KafkaLogLoading.batchOffsets(summary));
            String batches = kafkaSays.failure() == null ? kafkaSays.batchesDifferFrom(summary,
                    KafkaLogLoading.mustKeepBatches(summary)) : null;
            if (batches != null) {
                throw new AssertionError("broker " + report.brokerId() + " " + tp + ": " + batches);
            }
            if (kafkaSays.failure() != null || kafkaSays.logEndOffset() != summary.logEndOffset()
                    || kafkaSays.latestEpoch() != summary.lastWrittenLeaderEpoch()
                    || !kafkaSays.epochs().equals(summary.leaderEpochs())) {
                throw new AssertionError("broker " + report.brokerId() + " " + tp + ": the tool reads log end "
                        + summary.logEndOffset() + " epochs " + summary.leaderEpochs() + ", Kafka's loading "
                        + kafkaSays.logEndOffset() + " epochs " + kafkaSays.epochs()
                        + (kafkaSays.failure() == null ? "" : " (" + kafkaSays.failure() + ": " + kafkaSays.cause() + ")"));
            }
            replicas.add(new ReplicaLog(report.brokerId(), tp, summary.logEndOffset(),
                    summary.lastWrittenLeaderEpoch(), values(dir, summary.logEndOffset())));
        }
        return replicas;
    }

    private static Map<Long, String> values(Path partitionDir, long logEndOffset) {
        Map<Long, String> values = new TreeMap<>();
        List<Path> segments;
        try (Stream<Path> files = Files.list(partitionDir)) {
            segments = files.filter(f -> f.getFileName().toString().endsWith(".log")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (Path segment : segments) {
            try (FileRecords records = FileRecords.open(segment.toFile(), false, true, 0, false)) {
                for (RecordBatch batch : records.batches()) {
                    if (batch.baseOffset() >= logEndOffset) {
                        break;
                    }
                    try {
                        batch.ensureValid();
                    } catch (CorruptRecordException e) {
                        break; // recovery cuts here: the log end offset above already says so
                    }
                    if (batch.isControlBatch()) {
                        continue;
                    }
                    for (Record record : batch) {
                        if (record.offset() < logEndOffset && record.hasValue()) {
                            values.put(record.offset(), StandardCharsets.UTF_8.decode(record.value()).toString());
                        }
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(segment + ": " + e.getMessage(), e);
            } catch (CorruptRecordException e) {
                // a torn last batch: the iterator stops where Kafka's recovery truncates
            }
        }
        return values;
    }

    private static Map<TopicPartition, Long> offsets(Path checkpoint) {
        try {
            return Files.isRegularFile(checkpoint) ? CheckpointFile.readOffsets(checkpoint) : Map.of();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path copy(Path from, Path to) {
        try {
            Files.createDirectories(to);
            try (Stream<Path> files = Files.list(from)) {
                for (Path file : files.filter(Files::isRegularFile).toList()) {
                    Files.copy(file, to.resolve(file.getFileName()));
                }
            }
            return to;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        try {
            kafka.close();
        } catch (Exception e) {
            throw new IllegalStateException("could not close Kafka's log loading", e);
        }
    }
}
