// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cluster;

import dev.uncleanrecovery.connect.BrokerState;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;

/**
 * What discovery learned about the cluster at one moment. Partitions and brokers are indexed once: an execution
 * looks up every one of thousands of partitions several times.
 */
public final class ClusterSnapshot {

    /** {@link #elrFeatureLevel()} of brokers that know no {@code eligible.leader.replicas.version} (Kafka 3.x). */
    public static final short ELR_UNSUPPORTED = -2;
    /**
     * {@link #elrFeatureLevel()} of a ZooKeeper-mode cluster (Kafka 3.x): no ELR either, and its controller is one of
     * the brokers, elected through ZooKeeper.
     */
    public static final short ELR_ZOOKEEPER_MODE = -3;

    private final String clusterId;
    private final int controllerId;
    private final List<BrokerState> brokers;
    private final short elrFeatureLevel;
    private final List<TopicPartitionState> partitions;
    private final Map<String, Integer> minInsyncReplicas;
    private final Set<TopicPartition> reassigning;
    private final Set<String> tieredStorage;
    private final Map<Integer, BrokerState> brokersById;
    private final Set<Integer> liveBrokers;
    private final Map<TopicPartition, TopicPartitionState> byPartition;
    private final List<UnreadableTopic> unreadableTopics;

    /**
     * @param elrFeatureLevel   finalized {@code eligible.leader.replicas.version}; 0 off, -1 unknown,
     *                          {@link #ELR_UNSUPPORTED} when the brokers know no such feature (Kafka 3.x),
     *                          {@link #ELR_ZOOKEEPER_MODE} when they run in ZooKeeper mode
     * @param minInsyncReplicas effective {@code min.insync.replicas} per selected topic
     * @param reassigning       partitions with a reassignment in progress (the tool never touches them)
     */
    public ClusterSnapshot(String clusterId, int controllerId, List<BrokerState> brokers, short elrFeatureLevel,
                           List<TopicPartitionState> partitions, Map<String, Integer> minInsyncReplicas,
                           Set<TopicPartition> reassigning) {
        this(clusterId, controllerId, brokers, elrFeatureLevel, partitions, minInsyncReplicas, reassigning, Set.of());
    }

    /** @param tieredStorage the selected topics with {@code remote.storage.enable=true} */
    public ClusterSnapshot(String clusterId, int controllerId, List<BrokerState> brokers, short elrFeatureLevel,
                           List<TopicPartitionState> partitions, Map<String, Integer> minInsyncReplicas,
                           Set<TopicPartition> reassigning, Set<String> tieredStorage) {
        this(clusterId, controllerId, brokers, elrFeatureLevel, partitions, minInsyncReplicas, reassigning, tieredStorage,
                List.of());
    }

    /** @param unreadableTopics selected topics the cluster would not describe: none of their partitions is here */
    public ClusterSnapshot(String clusterId, int controllerId, List<BrokerState> brokers, short elrFeatureLevel,
                           List<TopicPartitionState> partitions, Map<String, Integer> minInsyncReplicas,
                           Set<TopicPartition> reassigning, Set<String> tieredStorage,
                           List<UnreadableTopic> unreadableTopics) {
        this.unreadableTopics = List.copyOf(unreadableTopics);
        this.tieredStorage = Set.copyOf(tieredStorage);
        this.clusterId = clusterId;
        this.controllerId = controllerId;
        this.brokers = List.copyOf(brokers);
        this.elrFeatureLevel = elrFeatureLevel;
        this.partitions = List.copyOf(partitions);
        this.minInsyncReplicas = Map.copyOf(minInsyncReplicas);
        this.reassigning = Set.copyOf(reassigning);
        this.brokersById = Collections.unmodifiableMap(this.brokers.stream()
                .collect(Collectors.toMap(BrokerState::id, Function.identity(), (a, b) -> a, LinkedHashMap::new)));
        this.liveBrokers = this.brokers.stream().filter(b -> !b.fenced()).map(BrokerState::id)
                .collect(Collectors.toUnmodifiableSet());
        Map<TopicPartition, TopicPartitionState> index = new HashMap<>();
        this.partitions.forEach(p -> index.putIfAbsent(p.topicPartition(), p));
        this.byPartition = index;
    }

    public String clusterId() {
        return clusterId;
    }

    public int controllerId() {
        return controllerId;
    }

    public List<BrokerState> brokers() {
        return brokers;
    }

    public short elrFeatureLevel() {
        return elrFeatureLevel;
    }

    public List<TopicPartitionState> partitions() {
        return partitions;
    }

    /**
     * Selected topics the cluster answered with a topic-level error (not authorized, deleted since listed...): their
     * partitions, offline ones included, are not in {@link #partitions()}. Empty unless the read was asked to report them.
     */
    public List<UnreadableTopic> unreadableTopics() {
        return unreadableTopics;
    }

    /** Whether the topic keeps segments in remote storage ({@code remote.storage.enable=true}, KIP-405). */
    public boolean hasTieredStorage(String topic) {
        return tieredStorage.contains(topic);
    }

    public Map<String, Integer> minInsyncReplicas() {
        return minInsyncReplicas;
    }

    public Set<TopicPartition> reassigning() {
        return reassigning;
    }

    public Map<Integer, BrokerState> brokersById() {
        return brokersById;
    }

    /** Registered, unfenced brokers: the ones an election may pick. */
    public Set<Integer> liveBrokers() {
        return liveBrokers;
    }

    public Set<Integer> fencedBrokers() {
        return brokers.stream().filter(BrokerState::fenced).map(BrokerState::id).collect(Collectors.toSet());
    }

    public Optional<TopicPartitionState> partition(TopicPartition tp) {
        return Optional.ofNullable(byPartition.get(tp));
    }

    /**
     * Whether {@code broker} answers Fetch and ListOffsets for its replica of {@code tp} now: registered, unfenced, and
     * the replica not {@linkplain #isOnFailedLogDir on a failed log directory}.
     */
    public boolean canServe(TopicPartition tp, int broker) {
        BrokerState registered = brokersById.get(broker);
        return registered != null && !registered.fenced() && !isOnFailedLogDir(tp, broker);
    }

    /**
     * The replica is offline in the metadata while its broker is up: its log directory failed. KRaft (3.7+, JBOD)
     * keeps such a broker running and has the controller take the replicas on that directory offline.
     */
    public boolean isOnFailedLogDir(TopicPartition tp, int broker) {
        BrokerState registered = brokersById.get(broker);
        TopicPartitionState state = byPartition.get(tp);
        return registered != null && !registered.fenced() && state != null && state.offlineReplicas().contains(broker);
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

    /**
     * DescribeCluster lists fenced brokers from Kafka 4.0 (KIP-1073), the release that also brought the ELR feature;
     * a 3.x cluster lists unfenced brokers only, so a broker it does not list may be down or fenced.
     */
    public boolean listsFencedBrokers() {
        return isElrSupported();
    }

    /** The brokers' software has the ELR feature (4.0 and later), whether or not it is on. */
    public boolean isElrSupported() {
        return elrFeatureLevel != ELR_UNSUPPORTED && elrFeatureLevel != ELR_ZOOKEEPER_MODE;
    }

    /** The brokers run in ZooKeeper mode (no DescribeQuorum: that is KRaft's), so the controller is a broker. */
    public boolean isZooKeeperMode() {
        return elrFeatureLevel == ELR_ZOOKEEPER_MODE;
    }
}
