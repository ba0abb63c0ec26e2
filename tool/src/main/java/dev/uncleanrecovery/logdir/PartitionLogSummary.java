// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

/**
 * One replica's log as a stopped broker's disk holds it, with the values Kafka will have after it restarts
 * (log recovery truncates invalid tails; the leader epoch cache is cut to the log).
 *
 * @param topicId                null when partition.metadata is missing or unreadable (see notes)
 * @param brokerId               node.id of the log dir; -1 when unknown
 * @param logStartOffset         -1 when unknown
 * @param logEndOffset           the offset after the last valid batch; -1 when {@code error} is set
 * @param lastWrittenLeaderEpoch the latest epoch in the leader epoch cache once cut to the log; -1 when unknown
 *                               or when the log holds no epoch. What the election ranks replicas by, first.
 * @param lastBatchLeaderEpoch   partitionLeaderEpoch of the last valid batch; -1 when there is none
 * @param invalidTailBytes       bytes after the last valid batch of the last segment, which recovery removes
 * @param cleanShutdown          the log dir has the clean-shutdown marker
 * @param brokerEpoch            the epoch in the clean-shutdown marker; -1 otherwise
 * @param notes                  what a person should know (a torn tail, an unusable index, a missing file...)
 * @param error                  why the log end offset is unknown; null when it is known
 * @param recoveryCutsData       why Kafka's log recovery at the next start-up cuts the log before data that is not a
 *                               write cut short: a batch that fails its checks with bytes after it, or later segments
 *                               it deletes; null when it removes at most a torn or zero-filled end. A restart loses
 *                               that data whatever the election.
 * @param leaderEpochs           the leader epoch cache as Kafka holds it once the log is loaded (cut to the log),
 *                               oldest first; empty when the cache is empty or the log is unreadable
 * @param batches                the batches where a new leader may cut this log (the first of its last epochs, its
 *                               last ones), by offset; empty when the log is unreadable or none could be read
 */
public record PartitionLogSummary(
        String topic,
        int partition,
        Uuid topicId,
        int brokerId,
        Path logDir,
        long logStartOffset,
        long logEndOffset,
        int lastWrittenLeaderEpoch,
        int lastBatchLeaderEpoch,
        long invalidTailBytes,
        boolean cleanShutdown,
        long brokerEpoch,
        List<String> notes,
        String error,
        String recoveryCutsData,
        List<EpochEntry> leaderEpochs,
        List<LoggedBatch> batches) {

    public PartitionLogSummary {
        notes = List.copyOf(notes);
        leaderEpochs = leaderEpochs == null ? List.of() : List.copyOf(leaderEpochs);
        batches = batches == null ? List.of() : List.copyOf(batches);
    }

    /** A replica whose batches were not read. */
    public PartitionLogSummary(String topic, int partition, Uuid topicId, int brokerId, Path logDir, long logStartOffset,
                               long logEndOffset, int lastWrittenLeaderEpoch, int lastBatchLeaderEpoch,
                               long invalidTailBytes, boolean cleanShutdown, long brokerEpoch, List<String> notes,
                               String error, String recoveryCutsData, List<EpochEntry> leaderEpochs) {
        this(topic, partition, topicId, brokerId, logDir, logStartOffset, logEndOffset, lastWrittenLeaderEpoch,
                lastBatchLeaderEpoch, invalidTailBytes, cleanShutdown, brokerEpoch, notes, error, recoveryCutsData,
                leaderEpochs, List.of());
    }

    /** A replica whose epoch cache was not kept. */
    public PartitionLogSummary(String topic, int partition, Uuid topicId, int brokerId, Path logDir, long logStartOffset,
                               long logEndOffset, int lastWrittenLeaderEpoch, int lastBatchLeaderEpoch,
                               long invalidTailBytes, boolean cleanShutdown, long brokerEpoch, List<String> notes,
                               String error, String recoveryCutsData) {
        this(topic, partition, topicId, brokerId, logDir, logStartOffset, logEndOffset, lastWrittenLeaderEpoch,
                lastBatchLeaderEpoch, invalidTailBytes, cleanShutdown, brokerEpoch, notes, error, recoveryCutsData,
                List.of());
    }

    /** A replica whose recovery, if any, removes at most a torn or zero-filled end. */
    public PartitionLogSummary(String topic, int partition, Uuid topicId, int brokerId, Path logDir, long logStartOffset,
                               long logEndOffset, int lastWrittenLeaderEpoch, int lastBatchLeaderEpoch,
                               long invalidTailBytes, boolean cleanShutdown, long brokerEpoch, List<String> notes,
                               String error) {
        this(topic, partition, topicId, brokerId, logDir, logStartOffset, logEndOffset, lastWrittenLeaderEpoch,
                lastBatchLeaderEpoch, invalidTailBytes, cleanShutdown, brokerEpoch, notes, error, null);
    }

    public TopicPartition topicPartition() {
        return new TopicPartition(topic, partition);
    }

    /** The log end offset and last written epoch are known, so this replica can be a candidate. */
    public boolean isReadable() {
        return error == null;
    }
}
