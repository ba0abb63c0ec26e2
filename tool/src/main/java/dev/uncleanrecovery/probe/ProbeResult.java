// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.probe;

import dev.uncleanrecovery.evidence.ReplicaEvidence;
import dev.uncleanrecovery.support.PartitionMap;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * What a fan-out learned: one evidence per probed replica, always (UNREACHABLE when its broker
 * never answered), plus what it cost.
 *
 * @param evidence          partitions in topic/partition order; each list in broker id order
 * @param requests          requests sent, by broker and kind
 * @param unansweredBrokers the brokers behind the UNREACHABLE replicas, once each, in broker id order
 */
public record ProbeResult(Map<TopicPartition, List<ReplicaEvidence>> evidence, RequestCounts requests, Duration elapsed,
                          List<UnansweredBroker> unansweredBrokers) {

    public ProbeResult {
        evidence = PartitionMap.copyOf(evidence);
        unansweredBrokers = List.copyOf(unansweredBrokers);
    }

    public List<ReplicaEvidence> evidenceFor(TopicPartition tp) {
        return evidence.getOrDefault(tp, List.of());
    }
}
