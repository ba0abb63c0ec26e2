// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.evidence;

import java.time.Instant;
import java.util.List;
import org.apache.kafka.common.TopicPartition;

/**
 * What one replica's broker (or its disk) says about that replica's log.
 *
 * @param broker                 the broker holding the replica
 * @param logEndOffset           -1 unless status is OK
 * @param lastWrittenLeaderEpoch latest epoch in the replica's leader-epoch cache; -1 when empty or unknown
 * @param currentLeaderEpoch     the partition's leader epoch as that broker knows it; -1 unknown
 * @param brokerEpoch            -1 when not known (stock brokers never expose it)
 * @param error                  null when status is OK; otherwise what went wrong, for people
 * @param observedAt             when the answer arrived (or the disk was read)
 * @param highWatermark          the replica's local high watermark (offsets below it were committed in its log);
 *                               -1 when not known (the native RPC and a disk read do not give it)
 * @param epochCache             the replica's whole leader epoch cache, oldest first, as a read of its stopped
 *                               broker's disk gives it; null when not known (a broker's answer gives its latest epoch
 *                               only, and is asked for the rest)
 * @param batchHeads             for a replica read off a stopped broker's disk, the batches it holds where a new
 *                               leader may cut it (its last epochs' first batches and its last batches), by offset;
 *                               empty otherwise (a running broker is asked)
 */
public record ReplicaEvidence(
        TopicPartition topicPartition,
        int broker,
        EvidenceSource source,
        EvidenceStatus status,
        long logEndOffset,
        int lastWrittenLeaderEpoch,
        int currentLeaderEpoch,
        long brokerEpoch,
        String error,
        Instant observedAt,
        long highWatermark,
        List<EpochStart> epochCache,
        List<BatchHead> batchHeads) {

    public ReplicaEvidence {
        epochCache = epochCache == null ? null : List.copyOf(epochCache);
        batchHeads = batchHeads == null ? List.of() : List.copyOf(batchHeads);
    }

    public ReplicaEvidence(TopicPartition topicPartition, int broker, EvidenceSource source, EvidenceStatus status,
                           long logEndOffset, int lastWrittenLeaderEpoch, int currentLeaderEpoch, long brokerEpoch,
                           String error, Instant observedAt, long highWatermark) {
        this(topicPartition, broker, source, status, logEndOffset, lastWrittenLeaderEpoch, currentLeaderEpoch,
                brokerEpoch, error, observedAt, highWatermark, null, null);
    }

    public ReplicaEvidence(TopicPartition topicPartition, int broker, EvidenceSource source, EvidenceStatus status,
                           long logEndOffset, int lastWrittenLeaderEpoch, int currentLeaderEpoch, long brokerEpoch,
                           String error, Instant observedAt) {
        this(topicPartition, broker, source, status, logEndOffset, lastWrittenLeaderEpoch, currentLeaderEpoch,
                brokerEpoch, error, observedAt, -1L);
    }

    public static ReplicaEvidence answered(TopicPartition tp, int broker, EvidenceSource source,
                                           long logEndOffset, int lastWrittenLeaderEpoch,
                                           int currentLeaderEpoch, long brokerEpoch, Instant observedAt) {
        return new ReplicaEvidence(tp, broker, source, EvidenceStatus.OK, logEndOffset,
                lastWrittenLeaderEpoch, currentLeaderEpoch, brokerEpoch, null, observedAt);
    }

    public static ReplicaEvidence failed(TopicPartition tp, int broker, EvidenceSource source,
                                         EvidenceStatus status, String error, Instant observedAt) {
        return new ReplicaEvidence(tp, broker, source, status, -1L, -1, -1, -1L, error, observedAt);
    }

    public ReplicaEvidence withHighWatermark(long value) {
        return new ReplicaEvidence(topicPartition, broker, source, status, logEndOffset, lastWrittenLeaderEpoch,
                currentLeaderEpoch, brokerEpoch, error, observedAt, value, epochCache, batchHeads);
    }

    public ReplicaEvidence withEpochCache(List<EpochStart> entries) {
        return new ReplicaEvidence(topicPartition, broker, source, status, logEndOffset, lastWrittenLeaderEpoch,
                currentLeaderEpoch, brokerEpoch, error, observedAt, highWatermark, entries, batchHeads);
    }

    public ReplicaEvidence withBatchHeads(List<BatchHead> heads) {
        return new ReplicaEvidence(topicPartition, broker, source, status, logEndOffset, lastWrittenLeaderEpoch,
                currentLeaderEpoch, brokerEpoch, error, observedAt, highWatermark, epochCache, heads);
    }

    public boolean isAnswered() {
        return status == EvidenceStatus.OK;
    }
}
