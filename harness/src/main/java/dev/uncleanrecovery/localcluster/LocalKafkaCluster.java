// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.TopicPartition;

/**
 * A real Kafka KRaft cluster (4.4.0, or any version from 3.7.2 the build resolved) on this machine: a dedicated
 * controller (or a quorum of three) and N brokers, each a separate {@code kafka.Kafka} JVM with a small heap,
 * listening on 127.0.0.1 only, each in its own directory, or each a host of its own ({@link NodeNetwork#HOSTS}).
 * Made to be broken: brokers can be killed ({@link StopMode#ABRUPT}), stopped cleanly or frozen, restarted on the same
 * port with the same data, and, as hosts, cut off from each other ({@link #network()}).
 *
 * <p>This type holds what most tests touch: start and close, the brokers' lifecycle, and clients. The rest is
 * grouped by what it is about: {@link #metadata()} (partitions and fencing, now or once they hold), {@link #disk()}
 * (faults on a stopped broker's disk), {@link #controllers()}, {@link #nodes()} (processes, directories, logs),
 * {@link #access()} (SASL users, ACLs, TLS) and {@link #network()} (hosts and the faults between them).
 * {@link ClusterBuilder} configures it.
 *
 * <p>Every JVM it starts is killed by PID on {@link #close()}, and a watchdog kills it if this JVM dies first, even by
 * {@code kill -9}.
 *
 * <pre>{@code
 * try (LocalKafkaCluster cluster = LocalKafkaCluster.builder().brokers(3).build().start()) {
 *     cluster.stopBroker(2, StopMode.ABRUPT);
 *     cluster.metadata().awaitBrokerFenced(2);
 * }
 * }</pre>
 */
public final class LocalKafkaCluster implements AutoCloseable {

    private final ClusterLayout layout;
    private final NodeLifecycle lifecycle;
    private final ClusterMetadata metadata;
    private final DiskFaults disk;
    private final ControllerQuorum controllers;
    private final ClusterNodes nodes;
    private final ClusterAccess access;
    private final ClusterNetwork network;
    /** The harness's own client, for polling and ACLs; made on first use, closed with the cluster. */
    private Admin harnessAdmin;

    LocalKafkaCluster(ClusterLayout layout) {
        this.layout = layout;
        this.lifecycle = new NodeLifecycle(layout);
        this.access = new ClusterAccess(layout, lifecycle::clusterId, this::harnessAdmin);
        this.metadata = new ClusterMetadata(layout, this::harnessAdmin, this::createAdmin);
        this.disk = new DiskFaults(layout, lifecycle);
        this.controllers = new ControllerQuorum(layout, lifecycle, this::harnessAdmin);
        this.nodes = new ClusterNodes(layout, lifecycle);
        this.network = new ClusterNetwork(layout);
    }

    public static ClusterBuilder builder() {
        return new ClusterBuilder();
    }

    /**
     * Formats every node's storage, starts the controller, then the brokers in parallel, and returns
     * once every broker is unfenced. On failure every started JVM is killed, the directory is kept
     * for its logs, and the exception names the node and quotes the end of its log.
     */
    public LocalKafkaCluster start() {
        lifecycle.start(() -> {
            for (int brokerId : layout.brokers.keySet()) {
                metadata.awaitBrokerUnfenced(brokerId, layout.startupTimeout);
            }
        });
        return this;
    }

    /** Kills every JVM this cluster started (SIGKILL, by PID) and deletes its directory if it made it. */
    @Override
    public void close() {
        lifecycle.close(() -> {
            if (harnessAdmin != null) {
                harnessAdmin.close(Duration.ofSeconds(2));
            }
        });
    }

    // ---------------------------------------------------------------- what it is and how to reach it

    public String clusterId() {
        return lifecycle.clusterId();
    }

    /** The Kafka version the nodes run. */
    public String kafkaVersion() {
        return layout.kafkaVersion;
    }

    /** KRaft, or ZooKeeper on a 3.x cluster built so. */
    public MetadataMode metadataMode() {
        return layout.metadataMode;
    }

    /** {@code host:port} of every broker, running or not: {@code 127.0.0.1:p1,...} on loopback. */
    public String bootstrapServers() {
        return layout.bootstrapServers();
    }

    /**
     * The minimal client configuration for this cluster: PLAINTEXT on loopback, or, on a secured cluster, SASL/PLAIN
     * as the super user {@value ClusterAccess#ADMIN_USER} (over TLS, trusting the cluster's CA, on a TLS cluster).
     * {@link ClusterAccess#clientProperties(String)} logs in as another user.
     */
    public Map<String, Object> clientProperties() {
        return access.clientProperties();
    }

    /** A new Admin client on this cluster (as the super user on a secured cluster); the caller closes it. */
    public Admin createAdmin() {
        Map<String, Object> config = new HashMap<>(clientProperties());
        config.put(AdminClientConfig.CLIENT_ID_CONFIG, "local-cluster-test");
        return Admin.create(config);
    }

    /**
     * Creates a topic of one partition on {@code replicas}, in that order, with {@code configs}; returns once its
     * first replica leads with all of them in the ISR.
     */
    public void createTopic(String topic, List<Integer> replicas, Map<String, String> configs) {
        try (Admin admin = createAdmin()) {
            admin.createTopics(List.of(new NewTopic(topic, Map.of(0, replicas)).configs(configs))).all().get();
        } catch (ExecutionException e) {
            throw new LocalClusterException("could not create topic " + topic + ": " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LocalClusterException("interrupted", e);
        }
        metadata.awaitPartition(new TopicPartition(topic, 0), v -> v.leader() == replicas.get(0)
                && v.isr().size() == replicas.size(), Duration.ofSeconds(60));
    }

    /** {@link #createTopic(String, List, Map)} with that min.insync.replicas and unclean election off. */
    public void createTopic(String topic, List<Integer> replicas, int minInsyncReplicas) {
        createTopic(topic, replicas, Map.of("min.insync.replicas", String.valueOf(minInsyncReplicas),
                "unclean.leader.election.enable", "false"));
    }

    // ---------------------------------------------------------------- brokers

    public List<Integer> brokerIds() {
        return List.copyOf(layout.brokers.keySet());
    }

    /** The broker's {@code host:port}. */
    public String brokerAddress(int brokerId) {
        return layout.broker(brokerId).address();
    }

    /**
     * Stops the broker and returns once its JVM has exited. The controller notices later: wait with
     * {@link ClusterMetadata#awaitBrokerFenced} (or for the ISR change) before the next step of a scenario.
     */
    public void stopBroker(int brokerId, StopMode mode) {
        lifecycle.stop(layout.broker(brokerId), mode);
    }

    /** kill -9 of a broker, returning once the controller has fenced it (its session timed out). */
    public void killBroker(int brokerId) {
        stopBroker(brokerId, StopMode.ABRUPT);
        metadata.awaitBrokerFenced(brokerId);
    }

    /** Restarts a stopped broker with its port and data; returns once it is unfenced. */
    public void startBroker(int brokerId) {
        lifecycle.restart(layout.broker(brokerId));
        if (layout.controllers.values().stream().anyMatch(KafkaNode::isRunning)) {
            metadata.awaitBrokerUnfenced(brokerId, layout.startupTimeout);
        }
    }

    /**
     * Restarts stopped brokers all at once, with their ports and data; returns once every one is unfenced. Their
     * JVMs start in parallel, which on a small machine takes little longer than one.
     */
    public void startBrokers(Collection<Integer> brokerIds) {
        lifecycle.restartAll(brokerIds.stream().map(layout::broker).toList());
        if (layout.controllers.values().stream().anyMatch(KafkaNode::isRunning)) {
            for (int brokerId : brokerIds) {
                metadata.awaitBrokerUnfenced(brokerId, layout.startupTimeout);
            }
        }
    }

    /**
     * Freezes the broker's JVM with SIGSTOP: its sockets still accept connections but nothing
     * answers, like a broker stuck in a long GC pause or on a dead disk. After
     * {@code broker.session.timeout.ms} (6 s) the controller fences it. {@link #resumeBroker} thaws it.
     * Returns once every thread of the JVM is stopped, not merely when the signal is queued.
     */
    public void pauseBroker(int brokerId) {
        KafkaNode broker = layout.broker(brokerId);
        synchronized (lifecycle) {
            if (!broker.isRunning()) {
                throw new IllegalStateException(broker.name() + " is not running; start it before pausing it");
            }
            lifecycle.freeze(broker);
        }
    }

    /** Thaws a broker frozen by {@link #pauseBroker} (SIGCONT). */
    public void resumeBroker(int brokerId) {
        KafkaNode broker = layout.broker(brokerId);
        synchronized (lifecycle) {
            if (!broker.isPaused()) {
                throw new IllegalStateException(broker.name() + " is not paused");
            }
            lifecycle.thaw(broker);
        }
    }

    public boolean isRunning(int nodeId) {
        return layout.node(nodeId).isRunning();
    }

    /** Whether the broker is frozen by {@link #pauseBroker}. */
    public boolean isPaused(int brokerId) {
        return layout.broker(brokerId).isPaused();
    }

    /** The node's {@code log.dirs}: replica logs, {@code meta.properties}, the clean-shutdown marker. */
    public Path logDir(int nodeId) {
        return layout.node(nodeId).dataDirectory();
    }

    // ---------------------------------------------------------------- the rest, by what it is about

    /** Partitions and broker registrations as the cluster reports them, now or once they hold. */
    public ClusterMetadata metadata() {
        return metadata;
    }

    /** Faults on a stopped broker's disk: a replica's log cut, the clean-shutdown marker, a refused disk. */
    public DiskFaults disk() {
        return disk;
    }

    /** The KRaft controllers: their ids, the active one, stop, start and pause. */
    public ControllerQuorum controllers() {
        return controllers;
    }

    /** Every node's process, directory and log. */
    public ClusterNodes nodes() {
        return nodes;
    }

    /**
     * The hosts and the faults between them: partitions, one-way cuts, lossy links and their healing, on a cluster
     * built with {@link NodeNetwork#HOSTS}; where the clients and the tool run.
     */
    public ClusterNetwork network() {
        return network;
    }

    /** SASL users, ACLs, {@code --command-config} files and TLS listeners of a secured cluster. */
    public ClusterAccess access() {
        return access;
    }

    private Admin harnessAdmin() {
        synchronized (lifecycle) {
            if (harnessAdmin == null) {
                Map<String, Object> config = new HashMap<>(clientProperties());
                config.put(AdminClientConfig.CLIENT_ID_CONFIG, "local-cluster-harness");
                int callTimeout = (int) ClusterMetadata.ADMIN_CALL_TIMEOUT.toMillis();
                config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, callTimeout);
                config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, callTimeout * 2);
                // Brokers come and go on purpose; reconnect quickly once one is back.
                config.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 1000);
                config.put(AdminClientConfig.RETRY_BACKOFF_MAX_MS_CONFIG, 1000);
                harnessAdmin = Admin.create(config);
            }
            return harnessAdmin;
        }
    }
}
