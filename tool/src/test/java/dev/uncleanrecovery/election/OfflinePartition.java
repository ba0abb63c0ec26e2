// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.election;

import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.evidence.ReplicaEvidence;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

/** Test vocabulary: "orders-3 is offline, replicas [1,2,3], LastKnownELR [1]"; "2 answered epoch 6, LEO 1042". */
final class OfflinePartition {
    static final TopicPartition ORDERS_3 = new TopicPartition("orders", 3);
    static final Instant PROBED_AT = Instant.parse("2026-11-29T03:00:00Z");
    private static final Uuid ORDERS_ID = new Uuid(0x0123456789abcdefL, 0x0fedcba987654321L);

    private int leader = TopicPartitionState.NO_LEADER;
    private int leaderEpoch = 7;
    private List<Integer> replicas = List.of(1, 2, 3);
    private List<Integer> isr = List.of();
    private List<Integer> elr = List.of();
    private List<Integer> lastKnownElr = List.of();
    private List<Integer> offline = List.of();

    static OfflinePartition orders3() {
        return new OfflinePartition();
    }

    OfflinePartition replicas(Integer... brokers) {
        replicas = List.of(brokers);
        return this;
    }

    /** The ISR a leaderless partition keeps on a cluster without ELR: its last leader. */
    OfflinePartition isr(Integer... brokers) {
        isr = List.of(brokers);
        return this;
    }

    OfflinePartition elr(Integer... brokers) {
        elr = List.of(brokers);
        return this;
    }

    OfflinePartition lastKnownElr(Integer... brokers) {
        lastKnownElr = List.of(brokers);
        return this;
    }

    OfflinePartition offlineReplicas(Integer... brokers) {
        offline = List.of(brokers);
        return this;
    }

    OfflinePartition ledBy(int broker) {
        leader = broker;
        return this;
    }

    TopicPartitionState state() {
        return new TopicPartitionState(ORDERS_3.topic(), ORDERS_ID, ORDERS_3.partition(), leader, leaderEpoch,
                replicas, isr, elr, lastKnownElr, offline);
    }

    static ReplicaEvidence live(int broker, int lastWrittenEpoch, long logEndOffset) {
        return ReplicaEvidence.answered(ORDERS_3, broker, EvidenceSource.STOCK, logEndOffset, lastWrittenEpoch, 7, -1, PROBED_AT);
    }

    static ReplicaEvidence disk(int broker, int lastWrittenEpoch, long logEndOffset) {
        return ReplicaEvidence.answered(ORDERS_3, broker, EvidenceSource.DISK, logEndOffset, lastWrittenEpoch, -1, -1,
                PROBED_AT.minusSeconds(600));
    }

    static ReplicaEvidence unreachable(int broker, String error) {
        return ReplicaEvidence.failed(ORDERS_3, broker, EvidenceSource.STOCK, EvidenceStatus.UNREACHABLE, error, PROBED_AT);
    }

    static ReplicaEvidence failed(int broker, EvidenceStatus status, String error) {
        return ReplicaEvidence.failed(ORDERS_3, broker, EvidenceSource.NATIVE, status, error, PROBED_AT);
    }
}
