// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * What a built cluster is made of, fixed before any node starts: its nodes with their ports, directories and
 * configurations, its users and certificates, and the settings its nodes run with.
 */
final class ClusterLayout {

    static final int BROKER_PORT = 9092;
    static final int CONTROLLER_PORT = 9093;

    final Path baseDirectory;
    final boolean ownsBaseDirectory;
    /** Null when the nodes run an image that brings its own Kafka ({@code -Dkafka.test.image}). */
    final KafkaServerClasspath classpath;
    final ClusterBackend backend;
    final NodeNetwork network;
    /** The hosts' namespaces on {@link NodeNetwork#HOSTS}, made with the layout; null on loopback. */
    final NetworkNamespaces networkNamespaces;
    final List<Path> readOnlyMounts;
    /** The first controller: its log is the fencing witness when no broker runs. */
    final KafkaNode controller;
    /** Every controller of the quorum, the first one included (ids controllerId, controllerId + 1, ...). */
    final SortedMap<Integer, KafkaNode> controllers = new TreeMap<>();
    final SortedMap<Integer, KafkaNode> brokers = new TreeMap<>();
    final Duration startupTimeout;
    final Duration cleanStopTimeout;
    final ClassDataSharing classDataSharing;
    final ClusterSecurity security;
    /** Null unless the security has SASL users. */
    final SaslPlainUsers saslUsers;
    /** Null unless the security uses TLS. */
    final ClusterCertificates certificates;
    /** Every broker's port of each TLS listener; empty unless the security uses TLS. */
    final Map<Integer, Map<TlsListener, Integer>> tlsPorts = new TreeMap<>();
    final List<String> formatFeatures;
    /** The disks of the brokers given a failable second log directory, by broker id. */
    final SortedMap<Integer, LoopDisk> loopDisks = new TreeMap<>();
    final String kafkaVersion;
    final MetadataMode metadataMode;

    ClusterLayout(ClusterBuilder builder, KafkaServerClasspath classpath, Path baseDirectory,
                  boolean ownsBaseDirectory) {
        this.classpath = classpath;
        this.baseDirectory = baseDirectory;
        this.ownsBaseDirectory = ownsBaseDirectory;
        this.backend = builder.backend;
        this.startupTimeout = builder.startupTimeout;
        this.cleanStopTimeout = builder.cleanStopTimeout;
        // an installed Kafka's directory is the operator's: no archive is written beside its libs/
        this.classDataSharing = builder.classDataSharing && builder.kafkaHome == null
                && backend == ClusterBackend.PROCESSES
                ? ClassDataSharing.forClasspath(classpath) : ClassDataSharing.disabled();
        this.security = builder.security;
        this.formatFeatures = List.copyOf(builder.formatFeatures);
        this.kafkaVersion = builder.kafkaVersion;
        this.metadataMode = builder.metadataMode;
        boolean zookeeper = metadataMode == MetadataMode.ZOOKEEPER;
        this.saslUsers = security.hasSaslUsers() ? new SaslPlainUsers(builder.saslUsers,
                security.usesTls() ? TlsListener.SASL_SSL.securityProtocol() : "SASL_PLAINTEXT") : null;
        this.certificates = security.usesTls() ? new ClusterCertificates(baseDirectory.resolve("tls")) : null;

        this.network = builder.network;
        Map<Integer, String> nodeNames = new LinkedHashMap<>();
        IntStream.range(0, builder.controllers).map(i -> builder.controllerId + i)
                .forEach(id -> nodeNames.put(id, KafkaNode.nameOf(NodeRole.CONTROLLER, id)));
        IntStream.rangeClosed(1, builder.brokers)
                .forEach(id -> nodeNames.put(id, KafkaNode.nameOf(NodeRole.BROKER, id)));
        this.networkNamespaces = network == NodeNetwork.HOSTS ? NetworkNamespaces.create(nodeNames) : null;
        Map<Integer, String> hosts = new HashMap<>();
        nodeNames.forEach((id, name) -> hosts.put(id, networkNamespaces == null ? LoopbackPorts.HOST
                : networkNamespaces.host(name).address()));

        // A TLS broker's first port is its SASL_SSL listener's, the others follow after every node's first. A node
        // with a host of its own listens on Kafka's usual ports.
        int extraListeners = security.usesTls() ? TlsListener.values().length - 1 : 0;
        int portCount = builder.controllers + builder.brokers * (1 + extraListeners);
        List<Integer> ports = networkNamespaces == null ? LoopbackPorts.pickFree(portCount)
                : IntStream.range(0, portCount).mapToObj(i -> i < builder.controllers ? CONTROLLER_PORT : BROKER_PORT)
                        .toList();
        List<Integer> controllerPorts = ports.subList(0, builder.controllers);
        String quorumVoters = IntStream.range(0, builder.controllers)
                .mapToObj(i -> (builder.controllerId + i) + "@" + hosts.get(builder.controllerId + i) + ":"
                        + controllerPorts.get(i))
                .collect(Collectors.joining(","));
        for (int i = 0; i < builder.controllers; i++) {
            int id = builder.controllerId + i;
            int port = controllerPorts.get(i);
            Path controllerDirectory = baseDirectory.resolve((zookeeper ? "zookeeper-" : "controller-") + id);
            Path controllerData = controllerDirectory.resolve(KafkaNode.DATA);
            Map<String, String> defaults = zookeeper
                    ? NodeDefaults.zookeeperServer(hosts.get(id), port, controllerData)
                    : NodeDefaults.secured(NodeDefaults.controller(id, hosts.get(id), port, quorumVoters,
                            builder.brokers, controllerData), saslUsers == null ? Map.of() : saslUsers.controllerConfig());
            controllers.put(id, new KafkaNode(id, NodeRole.CONTROLLER,
                    zookeeper ? NodeProgram.ZOOKEEPER_SERVER : NodeProgram.KRAFT_NODE, hosts.get(id), port,
                    controllerDirectory, builder.propertiesOf(id, NodeRole.CONTROLLER, defaults),
                    builder.jvmArgs.get(NodeRole.CONTROLLER)));
        }
        this.controller = controllers.get(builder.controllerId);
        this.readOnlyMounts = filesOutsideDirectory(builder);
        for (int brokerId = 1; brokerId <= builder.brokers; brokerId++) {
            int port = ports.get(builder.controllers + brokerId - 1);
            Path brokerDirectory = baseDirectory.resolve("broker-" + brokerId);
            String host = hosts.get(brokerId);
            Map<String, String> brokerSecurity = saslUsers == null ? Map.of() : saslUsers.brokerConfig(host, port);
            if (certificates != null) {
                Map<TlsListener, Integer> listenerPorts = new EnumMap<>(TlsListener.class);
                listenerPorts.put(TlsListener.SASL_SSL, port);
                for (int i = 1; i <= extraListeners; i++) {
                    listenerPorts.put(TlsListener.values()[i], ports.get(builder.controllers + builder.brokers
                            + (brokerId - 1) * extraListeners + i - 1));
                }
                tlsPorts.put(brokerId, listenerPorts);
                brokerSecurity = TlsListener.brokerConfig(brokerSecurity, listenerPorts, certificates);
            }
            Path brokerData = brokerDirectory.resolve(KafkaNode.DATA);
            Map<String, String> defaults = zookeeper
                    ? NodeDefaults.zookeeperBroker(brokerId, host, port, controller.address(), builder.brokers, brokerData)
                    : NodeDefaults.broker(brokerId, host, port, quorumVoters, builder.brokers, brokerData);
            Map<String, String> properties = builder.propertiesOf(brokerId, NodeRole.BROKER,
                    NodeDefaults.secured(defaults, brokerSecurity));
            if (builder.brokersWithFailableLogDir.contains(brokerId)) {
                LoopDisk disk = new LoopDisk(brokerDirectory);
                loopDisks.put(brokerId, disk);
                // metadata.log.dir defaults to the first of log.dirs: the failable one comes second, so that the
                // broker keeps running when it fails (Kafka halts a broker that loses its metadata log directory)
                properties.put("log.dirs", brokerData + "," + disk.logDir());
            }
            brokers.put(brokerId, new KafkaNode(brokerId, NodeRole.BROKER,
                    zookeeper ? NodeProgram.ZOOKEEPER_BROKER : NodeProgram.KRAFT_NODE, host, port, brokerDirectory,
                    properties,
                    builder.brokersWithoutAgents.contains(brokerId)
                            ? builder.jvmArgs.get(NodeRole.BROKER).stream().filter(a -> !a.startsWith("-javaagent:")).toList()
                            : builder.jvmArgs.get(NodeRole.BROKER)));
        }
    }

    // Host files the nodes' command lines and configurations name outside the cluster's directory.
    private static List<Path> filesOutsideDirectory(ClusterBuilder builder) {
        List<Path> files = new ArrayList<>();
        builder.jvmArgs.values().forEach(args -> args.stream().filter(arg -> arg.startsWith("-javaagent:"))
                .map(arg -> Path.of(arg.substring("-javaagent:".length()).split("=", 2)[0]))
                .forEach(files::add));
        Stream.of(builder.brokerProperties, builder.controllerProperties)
                .map(properties -> properties.get("remote.log.storage.manager.class.path"))
                .filter(Objects::nonNull)
                .forEach(location -> files.add(Path.of(location)));
        return files;
    }

    KafkaNode broker(int brokerId) {
        KafkaNode broker = brokers.get(brokerId);
        if (broker == null) {
            throw new IllegalArgumentException("no broker " + brokerId + " in this cluster; brokers are " + brokers.keySet());
        }
        return broker;
    }

    KafkaNode node(int nodeId) {
        return controllers.containsKey(nodeId) ? controllers.get(nodeId) : broker(nodeId);
    }

    KafkaNode controllerNode(int controllerId) {
        KafkaNode node = controllers.get(controllerId);
        if (node == null) {
            throw new IllegalArgumentException("no controller " + controllerId + "; controllers are " + controllers.keySet());
        }
        return node;
    }

    /** {@code command} as the node's host runs it: in its namespace on {@link NodeNetwork#HOSTS}. */
    List<String> commandOnHostOf(KafkaNode node, List<String> command) {
        return networkNamespaces == null ? command
                : networkNamespaces.commandOn(networkNamespaces.host(node.name()), command);
    }

    /** The controllers first, then the brokers. */
    Stream<KafkaNode> allNodes() {
        return Stream.concat(controllers.values().stream(), brokers.values().stream());
    }

    List<Integer> runningNodeIds() {
        return allNodes().filter(KafkaNode::isRunning).map(KafkaNode::id).toList();
    }

    /** {@code host:port} of every broker, running or not: {@code 127.0.0.1:p1,...} on loopback. */
    String bootstrapServers() {
        return brokers.values().stream().map(KafkaNode::address).collect(Collectors.joining(","));
    }
}
