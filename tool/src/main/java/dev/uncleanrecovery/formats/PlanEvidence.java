// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.formats;

import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.evidence.ReplicaEvidence;
import java.time.Instant;
import org.apache.kafka.common.TopicPartition;

/**
 * One replica's evidence as the plan records it, so a reviewer sees what the choice was based on. Facts that are
 * not known are left out of the file rather than written as -1.
 *
 * @param logEndOffset           present when status is OK
 * @param lastWrittenLeaderEpoch present when status is OK; -1 means the replica's epoch cache is empty
 * @param currentLeaderEpoch     the partition's leader epoch as the replica's broker knows it, when it said
 * @param brokerEpoch            only the native RPC reports it
 * @param error                  what went wrong, when status is not OK
 * @param highWatermark          the replica's local high watermark, when its answer gave it (plan version 2)
 */
public record PlanEvidence(
        @Required int broker,
        @Required EvidenceSource source,
        @Required EvidenceStatus status,
        Long logEndOffset,
        Integer lastWrittenLeaderEpoch,
        Integer currentLeaderEpoch,
        Long brokerEpoch,
        String error,
        Instant observedAt,
        Long highWatermark) {

    /** An entry of a version-1 plan, which has no high watermark. */
    public PlanEvidence(int broker, EvidenceSource source, EvidenceStatus status, Long logEndOffset,
                        Integer lastWrittenLeaderEpoch, Integer currentLeaderEpoch, Long brokerEpoch, String error,
                        Instant observedAt) {
        this(broker, source, status, logEndOffset, lastWrittenLeaderEpoch, currentLeaderEpoch, brokerEpoch, error,
                observedAt, null);
    }

    public PlanEvidence {
        Checks.atLeast(broker, 0, "broker");
        if (status == EvidenceStatus.OK) {
            Checks.atLeast(Checks.present(logEndOffset, "logEndOffset"), 0, "logEndOffset");
            Checks.present(lastWrittenLeaderEpoch, "lastWrittenLeaderEpoch");
        }
    }

    public static PlanEvidence from(ReplicaEvidence evidence) {
        if (!evidence.isAnswered()) {
            return new PlanEvidence(evidence.broker(), evidence.source(), evidence.status(), null, null, null, null,
                    evidence.error(), evidence.observedAt());
        }
        return new PlanEvidence(evidence.broker(), evidence.source(), evidence.status(), evidence.logEndOffset(),
                evidence.lastWrittenLeaderEpoch(), knownOrNull(evidence.currentLeaderEpoch()),
                evidence.brokerEpoch() < 0 ? null : evidence.brokerEpoch(), evidence.error(), evidence.observedAt(),
                evidence.highWatermark() < 0 ? null : evidence.highWatermark());
    }

    /** Back to the probe's value, with -1 for what is unknown (its convention). */
    public ReplicaEvidence toReplicaEvidence(TopicPartition topicPartition) {
        return new ReplicaEvidence(topicPartition, broker, source, status,
                logEndOffset == null ? -1L : logEndOffset,
                lastWrittenLeaderEpoch == null ? -1 : lastWrittenLeaderEpoch,
                currentLeaderEpoch == null ? -1 : currentLeaderEpoch,
                brokerEpoch == null ? -1L : brokerEpoch,
                error, observedAt, highWatermark == null ? -1L : highWatermark);
    }

    private static Integer knownOrNull(int epoch) {
        return epoch < 0 ? null : epoch;
    }
}
