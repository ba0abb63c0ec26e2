// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cluster;

import dev.uncleanrecovery.UserInputException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.FeatureMetadata;
import org.apache.kafka.clients.admin.FinalizedVersionRange;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.errors.UnsupportedVersionException;

/**
 * Reads the cluster's view of brokers and partitions through Admin (DescribeCluster, DescribeTopicPartitions,
 * DescribeFeatures, DescribeConfigs, ListPartitionReassignments). Read-only.
 */
public final class ClusterDiscovery implements AutoCloseable {

    public static final String ELR_FEATURE = "eligible.leader.replicas.version";
    /** For calls any authenticated principal may make (DescribeCluster, Metadata); a refusal is unexpected. */
    private static final String NO_ACL_NEEDED = null;

    private final Admin admin;
    private final Properties clientProperties;
    private BrokerConnections connections;
    private final String bootstrapServers;
    private final int timeoutMs;

    public ClusterDiscovery(Properties clientProperties, int timeoutMs) {
        try {
            this.admin = Admin.create(clientProperties);
        } catch (org.apache.kafka.common.KafkaException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new UserInputException("cannot connect to --bootstrap-server "
                    + clientProperties.getProperty("bootstrap.servers") + ": " + cause.getMessage(), e);
        }
        this.clientProperties = clientProperties;
        this.bootstrapServers = clientProperties.getProperty("bootstrap.servers");
        this.timeoutMs = timeoutMs;
    }

    public Admin admin() {
        return admin;
    }

    /** Connections to single brokers with the same client properties; opened on first use. */
    public synchronized BrokerConnections connections(List<BrokerState> brokers) {
        if (connections == null) {
            connections = BrokerConnections.open(clientProperties, brokers);
        }
        return connections;
    }

    public ClusterSnapshot describe(PartitionSelection selection) {
        return describe(selection, true);
    }

    /**
     * Only brokers and partition metadata (DescribeCluster + DescribeTopicPartitions): what the electors need
     * while they poll for a reorder or a new leader. Features, min.insync.replicas and reassignments are left
     * empty, so such a snapshot must not be used to re-validate a plan.
     */
    public ClusterSnapshot describePartitionsOnly(PartitionSelection selection) {
        return describe(selection, false);
    }

    private ClusterSnapshot describe(PartitionSelection selection, boolean everything) {
        DescribeClusterResult cluster = describeCluster();
        String clusterId = await(cluster.clusterId(), "describe the cluster", NO_ACL_NEEDED);
        Node controller = await(cluster.controller(), "describe the cluster", NO_ACL_NEEDED);
        List<BrokerState> brokers = await(cluster.nodes(), "describe the cluster", NO_ACL_NEEDED).stream()
                .map(n -> new BrokerState(n.id(), n.host(), n.port(), n.rack(), n.isFenced()))
                .sorted(java.util.Comparator.comparingInt(BrokerState::id))
                .toList();

        Set<String> topics = topicsOf(selection);
        List<TopicPartitionState> partitions = new ArrayList<>();
        for (TopicPartitionState p : readPartitions(topics, brokers)) {
            if (selection.includes(p.topic(), p.partition())) {
                partitions.add(p);
            }
        }
        checkRequestedPartitionsExist(selection, partitions);
        partitions.sort(java.util.Comparator.comparing(TopicPartitionState::topic)
                .thenComparingInt(TopicPartitionState::partition));

        if (!everything) {
            return new ClusterSnapshot(clusterId, controller == null ? -1 : controller.id(), brokers, (short) -1,
                    partitions, Map.of(), Set.of());
        }
        return new ClusterSnapshot(clusterId, controller == null ? -1 : controller.id(), brokers,
                elrFeatureLevel(), partitions, minInsyncReplicas(topics), reassigning(brokers));
    }

    private DescribeClusterResult describeCluster() {
        DescribeClusterResult withFenced = admin.describeCluster(new DescribeClusterOptions().includeFencedBrokers(true));
        try {
            withFenced.nodes().get();
            return withFenced;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnsupportedVersionException) {
                // DescribeCluster v2 (fenced brokers) is 4.0+; 3.x brokers list only unfenced ones.
                return admin.describeCluster();
            }
            throw translate(e, "describe the cluster", NO_ACL_NEEDED);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private Set<String> topicsOf(PartitionSelection selection) {
        if (selection instanceof PartitionSelection.OneTopic one) {
            return Set.of(one.topic());
        }
        if (selection instanceof PartitionSelection.Explicit explicit) {
            return explicit.partitions().stream().map(TopicPartition::topic).collect(Collectors.toCollection(TreeSet::new));
        }
        return new TreeSet<>(await(admin.listTopics(new ListTopicsOptions().listInternal(true)).names(), "list topics", NO_ACL_NEEDED));
    }

    /** DescribeTopicPartitions straight from a live broker; Admin's Metadata-based describe for 3.7 brokers. */
    private List<TopicPartitionState> readPartitions(Set<String> topics, List<BrokerState> brokers) {
        if (topics.isEmpty()) {
            return List.of();
        }
        List<Integer> live = brokers.stream().filter(b -> !b.fenced()).map(BrokerState::id).toList();
        try {
            return new TopicPartitionsReader(connections(brokers),
                    java.time.Duration.ofMillis(ClientProperties.requestTimeoutMs(timeoutMs))).read(topics, live);
        } catch (UnsupportedVersionException e) {
            return describeTopicsThroughMetadata(topics, brokers);
        }
    }

    private List<TopicPartitionState> describeTopicsThroughMetadata(Set<String> topics, List<BrokerState> brokers) {
        Set<Integer> fenced = brokers.stream().filter(BrokerState::fenced).map(BrokerState::id).collect(Collectors.toSet());
        Set<Integer> registered = brokers.stream().map(BrokerState::id).collect(Collectors.toSet());
        List<TopicPartitionState> result = new ArrayList<>();
        Map<String, KafkaFuture<TopicDescription>> futures = admin.describeTopics(topics).topicNameValues();
        for (Map.Entry<String, KafkaFuture<TopicDescription>> entry : futures.entrySet()) {
            TopicDescription description;
            try {
                description = entry.getValue().get();
            } catch (ExecutionException e) {
                if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                    throw new UserInputException("unknown topic '" + entry.getKey() + "' (check the name with kafka-topics.sh --list)");
                }
                throw translate(e, "describe topic '" + entry.getKey() + "'", "DESCRIBE on it");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
            for (TopicPartitionInfo info : description.partitions()) {
                result.add(toState(description, info, fenced, registered));
            }
        }
        return result;
    }

    private static void checkRequestedPartitionsExist(PartitionSelection selection, List<TopicPartitionState> found) {
        List<TopicPartition> requested = new ArrayList<>();
        if (selection instanceof PartitionSelection.OneTopic one) {
            one.partitions().forEach(p -> requested.add(new TopicPartition(one.topic(), p)));
        } else if (selection instanceof PartitionSelection.Explicit explicit) {
            requested.addAll(explicit.partitions());
        }
        Set<TopicPartition> present = found.stream().map(TopicPartitionState::topicPartition).collect(Collectors.toSet());
        for (TopicPartition tp : requested) {
            if (!present.contains(tp)) {
                throw new UserInputException("partition " + tp.partition() + " of topic '" + tp.topic()
                        + "' does not exist (check with kafka-topics.sh --describe --topic " + tp.topic() + ")");
            }
        }
    }

    /** Metadata API answers (3.7) have no leader epoch, ELR or OfflineReplicas: derive what we can. */
    private static TopicPartitionState toState(TopicDescription description, TopicPartitionInfo info,
                                               Set<Integer> fenced, Set<Integer> registered) {
        List<Integer> replicas = ids(info.replicas());
        List<Integer> offline = replicas.stream().filter(r -> fenced.contains(r) || !registered.contains(r)).toList();
        Node leader = info.leader();
        int leaderId = leader == null || leader.isEmpty() || leader.id() < 0 ? TopicPartitionState.NO_LEADER : leader.id();
        return new TopicPartitionState(description.name(), description.topicId(), info.partition(), leaderId,
                -1, replicas, ids(info.isr()), ids(info.elr()), ids(info.lastKnownElr()), offline);
    }

    private static List<Integer> ids(List<Node> nodes) {
        // elr()/lastKnownElr() are null when the brokers answered through the Metadata API (Kafka 3.7).
        return nodes == null ? List.of() : nodes.stream().map(Node::id).toList();
    }

    private short elrFeatureLevel() {
        try {
            FeatureMetadata features = admin.describeFeatures().featureMetadata().get();
            FinalizedVersionRange range = features.finalizedFeatures().get(ELR_FEATURE);
            return range == null ? 0 : range.maxVersionLevel();
        } catch (ExecutionException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private Map<String, Integer> minInsyncReplicas(Set<String> topics) {
        List<ConfigResource> resources = topics.stream()
                .map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t)).toList();
        Map<ConfigResource, KafkaFuture<Config>> configs = admin.describeConfigs(resources).values();
        Map<String, Integer> result = new HashMap<>();
        // One topic at a time, so that a refusal names the topic that needs the ACL.
        configs.forEach((resource, future) -> {
            Config config = await(future, "describe the configs of topic '" + resource.name() + "'", "DESCRIBE_CONFIGS on it");
            var entry = config.get(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG);
            result.put(resource.name(), entry == null || entry.value() == null ? 1 : Integer.parseInt(entry.value()));
        });
        return result;
    }

    /**
     * ListPartitionReassignments sent straight to live brokers in turn (each forwards it to the controller).
     * Admin would send it to the one broker its metadata names as "controller" — a random broker in KRaft —
     * and keep retrying that broker if it hangs.
     */
    private Set<TopicPartition> reassigning(List<BrokerState> brokers) {
        java.time.Duration requestTimeout = java.time.Duration.ofMillis(ClientProperties.requestTimeoutMs(timeoutMs));
        long deadline = System.nanoTime() + java.time.Duration.ofMillis(timeoutMs).toNanos();
        Throwable last = null;
        List<Integer> live = brokers.stream().filter(b -> !b.fenced()).map(BrokerState::id).toList();
        for (int attempt = 0; System.nanoTime() < deadline && !live.isEmpty(); attempt++) {
            int broker = live.get(attempt % live.size());
            try {
                var response = connections(brokers).send(broker,
                        new org.apache.kafka.common.requests.ListPartitionReassignmentsRequest.Builder(
                                new org.apache.kafka.common.message.ListPartitionReassignmentsRequestData().setTopics(null)),
                        org.apache.kafka.common.requests.ListPartitionReassignmentsResponse.class, requestTimeout).get();
                org.apache.kafka.common.protocol.Errors error =
                        org.apache.kafka.common.protocol.Errors.forCode(response.data().errorCode());
                if (error == org.apache.kafka.common.protocol.Errors.CLUSTER_AUTHORIZATION_FAILED) {
                    throw new UserInputException("not authorized to list partition reassignments: grant DESCRIBE on the"
                            + " cluster to this principal (see README Permissions)");
                }
                if (error != org.apache.kafka.common.protocol.Errors.NONE) {
                    throw error.exception("listing partition reassignments failed: " + response.data().errorMessage());
                }
                Set<TopicPartition> result = new java.util.HashSet<>();
                response.data().topics().forEach(t -> t.partitions().forEach(
                        p -> result.add(new TopicPartition(t.name(), p.partitionIndex()))));
                return result;
            } catch (ExecutionException e) {
                if (e.getCause() instanceof UnsupportedVersionException) {
                    break;
                }
                last = e.getCause();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while listing partition reassignments", e);
            }
        }
        if (last == null) {
            // No live broker, or brokers too old for a direct request: let Admin try.
            return await(admin.listPartitionReassignments().reassignments(), "list partition reassignments",
                    "DESCRIBE on the cluster").keySet();
        }
        throw new UserInputException("could not list partition reassignments: no live broker answered within " + timeoutMs
                + " ms (last error: " + last.getMessage() + ")", last);
    }

    /**
     * @param permission the ACL that lets this principal do {@code what} ("DESCRIBE on the cluster"),
     *                   or {@link #NO_ACL_NEEDED}
     */
    private <T> T await(KafkaFuture<T> future, String what, String permission) {
        try {
            return future.get();
        } catch (ExecutionException e) {
            throw translate(e, what, permission);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while trying to " + what, e);
        }
    }

    private RuntimeException translate(ExecutionException e, String what, String permission) {
        Throwable cause = e.getCause();
        if (cause instanceof TimeoutException) {
            return new UserInputException("could not " + what + ": no answer from --bootstrap-server "
                    + bootstrapServers + " within " + timeoutMs + " ms (is it reachable, and is the listener's"
                    + " security.protocol right in --command-config?)", cause);
        }
        if (cause instanceof AuthorizationException) {
            // Kafka's own text is useless here: for requests a broker forwards to the controller it
            // is a dump of the request ("Request Request(processor=1, ...) needs DESCRIBE permission").
            return new UserInputException("not authorized to " + what + ": " + (permission == null
                    ? "grant this principal the ACLs listed in README Permissions"
                    : "grant " + permission + " to this principal (see README Permissions)"), cause);
        }
        if (cause instanceof RuntimeException runtime) {
            return runtime;
        }
        return new IllegalStateException("could not " + what + ": " + cause, cause);
    }

    @Override
    public void close() {
        if (connections != null) {
            connections.close();
        }
        admin.close(java.time.Duration.ofSeconds(5));
    }
}
