// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cluster;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;

/**
 * What discovery learned about the cluster at one moment.
 *
 * @param elrFeatureLevel finalized {@code eligible.leader.replicas.version}; 0 off, -1 unknown
 * @param minInsyncReplicas effective {@code min.insync.replicas} per selected topic
 * @param reassigning partitions with a reassignment in progress (the tool never touches them)
 */
public record ClusterSnapshot(
        String clusterId,
        int controllerId,
        List<BrokerState> brokers,
        short elrFeatureLevel,
        List<TopicPartitionState> partitions,
        Map<String, Integer> minInsyncReplicas,
        Set<TopicPartition> reassigning) {

    public ClusterSnapshot {
        brokers = List.copyOf(brokers);
        partitions = List.copyOf(partitions);
        minInsyncReplicas = Map.copyOf(minInsyncReplicas);
        reassigning = Set.copyOf(reassigning);
    }

    public Map<Integer, BrokerState> brokersById() {
        return brokers.stream().collect(Collectors.toMap(BrokerState::id, Function.identity()));
    }

    public Set<Integer> fencedBrokers() {
        return brokers.stream().filter(BrokerState::fenced).map(BrokerState::id).collect(Collectors.toSet());
    }

    public Optional<TopicPartitionState> partition(TopicPartition tp) {
        return partitions.stream().filter(p -> p.topicPartition().equals(tp)).findFirst();
    }

    public List<TopicPartitionState> offlinePartitions() {
        return partitions.stream().filter(TopicPartitionState::isOffline).toList();
    }

    /** Online, but the ISR is below min.insync.replicas: acks=all writes fail and the HWM stops (KIP-966). */
    public List<TopicPartitionState> atRiskPartitions() {
        return partitions.stream()
                .filter(p -> !p.isOffline())
                .filter(p -> p.isr().size() < minInsyncReplicas.getOrDefault(p.topic(), 1))
                .toList();
    }

    public boolean isElrEnabled() {
        return elrFeatureLevel >= 1;
    }
}
