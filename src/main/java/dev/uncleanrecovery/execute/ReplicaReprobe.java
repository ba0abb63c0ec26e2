// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.probe.ReplicaEvidence;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/** Probes each designated replica once more, right before its election (through the probe fan-out). */
@FunctionalInterface
public interface ReplicaReprobe {

    /**
     * @param designated per partition, its current state and the replica to probe
     * @return evidence per partition; a missing entry means no answer
     */
    Map<TopicPartition, ReplicaEvidence> reprobe(Map<TopicPartitionState, Integer> designated);
}
