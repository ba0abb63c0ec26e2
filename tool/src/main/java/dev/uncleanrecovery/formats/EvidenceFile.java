// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.formats;

import dev.uncleanrecovery.UserInputException;
import dev.uncleanrecovery.evidence.BatchHead;
import dev.uncleanrecovery.evidence.EpochStart;
import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.evidence.ReplicaEvidence;
import dev.uncleanrecovery.logdir.LogDirReport;
import dev.uncleanrecovery.logdir.LogDirSummary;
import dev.uncleanrecovery.logdir.PartitionLogSummary;
import dev.uncleanrecovery.logdir.SkippedDirectory;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.common.TopicPartition;

/**
 * The evidence file {@code inspect} writes from a stopped broker's log dirs, for {@code plan --evidence} to use
 * as that broker's answer. One file per broker. Facts that are not known are left out rather than written as
 * -1, as in the plan; {@code lastWrittenLeaderEpoch: -1} is a fact (the epoch cache is empty).
 *
 * <pre>{@code
 * { "version": 1, "createdAt": "2026-11-29T16:00:00Z", "tool": "kafka-unclean-recovery 0.1.0",
 *   "brokerId": 2, "clusterId": "q1Sh-9_ISia_zwGINzRvyQ", "cleanShutdown": false,
 *   "logDirs": [ { "path": "/var/lib/kafka/data", "cleanShutdown": false, "notes": [ "no clean-shutdown marker ..." ] } ],
 *   "partitions": [ { "topic": "orders", "partition": 3, "topicId": "m0uMP1nXQ4mAkRTb3e6u1Q",
 *                     "logDir": "/var/lib/kafka/data", "logStartOffset": 0, "logEndOffset": 1042,
 *                     "lastWrittenLeaderEpoch": 6, "lastBatchLeaderEpoch": 6,
 *                     "leaderEpochs": [ { "epoch": 4, "startOffset": 0 }, { "epoch": 6, "startOffset": 980 } ],
 *                     "batches": [ { "baseOffset": 980, "lastOffset": 982, "crc": 2774394551 }, ... ],
 *                     "invalidTailBytes": 0, "notes": [] } ],
 *   "skipped": [ { "logDir": "/var/lib/kafka/data", "directory": "orders-1.9f...-delete", "reason": "marked for deletion ..." } ] }
 * }</pre>
 *
 * @param tool        the tool and version that wrote the file, for people
 * @param brokerId    node.id of the log dirs
 * @param clusterId   null when meta.properties had none: {@code plan} then refuses the file unless told to accept it
 * @param brokerEpoch the epoch of the clean shutdown; absent unless {@code cleanShutdown}
 */
public record EvidenceFile(
        @Required int version,
        @Required Instant createdAt,
        String tool,
        @Required int brokerId,
        String clusterId,
        @Required boolean cleanShutdown,
        Long brokerEpoch,
        @Required List<LogDir> logDirs,
        @Required List<Partition> partitions,
        List<Skipped> skipped) {

    public static final int VERSION = 1;

    private static final StrictJsonFile<EvidenceFile> FORMAT = new StrictJsonFile<>(EvidenceFile.class,
            "broker evidence file", VERSION, "'kafka-unclean-recovery.sh inspect --log-dir ...'", InvalidEvidenceFileException::new);

    public EvidenceFile {
        if (version != VERSION) {
            throw Checks.invalid("version", "must be " + VERSION + ", found " + version);
        }
        Checks.atLeast(brokerId, 0, "brokerId");
        if (cleanShutdown && (brokerEpoch == null || brokerEpoch < 0)) {
            throw Checks.invalid("brokerEpoch", "must be >= 0 when cleanShutdown is true");
        }
        logDirs = Checks.list(logDirs);
        if (logDirs.isEmpty()) {
            throw Checks.invalid("logDirs", "must name at least one log dir");
        }
        partitions = Checks.list(partitions);
        skipped = Checks.listOrEmpty(skipped);
    }

    /** One log dir: where it is and how its broker stopped. */
    public record LogDir(
            @Required String path,
            String directoryId,
            @Required boolean cleanShutdown,
            Long brokerEpoch,
            List<String> notes,
            String error) {

        public LogDir {
            Checks.text(path, "path");
            notes = Checks.listOrEmpty(notes);
        }
    }

    /**
     * One replica's log. When {@code error} is absent, the offsets and the last written epoch are present.
     *
     * @param topicId                the topic id in the partition's partition.metadata (in every format version);
     *                               null when that file is missing or unreadable, and {@code plan} then refuses this
     *                               log unless told to accept it
     * @param lastWrittenLeaderEpoch -1 when the epoch cache is empty
     * @param lastBatchLeaderEpoch   the last valid batch's epoch, when there is one
     * @param leaderEpochs           the leader epoch cache Kafka loads (cut to the log), oldest first: where this
     *                               replica will cut under a new leader follows from it; absent when the log is
     *                               unreadable or the file is of an older inspect
     * @param batches                the batches where a new leader may cut this log (the first of its last epochs,
     *                               its last ones), by offset, each with its stored CRC: a batch the new leader holds
     *                               alike at the same offsets is not lost; absent when none was read
     * @param invalidTailBytes       bytes after the last valid batch, which log recovery removes
     */
    public record Partition(
            @Required String topic,
            @Required int partition,
            String topicId,
            @Required String logDir,
            Long logStartOffset,
            Long logEndOffset,
            Integer lastWrittenLeaderEpoch,
            Integer lastBatchLeaderEpoch,
            List<LeaderEpoch> leaderEpochs,
            List<Batch> batches,
            long invalidTailBytes,
            List<String> notes,
            String error) {

        public Partition {
            Checks.topic(topic, "topic");
            Checks.atLeast(partition, 0, "partition");
            Checks.text(logDir, "logDir");
            Checks.topicId(topicId, "topicId");
            if (error == null) {
                Checks.atLeast(Checks.present(logStartOffset, "logStartOffset"), 0, "logStartOffset");
                Checks.atLeast(Checks.present(logEndOffset, "logEndOffset"), logStartOffset, "logEndOffset");
                Checks.atLeast(Checks.present(lastWrittenLeaderEpoch, "lastWrittenLeaderEpoch"), -1, "lastWrittenLeaderEpoch");
            }
            if (leaderEpochs != null) {
                leaderEpochs = Checks.list(leaderEpochs);
                if (error != null) {
                    throw Checks.invalid("leaderEpochs", "must be absent when error is set");
                }
                checkEpochCache(leaderEpochs, logStartOffset, logEndOffset, lastWrittenLeaderEpoch);
            }
            if (batches != null) {
                batches = Checks.list(batches);
                if (error != null) {
                    throw Checks.invalid("batches", "must be absent when error is set");
                }
                checkBatches(batches, logStartOffset, logEndOffset);
            }
            Checks.atLeast(invalidTailBytes, 0, "invalidTailBytes");
            notes = Checks.listOrEmpty(notes);
        }

        /**
         * The cache as Kafka holds it after loading the log: epochs and start offsets rising, every entry within the
         * log, the last one the last written epoch. A cache that is not is refused: the cuts would be wrong.
         */
        private static void checkEpochCache(List<LeaderEpoch> cache, long logStart, long logEnd, int lastWritten) {
            LeaderEpoch previous = null;
            for (LeaderEpoch entry : cache) {
                Checks.atLeast(entry.epoch(), 0, "leaderEpochs.epoch");
                if (entry.startOffset() < logStart || entry.startOffset() >= logEnd) {
                    throw Checks.invalid("leaderEpochs", "epoch " + entry.epoch() + " starts at " + entry.startOffset()
                            + ", outside the log [" + logStart + ".." + logEnd + ")");
                }
                if (previous != null && (entry.epoch() <= previous.epoch() || entry.startOffset() <= previous.startOffset())) {
                    throw Checks.invalid("leaderEpochs", "epoch " + entry.epoch() + " from " + entry.startOffset()
                            + " does not follow epoch " + previous.epoch() + " from " + previous.startOffset());
                }
                previous = entry;
            }
            int last = previous == null ? -1 : previous.epoch();
            if (last != lastWritten) {
                throw Checks.invalid("leaderEpochs", "ends at epoch " + last + ", but lastWrittenLeaderEpoch is "
                        + lastWritten);
            }
        }

        /** Batches within the log, by offset, none overlapping the one before: a list that is not would mislead. */
        private static void checkBatches(List<Batch> batches, long logStart, long logEnd) {
            long previousEnd = logStart;
            for (Batch batch : batches) {
                if (batch.baseOffset() < previousEnd || batch.lastOffset() < batch.baseOffset()
                        || batch.lastOffset() >= logEnd) {
                    throw Checks.invalid("batches", "batch [" + batch.baseOffset() + ".." + batch.lastOffset()
                            + "] is not within the log [" + logStart + ".." + logEnd + ") after the one before it");
                }
                Checks.atLeast(batch.crc(), 0, "batches.crc");
                previousEnd = batch.lastOffset() + 1;
            }
        }

        /** The batches as evidence, by offset; empty when the file does not give them. */
        List<BatchHead> batchHeads() {
            return batches == null ? List.of()
                    : batches.stream().map(b -> new BatchHead(b.baseOffset(), b.lastOffset(), b.crc())).toList();
        }

        /** The replica's epoch cache as evidence, oldest first; null when the file does not give it. */
        List<EpochStart> epochCache() {
            return leaderEpochs == null ? null
                    : leaderEpochs.stream().map(e -> new EpochStart(e.epoch(), e.startOffset())).toList();
        }

        public TopicPartition topicPartition() {
            return new TopicPartition(topic, partition);
        }
    }

    /** One entry of a leader epoch cache: the first offset written in {@code epoch}. */
    public record LeaderEpoch(@Required int epoch, @Required long startOffset) {
    }

    /** A record batch's offsets and its stored CRC, as its header gives them. */
    public record Batch(@Required long baseOffset, @Required long lastOffset, @Required long crc) {
    }

    /** A directory of a log dir that is not a partition's current log. */
    public record Skipped(
            @Required String logDir,
            @Required String directory,
            @Required String reason) {
    }

    /**
     * The evidence file for what {@code inspect} read.
     *
     * @param tool e.g. "kafka-unclean-recovery 0.1.0"
     * @throws IllegalArgumentException when no log dir said which broker it belongs to
     */
    public static EvidenceFile from(LogDirReport report, String tool) {
        if (report.brokerId() < 0) {
            throw new IllegalArgumentException("no log dir has a readable meta.properties, so the broker is unknown");
        }
        return new EvidenceFile(VERSION, report.inspectedAt(), tool, report.brokerId(), report.clusterId(),
                report.cleanShutdown(), report.cleanShutdown() ? report.brokerEpoch() : null,
                report.logDirs().stream().map(EvidenceFile::logDir).toList(),
                report.partitions().stream().map(EvidenceFile::partition).toList(),
                report.skipped().stream().map(EvidenceFile::skipped).toList());
    }

    /**
     * This broker's replicas as probe evidence (source {@link EvidenceSource#DISK}): readable logs answer with
     * their log end offset and last written epoch, the others count as errors.
     */
    public List<ReplicaEvidence> toReplicaEvidence() {
        return partitions.stream().map(this::toReplicaEvidence).toList();
    }

    /** One of this broker's replicas as probe evidence (source {@link EvidenceSource#DISK}). */
    public ReplicaEvidence toReplicaEvidence(Partition p) {
        return p.error() == null
                // Broker epoch -1: the one in the clean-shutdown marker belongs to the stopped incarnation, and the
                // broker gets a new one when it starts again, before its replica can be elected.
                ? ReplicaEvidence.answered(p.topicPartition(), brokerId, EvidenceSource.DISK, p.logEndOffset(),
                        p.lastWrittenLeaderEpoch(), -1, -1L, createdAt).withEpochCache(p.epochCache()).withBatchHeads(p.batchHeads())
                : ReplicaEvidence.failed(p.topicPartition(), brokerId, EvidenceSource.DISK, EvidenceStatus.ERROR,
                        "log dir " + p.logDir() + ": " + p.error(), createdAt);
    }

    public String toJson() {
        try {
            return Json.mapper().writeValueAsString(this) + "\n";
        } catch (IOException e) {
            throw new IllegalStateException("cannot write an evidence file as JSON", e);
        }
    }

    /** Writes the file atomically, always a new one: an existing file is refused (exit 2), never replaced. */
    public void write(Path file) throws IOException {
        FORMAT.write(file, this);
    }

    public static EvidenceFile read(Path file) throws IOException {
        return FORMAT.read(file);
    }

    /**
     * Reads an evidence file, checking everything: unknown fields, wrong types, missing or impossible values.
     *
     * @param source how to name the file in messages, usually its path
     * @throws InvalidEvidenceFileException with the file, the JSON path and what is wrong, in one line
     */
    public static EvidenceFile parse(String source, byte[] json) {
        return FORMAT.parse(source, json);
    }

    /**
     * An evidence file that cannot be used, in one line: {@code b2.json: partitions[3].logEndOffset must be >= 0, found -5}.
     */
    public static final class InvalidEvidenceFileException extends UserInputException {
        InvalidEvidenceFileException(String source, String jsonPath, String problem, Throwable cause) {
            super(source + ": " + (jsonPath.isEmpty() ? "" : jsonPath + " ") + problem, cause);
        }
    }

    private static LogDir logDir(LogDirSummary d) {
        return new LogDir(d.path().toString(), d.directoryId(), d.cleanShutdown(),
                d.brokerEpoch() < 0 ? null : d.brokerEpoch(), d.notes(), d.error());
    }

    private static Partition partition(PartitionLogSummary p) {
        boolean known = p.error() == null;
        return new Partition(p.topic(), p.partition(), p.topicId() == null ? null : p.topicId().toString(),
                p.logDir().toString(),
                known ? p.logStartOffset() : null,
                known ? p.logEndOffset() : null,
                known ? p.lastWrittenLeaderEpoch() : null,
                p.lastBatchLeaderEpoch() < 0 ? null : p.lastBatchLeaderEpoch(),
                known && (p.lastWrittenLeaderEpoch() < 0 || !p.leaderEpochs().isEmpty())
                        ? p.leaderEpochs().stream().map(e -> new LeaderEpoch(e.epoch(), e.startOffset())).toList() : null,
                known && !p.batches().isEmpty()
                        ? p.batches().stream().map(b -> new Batch(b.baseOffset(), b.lastOffset(), b.crc())).toList() : null,
                p.invalidTailBytes(), p.notes(), p.error());
    }

    private static Skipped skipped(SkippedDirectory s) {
        return new Skipped(s.logDir().toString(), s.directory(), s.reason());
    }
}
