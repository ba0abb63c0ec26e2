// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.evidence.ReplicaEvidence;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * Where followers whose last written epoch differs from the leader's will truncate under it, as their brokers answer
 * the look-ups a follower makes (OffsetsForLeaderEpoch on the leader, then on itself: KIP-101/KIP-279). Epochs and log
 * ends alone only bound such a cut.
 */
@FunctionalInterface
public interface CutLookUp {

    /** One partition's followers to ask about, under {@code leader} as measured just now. */
    record Ask(TopicPartitionState partition, ReplicaEvidence leader, List<ReplicaEvidence> followers) {
    }

    /**
     * @return per partition, per follower broker, the first offset whose record it loses: where it truncates, past the
     *         batches there that the leader holds alike (a producer's retried batch); a look-up not answered is left out
     */
    Map<TopicPartition, Map<Integer, Long>> cuts(Map<TopicPartition, Ask> asks);

    /** Asks nothing: every cut stays a bound (tests that need no network). */
    CutLookUp NONE = asks -> Map.of();
}
