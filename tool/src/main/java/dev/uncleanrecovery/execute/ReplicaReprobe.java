// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.evidence.ReplicaEvidence;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * Probes replicas once more right before their partition's election (through the probe fan-out): the designated
 * one, and every replica that had no live answer in the plan but whose broker is live now.
 */
@FunctionalInterface
public interface ReplicaReprobe {

    /**
     * @param replicas per partition, its current state and the brokers whose replicas to probe
     * @return evidence per partition, one entry per broker that was asked; a missing entry means no answer
     */
    Map<TopicPartition, List<ReplicaEvidence>> reprobe(Map<TopicPartitionState, List<Integer>> replicas);
}
