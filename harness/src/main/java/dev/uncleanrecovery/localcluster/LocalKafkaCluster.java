// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Kafka KRaft cluster (4.4.0, or any version from 3.7.2 the build resolved) on this machine: a dedicated controller (or a quorum of three) and N brokers, each a
 * separate {@code kafka.Kafka} JVM with a small heap, listening on 127.0.0.1 only, each in its own
 * directory. Made to be broken: nodes can be killed ({@link StopMode#ABRUPT}) or stopped cleanly,
 * restarted on the same port with the same data, and a stopped broker's replica log can be cut on
 * disk to simulate writes that never reached it. With {@link ClusterSecurity#SASL_PLAIN_WITH_ACLS}
 * clients must log in ({@link #clientProperties(String)}, {@link #writeCommandConfig(String)}) and
 * may do only what {@link #allow} granted them; {@link ClusterSecurity#SASL_SSL_WITH_ACLS} does the same over
 * TLS, with certificates it makes at start ({@link #certificates()}) and more listeners for tests of TLS itself
 * ({@link #bootstrapServers(TlsListener)}).
 *
 * <p>Every JVM it starts is killed by PID on {@link #close()}, and a watchdog kills it if this JVM
 * dies first, even by {@code kill -9}.
 *
 * <pre>{@code
 * try (LocalKafkaCluster cluster = LocalKafkaCluster.builder().brokers(3).build().start()) {
 *     cluster.stopBroker(2, StopMode.ABRUPT);
 *     cluster.awaitBrokerFenced(2);
 * }
 * }</pre>
 */
public final class LocalKafkaCluster implements AutoCloseable {

    public static final int DEFAULT_CONTROLLER_ID = 1000;
    public static final int DEFAULT_BROKERS = 3;
    /** The super user of a secured cluster; the harness's own clients log in as it. */
    public static final String ADMIN_USER = "admin";
    /** A user of a secured cluster meant to receive the tool's ACLs. */
    public static final String RECOVERY_USER = "recovery";
    /** A user of a secured cluster with no ACLs at all. */
    public static final String NOBODY_USER = "nobody";

    /** Small heaps, serial GC and C1 only: several nodes and the tests beside them fit on a 2-core machine. */
    static final List<String> SMALL_JVM_FLAGS = List.of(
            "-Xmx128m", "-Xms32m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
            "-XX:ReservedCodeCacheSize=64m", "-XX:MaxMetaspaceSize=128m", "-Djava.awt.headless=true");

    private static final Logger LOG = LoggerFactory.getLogger(LocalKafkaCluster.class);
    // KafkaRaftServer logs this once the node serves requests; a broker only after it is unfenced.
    private static final String SERVER_STARTED = "Kafka Server started";
    private static final String CLEAN_SHUTDOWN_MARKER = ".kafka_cleanshutdown";
    private static final Pattern SEGMENT_FILE = Pattern.compile("\\d{20}\\.log");
    private static final Duration POLL_INTERVAL = Duration.ofMillis(200);
    private static final Duration SIGNAL_TAKES_EFFECT = Duration.ofSeconds(10);
    private static final Duration ADMIN_CALL_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration DEFAULT_AWAIT_TIMEOUT = Duration.ofSeconds(60);
    private static final int LOG_TAIL_LINES = 40;

    private final Path baseDirectory;
    private final boolean ownsBaseDirectory;
    /** Null when the nodes run an image that brings its own Kafka ({@code -Dkafka.test.image}). */
    private final KafkaServerClasspath classpath;
    private final ClusterBackend backend;
    private final List<Path> readOnlyMounts;
    /** The first controller: its log is the fencing witness when no broker runs. */
    private final KafkaNode controller;
    /** Every controller of the quorum, the first one included (ids controllerId, controllerId + 1, ...). */
    private final SortedMap<Integer, KafkaNode> controllers;
    private final SortedMap<Integer, KafkaNode> brokers;
    private final Duration startupTimeout;
    private final Duration cleanStopTimeout;
    private final ClassDataSharing classDataSharing;
    private final ClusterSecurity security;
    private final SaslPlainUsers saslUsers;
    /** Null unless the security uses TLS. */
    private final ClusterCertificates certificates;
    /** Every broker's port of each TLS listener; empty unless the security uses TLS. */
    private final Map<Integer, Map<TlsListener, Integer>> tlsPorts = new TreeMap<>();
    private final List<String> formatFeatures;
    private final String kafkaVersion;

    private NodeRuntime runtime;
    private String clusterId;
    private Admin admin;
    private boolean started;
    private boolean closed;
    private boolean keepBaseDirectory;

    private LocalKafkaCluster(Builder builder, KafkaServerClasspath classpath, Path baseDirectory, boolean ownsBaseDirectory) {
        this.classpath = classpath;
        this.baseDirectory = baseDirectory;
        this.ownsBaseDirectory = ownsBaseDirectory;
        this.backend = builder.backend;
        this.startupTimeout = builder.startupTimeout;
        this.cleanStopTimeout = builder.cleanStopTimeout;
        // an installed Kafka's directory is the operator's: no archive is written beside its libs/
        this.classDataSharing = builder.classDataSharing && builder.kafkaHome == null && backend == ClusterBackend.PROCESSES
                ? ClassDataSharing.forClasspath(classpath) : ClassDataSharing.disabled();
        this.security = builder.security;
        this.formatFeatures = List.copyOf(builder.formatFeatures);
        this.kafkaVersion = builder.kafkaVersion;
        this.saslUsers = security.hasSaslUsers() ? new SaslPlainUsers(builder.saslUsers,
                security.usesTls() ? TlsListener.SASL_SSL.securityProtocol() : "SASL_PLAINTEXT") : null;
        this.certificates = security.usesTls() ? new ClusterCertificates(baseDirectory.resolve("tls")) : null;

        // A TLS broker's first port is its SASL_SSL listener's, the others follow after every node's first
        int extraListeners = security.usesTls() ? TlsListener.values().length - 1 : 0;
        List<Integer> ports = LoopbackPorts.pickFree(builder.controllers + builder.brokers * (1 + extraListeners));
        List<Integer> controllerPorts = ports.subList(0, builder.controllers);
        String quorumVoters = java.util.stream.IntStream.range(0, builder.controllers)
                .mapToObj(i -> (builder.controllerId + i) + "@" + LoopbackPorts.HOST + ":" + controllerPorts.get(i))
                .collect(Collectors.joining(","));
        this.controllers = new TreeMap<>();
        for (int i = 0; i < builder.controllers; i++) {
            int id = builder.controllerId + i;
            int port = controllerPorts.get(i);
            Path controllerDirectory = baseDirectory.resolve("controller-" + id);
            controllers.put(id, new KafkaNode(id, NodeRole.CONTROLLER, port, controllerDirectory,
                    builder.propertiesOf(id, NodeRole.CONTROLLER, secured(controllerDefaults(id, port, quorumVoters,
                            builder.brokers, controllerDirectory.resolve(KafkaNode.DATA)),
                            saslUsers == null ? Map.of() : saslUsers.controllerConfig())),
                    builder.jvmArgs.get(NodeRole.CONTROLLER)));
        }
        this.controller = controllers.get(builder.controllerId);
        this.readOnlyMounts = filesOutsideDirectory(builder);
        this.brokers = new TreeMap<>();
        for (int brokerId = 1; brokerId <= builder.brokers; brokerId++) {
            int port = ports.get(builder.controllers + brokerId - 1);
            Path brokerDirectory = baseDirectory.resolve("broker-" + brokerId);
            Map<String, String> brokerSecurity = saslUsers == null ? Map.of() : saslUsers.brokerConfig(port);
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
            brokers.put(brokerId, new KafkaNode(brokerId, NodeRole.BROKER, port, brokerDirectory,
                    builder.propertiesOf(brokerId, NodeRole.BROKER, secured(brokerDefaults(brokerId, port, quorumVoters,
                            builder.brokers, brokerDirectory.resolve(KafkaNode.DATA)), brokerSecurity)),
                    builder.brokersWithoutAgents.contains(brokerId)
                            ? builder.jvmArgs.get(NodeRole.BROKER).stream().filter(a -> !a.startsWith("-javaagent:")).toList()
                            : builder.jvmArgs.get(NodeRole.BROKER)));
        }
    }

    // Host files the nodes' command lines and configurations name outside the cluster's directory.
    private static List<Path> filesOutsideDirectory(Builder builder) {
        List<Path> files = new ArrayList<>();
        builder.jvmArgs.values().forEach(args -> args.stream().filter(arg -> arg.startsWith("-javaagent:"))
                .map(arg -> Path.of(arg.substring("-javaagent:".length()).split("=", 2)[0]))
                .forEach(files::add));
        Stream.of(builder.brokerProperties, builder.controllerProperties)
                .map(properties -> properties.get("remote.log.storage.manager.class.path"))
                .filter(java.util.Objects::nonNull)
                .forEach(location -> files.add(Path.of(location)));
        return files;
    }

    public static Builder builder() {
        return new Builder();
    }

    // ---------------------------------------------------------------- lifecycle

    /**
     * Formats every node's storage, starts the controller, then the brokers in parallel, and returns
     * once every broker is unfenced. On failure every started JVM is killed, the directory is kept
     * for its logs, and the exception names the node and quotes the end of its log.
     */
    public synchronized LocalKafkaCluster start() {
        if (started || closed) {
            throw new IllegalStateException("this local cluster was already started; build a new one");
        }
        started = true;
        long began = System.nanoTime();
        try {
            runtime = backend == ClusterBackend.CONTAINERS
                    ? ContainerRuntime.open(baseDirectory, kafkaVersion, classpath, readOnlyMounts)
                    : new ProcessRuntime(classpath);
            Path log4jConfig = writeNodeLoggingConfig();
            if (certificates != null) {
                certificates.create();
            }
            allNodes().forEach(KafkaNode::writeConfiguration);
            clusterId = Uuid.randomUuid().toString();
            formatStorage(log4jConfig);
            long formatted = System.nanoTime();
            // A quorum of several voters elects its leader only once a majority runs: start them all, then wait.
            controllers.values().forEach(node -> launch(node, log4jConfig));
            awaitServerStarted(controllers.values());
            long controllerUp = System.nanoTime();
            brokers.values().forEach(broker -> launch(broker, log4jConfig));
            awaitServerStarted(brokers.values());
            for (int brokerId : brokers.keySet()) {
                awaitBrokerUnfenced(brokerId, startupTimeout);
            }
            classDataSharing.startDumpIfMissing(allNodes().map(KafkaNode::directory).toList(), runtime.javaBinary(),
                    runtime.classpath(), baseDirectory);
            LOG.info("local Kafka cluster {} up in {} ms (format {} ms, controller {} ms, {} brokers {} ms) in {}",
                    clusterId, millisSince(began), (formatted - began) / 1_000_000,
                    (controllerUp - formatted) / 1_000_000, brokers.size(), millisSince(controllerUp), baseDirectory);
            return this;
        } catch (RuntimeException startFailure) {
            keepBaseDirectory = true;
            killAllNodes();
            throw startFailure instanceof LocalClusterException
                    ? new LocalClusterException(startFailure.getMessage() + " (the cluster's directory "
                            + baseDirectory + " is kept)", startFailure)
                    : new LocalClusterException("the local Kafka cluster did not start: " + startFailure
                            + "; node logs are in " + baseDirectory, startFailure);
        }
    }

    /** Kills every JVM this cluster started (SIGKILL, by PID) and deletes its directory if it made it. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (admin != null) {
            admin.close(Duration.ofSeconds(2));
        }
        killAllNodes();
        if (runtime != null) {
            runtime.close();
        }
        classDataSharing.finishDump(baseDirectory);
        if (ownsBaseDirectory && !keepBaseDirectory) {
            deleteRecursively(baseDirectory);
        }
    }

    /** Keeps the cluster's directory after {@link #close()} even if the cluster created it. */
    public synchronized void keepDirectoryOnClose() {
        keepBaseDirectory = true;
    }

    // ---------------------------------------------------------------- topology

    public String clusterId() {
        return clusterId;
    }

    /** {@code 127.0.0.1:p1,127.0.0.1:p2,...} of every broker, running or not. */
    public String bootstrapServers() {
        return brokers.values().stream().map(KafkaNode::address).collect(Collectors.joining(","));
    }

    public ClusterSecurity security() {
        return security;
    }

    /**
     * {@code 127.0.0.1:p1,127.0.0.1:p2,...}: every broker's address on one listener of a TLS cluster
     * ({@link TlsListener#SASL_SSL} is {@link #bootstrapServers()}).
     */
    public String bootstrapServers(TlsListener listener) {
        return brokers.keySet().stream().map(id -> listenerAddress(id, listener)).collect(Collectors.joining(","));
    }

    /** The broker's {@code host:port} on one listener of a TLS cluster. */
    public String listenerAddress(int brokerId, TlsListener listener) {
        requireTls("name a TLS listener");
        broker(brokerId);
        return LoopbackPorts.HOST + ":" + tlsPorts.get(brokerId).get(listener);
    }

    /** The CA, keystores and truststores of a TLS cluster (made when it starts). */
    public ClusterCertificates certificates() {
        return requireTls("give its certificates");
    }

    /** What runs the nodes: processes of this machine or containers. */
    public ClusterBackend backend() {
        return backend;
    }

    /** The image the nodes' containers run, once started on {@link ClusterBackend#CONTAINERS}; empty for processes. */
    public Optional<String> containerImage() {
        return runtime instanceof ContainerRuntime containers ? Optional.of(containers.image()) : Optional.empty();
    }

    /** The Kafka version the nodes run. */
    public String kafkaVersion() {
        return kafkaVersion;
    }

    /**
     * The minimal client configuration for this cluster: PLAINTEXT on loopback, or, on a secured cluster, SASL/PLAIN
     * as the super user {@value #ADMIN_USER} (over TLS, trusting the cluster's CA, on a TLS cluster).
     */
    public Map<String, Object> clientProperties() {
        return saslUsers == null
                ? Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers())
                : clientProperties(ADMIN_USER);
    }

    /** The client configuration of a secured cluster logged in as {@code user} with its password. */
    public Map<String, Object> clientProperties(String user) {
        return clientProperties(user, saslPassword(user));
    }

    /** Like {@link #clientProperties(String)} with any password, right or wrong. */
    public Map<String, Object> clientProperties(String user, String password) {
        Map<String, Object> config = new HashMap<>(loginProperties(user, password));
        config.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        return Map.copyOf(config);
    }

    /** security.protocol, sasl.* and, on a TLS cluster, ssl.truststore.*: what a --command-config holds. */
    private Map<String, Object> loginProperties(String user, String password) {
        Map<String, Object> config = new HashMap<>(requireSasl("log in as " + user).clientProperties(user, password));
        if (certificates != null) {
            config.putAll(certificates.clientTruststoreProperties());
        }
        return config;
    }

    /** The SASL users of a secured cluster, {@value #ADMIN_USER} first. */
    public List<String> saslUsers() {
        return saslUsers == null ? List.of() : saslUsers.users();
    }

    /** The user's password on a secured cluster (always {@code <user>-secret}). */
    public String saslPassword(String user) {
        return requireSasl("give a password of " + user).password(user);
    }

    /**
     * Writes a {@code --command-config} file that logs in as {@code user} (security.protocol,
     * sasl.mechanism, sasl.jaas.config and on a TLS cluster ssl.truststore.*; no bootstrap servers) into the
     * cluster's directory.
     */
    public Path writeCommandConfig(String user) {
        return writeCommandConfig(user, saslPassword(user), baseDirectory.resolve("command-config-" + user + ".properties"));
    }

    /** Writes a {@code --command-config} file for {@code user} with the given password (right or wrong) to {@code file}. */
    public Path writeCommandConfig(String user, String password, Path file) {
        java.util.Properties properties = new java.util.Properties();
        requireSasl("write a --command-config for " + user);
        loginProperties(user, password).forEach((key, value) -> properties.setProperty(key, String.valueOf(value)));
        try (var writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            properties.store(writer, "SASL/PLAIN login as " + user + " on the local cluster " + clusterId);
        } catch (IOException e) {
            throw new UncheckedIOException("could not write " + file, e);
        }
        return file;
    }

    /**
     * Grants {@code user} the operations on one resource (a literal name; the cluster is
     * {@code kafka-cluster}), as {@value #ADMIN_USER}. Returns once the controller has committed the
     * ACLs; brokers authorize with them a moment later, when they have replayed the records.
     */
    public void allow(String user, ResourceType resourceType, String resourceName, AclOperation... operations) {
        allow(user, resourceType, resourceName, PatternType.LITERAL, operations);
    }

    /** {@link #allow} on every resource whose name matches {@code resourceName} as {@code patternType} says. */
    public void allow(String user, ResourceType resourceType, String resourceName, PatternType patternType,
                      AclOperation... operations) {
        requireSasl("grant ACLs to " + user);
        List<AclBinding> acls = Arrays.stream(operations)
                .map(operation -> new AclBinding(new ResourcePattern(resourceType, resourceName, patternType),
                        new AccessControlEntry("User:" + user, "*", operation, AclPermissionType.ALLOW)))
                .toList();
        try {
            admin().createAcls(acls).all().get();
        } catch (ExecutionException e) {
            throw new LocalClusterException("could not grant " + Arrays.toString(operations) + " on " + resourceType
                    + " " + resourceName + " to " + user + ": " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LocalClusterException("interrupted while granting ACLs", e);
        }
    }

    /** A new Admin client on this cluster (as {@value #ADMIN_USER} on a secured cluster); the caller closes it. */
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
            admin.createTopics(List.of(new org.apache.kafka.clients.admin.NewTopic(topic, Map.of(0, replicas))
                    .configs(configs))).all().get();
        } catch (java.util.concurrent.ExecutionException e) {
            throw new LocalClusterException("could not create topic " + topic + ": " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LocalClusterException("interrupted", e);
        }
        awaitPartition(new TopicPartition(topic, 0), v -> v.leader() == replicas.get(0)
                && v.isr().size() == replicas.size(), Duration.ofSeconds(60));
    }

    /** {@link #createTopic(String, List, Map)} with that min.insync.replicas and unclean election off. */
    public void createTopic(String topic, List<Integer> replicas, int minInsyncReplicas) {
        createTopic(topic, replicas, Map.of("min.insync.replicas", String.valueOf(minInsyncReplicas),
                "unclean.leader.election.enable", "false"));
    }

    /** Where each open transaction on the partition starts, as its leader's producer state says (DescribeProducers). */
    public List<Long> openTransactionStarts(TopicPartition partition) {
        try (Admin admin = createAdmin()) {
            return admin.describeProducers(List.of(partition)).partitionResult(partition).get().activeProducers()
                    .stream().filter(p -> p.currentTransactionStartOffset().isPresent())
                    .map(p -> p.currentTransactionStartOffset().getAsLong()).toList();
        } catch (java.util.concurrent.ExecutionException e) {
            throw new LocalClusterException("could not describe the producers of " + partition + ": " + e.getCause(),
                    e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LocalClusterException("interrupted", e);
        }
    }

    /** kill -9 of a broker, returning once the controller has fenced it (its session timed out). */
    public void killBroker(int brokerId) {
        stopBroker(brokerId, StopMode.ABRUPT);
        awaitBrokerFenced(brokerId);
    }

    public List<Integer> brokerIds() {
        return List.copyOf(brokers.keySet());
    }

    public int controllerId() {
        return controller.id();
    }

    /** Every controller of the quorum, lowest id first. */
    public List<Integer> controllerIds() {
        return List.copyOf(controllers.keySet());
    }

    /** The quorum's leader, the active controller, as the brokers' metadata quorum description names it. */
    public int activeControllerId() {
        try {
            return admin().describeMetadataQuorum().quorumInfo().get(ADMIN_CALL_TIMEOUT.toMillis(),
                    java.util.concurrent.TimeUnit.MILLISECONDS).leaderId();
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new LocalClusterException("could not describe the metadata quorum: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LocalClusterException("interrupted while describing the metadata quorum", e);
        }
    }

    /** The controllers first, then the brokers. */
    public List<Integer> nodeIds() {
        return allNodes().map(KafkaNode::id).toList();
    }

    /** The broker's {@code host:port}. */
    public String brokerAddress(int brokerId) {
        return broker(brokerId).address();
    }

    public Path baseDirectory() {
        return baseDirectory;
    }

    /** The node's {@code log.dirs}: replica logs, {@code meta.properties}, the clean-shutdown marker. */
    public Path logDir(int nodeId) {
        return node(nodeId).dataDirectory();
    }

    /** Where the broker keeps its replica of {@code partition}: {@code <log.dirs>/<topic>-<partition>}. */
    public Path replicaDirectory(int brokerId, TopicPartition partition) {
        return logDir(brokerId).resolve(partition.topic() + "-" + partition.partition());
    }

    /** The node's own directory: {@code server.properties}, {@code node.log}, {@code format.log}, {@code data/}. */
    public Path nodeDirectory(int nodeId) {
        return node(nodeId).directory();
    }

    /** Everything the node printed (Kafka's log4j output, JVM errors), across all its starts. */
    public Path nodeLogFile(int nodeId) {
        return node(nodeId).log().file();
    }

    /** The last {@code lines} lines of the node's log. */
    public List<String> nodeLogTail(int nodeId, int lines) {
        return node(nodeId).log().tail(lines);
    }

    /** What the node logged since its latest start. */
    public String nodeLogSinceLastStart(int nodeId) {
        KafkaNode node = node(nodeId);
        return node.log().readSince(node.logLengthAtStart());
    }

    public boolean isRunning(int nodeId) {
        return node(nodeId).isRunning();
    }

    /** The PID of the node's {@code java} process, empty when it is not running. */
    public OptionalLong pid(int nodeId) {
        KafkaNode node = node(nodeId);
        return node.isRunning() ? OptionalLong.of(node.process().pid()) : OptionalLong.empty();
    }

    // ---------------------------------------------------------------- breaking and restoring

    /**
     * Stops the broker and returns once its JVM has exited. The controller notices later: wait with
     * {@link #awaitBrokerFenced} (or for the ISR change) before the next step of a scenario.
     */
    public void stopBroker(int brokerId, StopMode mode) {
        stop(broker(brokerId), mode);
    }

    /** Restarts a stopped broker with its port and data; returns once it is unfenced. */
    public void startBroker(int brokerId) {
        KafkaNode broker = broker(brokerId);
        start(broker);
        if (controllers.values().stream().anyMatch(KafkaNode::isRunning)) {
            awaitBrokerUnfenced(brokerId, startupTimeout);
        }
    }

    /**
     * Restarts stopped brokers all at once, with their ports and data; returns once every one is unfenced. Their
     * JVMs start in parallel, which on a small machine takes little longer than one.
     */
    public void startBrokers(Collection<Integer> brokerIds) {
        List<KafkaNode> starting = brokerIds.stream().map(this::broker).toList();
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("this local cluster is closed");
            }
            for (KafkaNode node : starting) {
                if (node.isRunning()) {
                    throw new IllegalStateException(node.name() + " is already running (pid " + node.process().pid() + ")");
                }
            }
            Path log4jConfig = baseDirectory.resolve(nodeLoggingConfigName());
            starting.forEach(node -> launch(node, log4jConfig));
            awaitServerStarted(starting);
        }
        if (controllers.values().stream().anyMatch(KafkaNode::isRunning)) {
            for (int brokerId : brokerIds) {
                awaitBrokerUnfenced(brokerId, startupTimeout);
            }
        }
    }

    /**
     * Starts the broker on a disk its log loading is expected to fail on (the broker does not start, or shuts down
     * once every log dir is marked failed), and returns what it logged once its JVM has exited by itself.
     *
     * @throws LocalClusterException when it still runs after {@code timeout}: Kafka did not refuse the disk (the
     *                               broker is then killed, so the cluster is left as the caller found it)
     */
    public synchronized String startBrokerExpectingExit(int brokerId, Duration timeout) {
        KafkaNode broker = broker(brokerId);
        if (closed) {
            throw new IllegalStateException("this local cluster is closed");
        }
        if (broker.isRunning()) {
            throw new IllegalStateException(broker.name() + " is already running (pid " + broker.process().pid() + ")");
        }
        launch(broker, baseDirectory.resolve(nodeLoggingConfigName()));
        RunningNode process = broker.process();
        Optional<Integer> status = process.awaitExit(timeout);
        String log = broker.log().readSince(broker.logLengthAtStart());
        if (status.isEmpty()) {
            process.kill();
            broker.stopped(StopMode.ABRUPT, controller.log().length());
            throw new LocalClusterException(broker.name() + " still ran " + timeout.toSeconds() + " s after it started,"
                    + " so Kafka did not refuse its disk; it was killed; last lines of " + broker.log().file() + ":\n"
                    + tailText(broker));
        }
        process.release();
        broker.stopped(StopMode.ABRUPT, controller.log().length());
        LOG.info("{} exited with status {} as expected, refusing its disk", broker.name(), status.get());
        return log;
    }

    /**
     * Freezes the broker's JVM with SIGSTOP: its sockets still accept connections but nothing
     * answers, like a broker stuck in a long GC pause or on a dead disk. After
     * {@code broker.session.timeout.ms} (6 s) the controller fences it. {@link #resumeBroker} thaws it.
     * Returns once every thread of the JVM is stopped, not merely when the signal is queued.
     */
    public synchronized void pauseBroker(int brokerId) {
        KafkaNode broker = broker(brokerId);
        if (!broker.isRunning()) {
            throw new IllegalStateException(broker.name() + " is not running; start it before pausing it");
        }
        signal(broker, "STOP");
        broker.paused(true);
        awaitThreads(broker, true);
    }

    /** Thaws a broker frozen by {@link #pauseBroker} (SIGCONT). */
    public synchronized void resumeBroker(int brokerId) {
        KafkaNode broker = broker(brokerId);
        if (!broker.isPaused()) {
            throw new IllegalStateException(broker.name() + " is not paused");
        }
        signal(broker, "CONT");
        broker.paused(false);
        awaitThreads(broker, false);
    }

    /** Returns only once the signal has taken effect on every thread, so a paused broker answers nothing. */
    private static void awaitThreads(KafkaNode node, boolean stopped) {
        try {
            ThreadStates.await(node.process().pid(), stopped, SIGNAL_TAKES_EFFECT);
        } catch (LocalClusterException e) {
            throw new LocalClusterException(node.name() + ": " + e.getMessage(), e);
        }
    }

    /**
     * Freezes controller {@code controllerId} with SIGSTOP, as {@link #pauseBroker} does a broker: requests the brokers
     * forward to it (reassignments, elections, topic creation) go unanswered until {@link #resumeController}.
     */
    public synchronized void pauseController(int controllerId) {
        KafkaNode node = controllerNode(controllerId);
        signal(node, "STOP");
        node.paused(true);
        awaitThreads(node, true);
    }

    /** Thaws a controller frozen by {@link #pauseController} (SIGCONT). */
    public synchronized void resumeController(int controllerId) {
        KafkaNode node = controllerNode(controllerId);
        signal(node, "CONT");
        node.paused(false);
        awaitThreads(node, false);
    }

    /** Whether the broker is frozen by {@link #pauseBroker}. */
    public boolean isPaused(int brokerId) {
        return broker(brokerId).isPaused();
    }

    public void stopController(StopMode mode) {
        stop(controller, mode);
    }

    public void startController() {
        start(controller);
    }

    /** Stops controller {@code controllerId} of a quorum ({@link #activeControllerId()} names the leader). */
    public void stopController(int controllerId, StopMode mode) {
        stop(controllerNode(controllerId), mode);
    }

    public void startController(int controllerId) {
        start(controllerNode(controllerId));
    }

    /**
     * Starts every stopped controller of the quorum at once and returns once each serves requests: a voter started
     * alone waits for a majority before it logs that it has started, so one at a time would wait out the timeout.
     */
    public synchronized void startStoppedControllers() {
        if (closed) {
            throw new IllegalStateException("this local cluster is closed");
        }
        List<KafkaNode> stopped = controllers.values().stream().filter(node -> !node.isRunning()).toList();
        Path log4jConfig = baseDirectory.resolve(nodeLoggingConfigName());
        stopped.forEach(node -> launch(node, log4jConfig));
        awaitServerStarted(stopped);
    }

    /**
     * Cuts the tail of the last segment of {@code brokerId}'s replica of {@code partition}, as if the
     * last writes never reached the disk. Only while the broker is stopped: a running broker keeps
     * the segment open, and log recovery, which notices the cut, runs only at start-up (after an
     * unclean shutdown, or once the clean-shutdown marker is deleted).
     */
    public synchronized SegmentTruncation truncateReplicaLog(TopicPartition partition, int brokerId, LogTailCut cut) {
        KafkaNode broker = requireStopped(broker(brokerId), "cut its log");
        Path partitionDirectory = replicaDirectory(brokerId, partition);
        if (!Files.isDirectory(partitionDirectory)) {
            throw new LocalClusterException(broker.name() + " holds no replica of " + partition + ": "
                    + partitionDirectory + " does not exist; check the partition's replicas");
        }
        Path lastSegment;
        try (Stream<Path> files = Files.list(partitionDirectory)) {
            lastSegment = files.filter(file -> SEGMENT_FILE.matcher(file.getFileName().toString()).matches())
                    .max(Comparator.comparing(file -> file.getFileName().toString()))
                    .orElseThrow(() -> new LocalClusterException("no *.log segment in " + partitionDirectory));
        } catch (IOException e) {
            throw new UncheckedIOException("could not list " + partitionDirectory, e);
        }
        try (FileChannel segment = FileChannel.open(lastSegment, StandardOpenOption.WRITE)) {
            long before = segment.size();
            long after = cut.newLength(before);
            segment.truncate(after);
            segment.force(true);
            LOG.info("cut {} from {} to {} bytes", lastSegment, before, after);
            return new SegmentTruncation(lastSegment, before, after);
        } catch (IOException e) {
            throw new UncheckedIOException("could not truncate " + lastSegment, e);
        }
    }

    /**
     * Deletes the broker's {@code .kafka_cleanshutdown} marker so that its next start counts as
     * unclean: log recovery runs and the controller drops it from ELR (KIP-966). Only while stopped.
     *
     * @return whether a marker existed
     */
    public synchronized boolean deleteCleanShutdownMarker(int brokerId) {
        KafkaNode broker = requireStopped(broker(brokerId), "delete its clean-shutdown marker");
        try {
            return Files.deleteIfExists(broker.dataDirectory().resolve(CLEAN_SHUTDOWN_MARKER));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Whether the broker's log directory holds a clean-shutdown marker (written by a CLEAN stop). */
    public boolean hasCleanShutdownMarker(int brokerId) {
        return Files.exists(broker(brokerId).dataDirectory().resolve(CLEAN_SHUTDOWN_MARKER));
    }

    // ---------------------------------------------------------------- observing

    /** The partition as a live broker reports it now. Needs at least one running broker. */
    public PartitionView describePartition(TopicPartition partition) {
        try {
            return fetchPartition(partition);
        } catch (ExecutionException e) {
            throw new LocalClusterException("could not describe " + partition + ": " + e.getCause(), e.getCause());
        }
    }

    /**
     * Polls the partition until {@code expected} holds and returns what matched. Errors in between
     * (no broker up yet, topic not yet known) only mean "not yet".
     */
    public PartitionView awaitPartition(TopicPartition partition, Predicate<PartitionView> expected, Duration timeout) {
        Instant deadline = Instant.now().plus(timeout);
        PartitionView lastSeen = null;
        Throwable lastError = null;
        while (true) {
            try {
                PartitionView view = fetchPartition(partition);
                if (expected.test(view)) {
                    return view;
                }
                lastSeen = view;
            } catch (ExecutionException e) {
                lastError = e.getCause();
            }
            if (Instant.now().isAfter(deadline)) {
                throw new LocalClusterException(partition + " did not reach the expected state within "
                        + timeout.toSeconds() + " s; last seen: "
                        + (lastSeen != null ? lastSeen : "nothing") + (lastError != null ? ", last error: " + lastError : "")
                        + "; running nodes: " + runningNodeIds());
            }
            pause();
        }
    }

    public void awaitBrokerFenced(int brokerId) {
        awaitBrokerFenced(brokerId, DEFAULT_AWAIT_TIMEOUT);
    }

    /**
     * Waits until the controller has fenced the broker. After {@link StopMode#ABRUPT} that takes
     * {@code broker.session.timeout.ms} (6 s here); the ISR/ELR changes are in the same metadata
     * batch as the fence. Asks a running broker (DescribeCluster with fenced brokers); when none
     * runs, reads the controller's log, since a controller does not answer DescribeCluster for
     * brokers.
     */
    public void awaitBrokerFenced(int brokerId, Duration timeout) {
        KafkaNode broker = broker(brokerId);
        awaitBrokerRegistration(broker, true, timeout);
    }

    public void awaitBrokerUnfenced(int brokerId) {
        awaitBrokerUnfenced(brokerId, DEFAULT_AWAIT_TIMEOUT);
    }

    /** Waits until a running broker reports {@code brokerId} registered and unfenced. */
    public void awaitBrokerUnfenced(int brokerId, Duration timeout) {
        awaitBrokerRegistration(broker(brokerId), false, timeout);
    }

    // ---------------------------------------------------------------- internals

    private void awaitBrokerRegistration(KafkaNode broker, boolean fenced, Duration timeout) {
        Instant deadline = Instant.now().plus(timeout);
        String lastSeen = "nothing";
        while (true) {
            if (brokers.values().stream().anyMatch(KafkaNode::isRunning)) {
                try {
                    Optional<Node> registration = describeBrokerRegistrations().stream()
                            .filter(node -> node.id() == broker.id()).findFirst();
                    if (registration.isPresent() && registration.get().isFenced() == fenced) {
                        return;
                    }
                    // Kafka 3.x lists unfenced brokers only: one it does not list is fenced (or unregistered).
                    if (fenced && registration.isEmpty() && !listsFencedBrokers()) {
                        return;
                    }
                    lastSeen = registration.map(node -> node.isFenced() ? "fenced" : "unfenced").orElse("not registered");
                } catch (ExecutionException e) {
                    lastSeen = "error " + e.getCause();
                }
            } else if (fenced && controllerLoggedFencing(broker)) {
                return;
            } else {
                lastSeen = "no broker running to ask";
            }
            if (Instant.now().isAfter(deadline)) {
                throw new LocalClusterException(broker.name() + " was not " + (fenced ? "fenced" : "unfenced")
                        + " within " + timeout.toSeconds() + " s (last seen: " + lastSeen + "); see "
                        + controller.log().file() + " and " + broker.log().file());
            }
            pause();
        }
    }

    /** DescribeCluster lists fenced brokers from Kafka 4.0 (KIP-1073); 3.x answers with the unfenced ones. */
    private boolean listsFencedBrokers() {
        return !kafkaVersion.startsWith("3.");
    }

    // With no broker left to answer DescribeCluster, the controller's own log is the witness: it logs
    // every metadata record it replays, and fencing is "BrokerRegistrationChangeRecord(brokerId=3,
    // brokerEpoch=30, fenced=1, ...)", whether after a session timeout (kill -9) or a controlled shutdown.
    private boolean controllerLoggedFencing(KafkaNode broker) {
        if (broker.isRunning() || broker.lastStopMode() == null) {
            return false;
        }
        Pattern fencingRecord = Pattern.compile("BrokerRegistrationChangeRecord\\(brokerId=" + broker.id()
                + ", brokerEpoch=\\d+, fenced=1,");
        return fencingRecord.matcher(controller.log().readSince(broker.controllerLogLengthAtStop())).find();
    }

    // Fenced brokers are listed only on request (KIP-1073, Kafka 4.0); Node.isFenced() says which.
    private Collection<Node> describeBrokerRegistrations() throws ExecutionException {
        try {
            return admin().describeCluster(new DescribeClusterOptions()
                            .includeFencedBrokers(listsFencedBrokers())
                            .timeoutMs((int) ADMIN_CALL_TIMEOUT.toMillis()))
                    .nodes().get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LocalClusterException("interrupted while describing the cluster", e);
        }
    }

    private PartitionView fetchPartition(TopicPartition partition) throws ExecutionException {
        TopicDescription topic;
        try {
            topic = admin().describeTopics(Set.of(partition.topic()),
                            new DescribeTopicsOptions().timeoutMs((int) ADMIN_CALL_TIMEOUT.toMillis()))
                    .allTopicNames().get().get(partition.topic());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LocalClusterException("interrupted while describing " + partition, e);
        }
        TopicPartitionInfo info = topic.partitions().stream()
                .filter(candidate -> candidate.partition() == partition.partition())
                .findFirst()
                .orElseThrow(() -> new ExecutionException(new IllegalArgumentException(
                        partition.topic() + " has no partition " + partition.partition())));
        return PartitionView.of(partition.topic(), info);
    }

    private synchronized Admin admin() {
        if (admin == null) {
            Map<String, Object> config = new HashMap<>(clientProperties());
            config.put(AdminClientConfig.CLIENT_ID_CONFIG, "local-cluster-harness");
            config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) ADMIN_CALL_TIMEOUT.toMillis());
            config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) ADMIN_CALL_TIMEOUT.toMillis() * 2);
            // Brokers come and go on purpose; reconnect quickly once one is back.
            config.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 1000);
            config.put(AdminClientConfig.RETRY_BACKOFF_MAX_MS_CONFIG, 1000);
            admin = Admin.create(config);
        }
        return admin;
    }

    private synchronized void stop(KafkaNode node, StopMode mode) {
        if (!node.isRunning()) {
            throw new IllegalStateException(node.name() + " is not running; start it before stopping it");
        }
        if (node.isPaused()) {
            // A frozen JVM cannot run its controlled shutdown; SIGKILL needs no thawing but is harmless.
            signal(node, "CONT");
            node.paused(false);
        }
        RunningNode process = node.process();
        long controllerLogLength = controller.log().length();
        long began = System.nanoTime();
        switch (mode) {
            case ABRUPT -> process.kill();
            case CLEAN -> {
                if (!process.terminate(cleanStopTimeout)) {
                    process.kill();
                    node.stopped(StopMode.ABRUPT, controllerLogLength);
                    throw new LocalClusterException(node.name() + " (pid " + process.pid()
                            + ") did not finish its controlled shutdown within " + cleanStopTimeout.toSeconds()
                            + " s and was killed with SIGKILL, so it has no clean-shutdown marker; see "
                            + node.log().file());
                }
            }
        }
        node.stopped(mode, controllerLogLength);
        LOG.info("{} stopped ({}) in {} ms", node.name(), mode, millisSince(began));
    }

    private synchronized void start(KafkaNode node) {
        if (closed) {
            throw new IllegalStateException("this local cluster is closed");
        }
        if (node.isRunning()) {
            throw new IllegalStateException(node.name() + " is already running (pid " + node.process().pid() + ")");
        }
        long began = System.nanoTime();
        launch(node, baseDirectory.resolve(nodeLoggingConfigName()));
        awaitServerStarted(List.of(node));
        LOG.info("{} restarted in {} ms", node.name(), millisSince(began));
    }

    private void launch(KafkaNode node, Path log4jConfig) {
        if (node.process() != null) {
            node.process().release(); // it died on its own (crash, OOM): reap its watchdog first
        }
        NodeLog log = node.log();
        log.append("---- kafka-unclean-recovery local cluster: starting " + node.name() + " (start #"
                + (node.starts() + 1) + ") at " + Instant.now() + " ----");
        long logLength = log.length();
        List<String> jvmArgs = new ArrayList<>();
        // An agent rewrites Kafka classes as they load; keep it off shared (pre-parsed) classes.
        if (node.jvmArgs().stream().noneMatch(arg -> arg.startsWith("-javaagent:"))) {
            jvmArgs.addAll(classDataSharing.nodeJvmArgs(node.directory()));
        }
        jvmArgs.addAll(node.jvmArgs());
        List<String> command = javaCommand(log4jConfig, jvmArgs);
        command.addAll(List.of("kafka.Kafka", node.propertiesFile().toString()));
        node.started(runtime.launch(node.name(), command, log.file()), logLength);
    }

    private void awaitServerStarted(Collection<KafkaNode> nodes) {
        Instant deadline = Instant.now().plus(startupTimeout);
        List<KafkaNode> waiting = new ArrayList<>(nodes);
        while (!waiting.isEmpty()) {
            for (var iterator = waiting.iterator(); iterator.hasNext(); ) {
                KafkaNode node = iterator.next();
                if (node.log().containsSince(node.logLengthAtStart(), SERVER_STARTED)) {
                    iterator.remove();
                } else if (!node.process().isAlive()) {
                    Optional<Integer> status = node.process().awaitExit(Duration.ofSeconds(5));
                    throw new LocalClusterException(node.name() + " exited during start-up (status "
                            + status.map(String::valueOf).orElse("unknown") + ") before logging '" + SERVER_STARTED
                            + "'; last lines of " + node.log().file() + ":\n" + tailText(node));
                }
            }
            if (!waiting.isEmpty() && Instant.now().isAfter(deadline)) {
                KafkaNode late = waiting.get(0);
                throw new LocalClusterException(late.name() + " did not log '" + SERVER_STARTED + "' within "
                        + startupTimeout.toSeconds() + " s (the machine may be overloaded; raise startupTimeout);"
                        + " last lines of " + late.log().file() + ":\n" + tailText(late));
            }
            pause();
        }
    }

    private void formatStorage(Path log4jConfig) {
        Map<KafkaNode, RunningNode> formats = new LinkedHashMap<>();
        try {
            // One JVM per node, all at once: JVM start-up dominates and the formats are independent.
            allNodes().forEach(node -> {
                List<String> command = javaCommand(log4jConfig, classDataSharing.toolJvmArgs());
                command.addAll(List.of("kafka.tools.StorageTool", "format",
                        "-t", clusterId, "-c", node.propertiesFile().toString()));
                formatFeatures.forEach(feature -> command.addAll(List.of("--feature", feature)));
                formats.put(node, runtime.launch(node.name() + " format", command, node.formatLogFile()));
            });
            Instant deadline = Instant.now().plus(startupTimeout);
            for (Map.Entry<KafkaNode, RunningNode> format : formats.entrySet()) {
                KafkaNode node = format.getKey();
                Duration left = Duration.between(Instant.now(), deadline);
                Optional<Integer> status = format.getValue().awaitExit(left.isNegative() ? Duration.ZERO : left);
                if (status.isEmpty() || status.get() != 0) {
                    throw new LocalClusterException("formatting the storage of " + node.name() + " "
                            + status.map(code -> "failed with status " + code)
                                    .orElse("did not finish within " + startupTimeout.toSeconds() + " s")
                            + "; output in " + node.formatLogFile() + ":\n"
                            + String.join("\n", new NodeLog(node.formatLogFile()).tail(LOG_TAIL_LINES)));
                }
            }
        } finally {
            formats.values().forEach(RunningNode::kill);
        }
    }

    private List<String> javaCommand(Path log4jConfig, List<String> extraJvmArgs) {
        List<String> command = new ArrayList<>();
        command.add(runtime.javaBinary());
        command.addAll(SMALL_JVM_FLAGS);
        command.add(kafkaVersion.startsWith("3.") ? "-Dlog4j.configuration=file:" + log4jConfig
                : "-Dlog4j2.configurationFile=" + log4jConfig);
        // Later flags win, so the caller's -Xmx or agent options override the defaults above.
        command.addAll(extraJvmArgs);
        command.add("-cp");
        command.add(runtime.classpath());
        return command;
    }

    private String nodeLoggingConfigName() {
        return kafkaVersion.startsWith("3.") ? "log4j.properties" : "log4j2.properties";
    }

    /** Kafka 4.x logs through log4j2, 3.x through reload4j (log4j 1.x): the configuration for the nodes' version. */
    private Path writeNodeLoggingConfig() {
        String name = nodeLoggingConfigName();
        Path config = baseDirectory.resolve(name);
        try (InputStream template = LocalKafkaCluster.class.getResourceAsStream("/localcluster/" + name)) {
            if (template == null) {
                throw new IllegalStateException("resource /localcluster/" + name + " is missing from the build");
            }
            Files.createDirectories(baseDirectory);
            Files.copy(template, config, StandardCopyOption.REPLACE_EXISTING);
            return config;
        } catch (IOException e) {
            throw new UncheckedIOException("could not write " + config, e);
        }
    }

    private synchronized void killAllNodes() {
        allNodes().filter(node -> node.process() != null).forEach(node -> {
            node.process().kill();
            node.stopped(StopMode.ABRUPT, controller.log().length());
        });
    }

    private static void signal(KafkaNode node, String signal) {
        try {
            node.process().signal(signal);
        } catch (LocalClusterException e) {
            throw new LocalClusterException(node.name() + ": " + e.getMessage(), e);
        }
    }

    private KafkaNode requireStopped(KafkaNode node, String action) {
        if (node.isRunning()) {
            throw new IllegalStateException(node.name() + " is running (pid " + node.process().pid()
                    + "); stop it with stopBroker(" + node.id() + ", ...) before you " + action
                    + ": a running broker keeps its segments open and recovers its log only at start-up");
        }
        return node;
    }

    private KafkaNode broker(int brokerId) {
        KafkaNode broker = brokers.get(brokerId);
        if (broker == null) {
            throw new IllegalArgumentException("no broker " + brokerId + " in this cluster; brokers are " + brokers.keySet());
        }
        return broker;
    }

    private KafkaNode node(int nodeId) {
        return controllers.containsKey(nodeId) ? controllers.get(nodeId) : broker(nodeId);
    }

    private KafkaNode controllerNode(int controllerId) {
        KafkaNode node = controllers.get(controllerId);
        if (node == null) {
            throw new IllegalArgumentException("no controller " + controllerId + "; controllers are " + controllers.keySet());
        }
        return node;
    }

    private Stream<KafkaNode> allNodes() {
        return Stream.concat(controllers.values().stream(), brokers.values().stream());
    }

    private List<Integer> runningNodeIds() {
        return allNodes().filter(KafkaNode::isRunning).map(KafkaNode::id).toList();
    }

    private static String tailText(KafkaNode node) {
        return String.join("\n", node.log().tail(LOG_TAIL_LINES));
    }

    private static long millisSince(long nanoTime) {
        return (System.nanoTime() - nanoTime) / 1_000_000;
    }

    private static void pause() {
        try {
            Thread.sleep(POLL_INTERVAL.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LocalClusterException("interrupted while waiting on the local cluster", e);
        }
    }

    private static void deleteRecursively(Path directory) {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            LOG.warn("could not delete the local cluster directory {}: {}", directory, e.toString());
        }
    }

    // ---------------------------------------------------------------- configuration

    private static Map<String, String> controllerDefaults(int id, int port, String quorumVoters, int brokerCount,
                                                          Path logDir) {
        Map<String, String> config = commonDefaults(id, NodeRole.CONTROLLER, quorumVoters, logDir);
        config.put("listeners", "CONTROLLER://" + LoopbackPorts.HOST + ":" + port);
        // A kill -9'd broker is fenced once its session times out (default 9 s); too short a session fences a
        // CPU-starved broker that is still starting.
        config.put("broker.session.timeout.ms", "6000");
        // In KRaft the controller, not the broker, applies these defaults when a topic is created.
        config.put("num.partitions", "1");
        config.put("default.replication.factor", String.valueOf(internalTopicReplication(brokerCount)));
        return config;
    }

    private static Map<String, String> brokerDefaults(int id, int port, String quorumVoters, int brokerCount,
                                                      Path logDir) {
        Map<String, String> config = commonDefaults(id, NodeRole.BROKER, quorumVoters, logDir);
        String listener = "PLAINTEXT://" + LoopbackPorts.HOST + ":" + port;
        config.put("listeners", listener);
        config.put("advertised.listeners", listener);
        config.put("inter.broker.listener.name", "PLAINTEXT");
        config.put("broker.heartbeat.interval.ms", "500");
        config.put("group.initial.rebalance.delay.ms", "0");
        // A broker restarted after kill -9 reads its high watermarks from this checkpoint (default every 5 s): tests
        // that count committed records on such a broker need it close to the real one.
        config.put("replica.high.watermark.checkpoint.interval.ms", "200");
        int replication = internalTopicReplication(brokerCount);
        String minIsr = String.valueOf(Math.min(2, replication));
        config.put("offsets.topic.replication.factor", String.valueOf(replication));
        config.put("transaction.state.log.replication.factor", String.valueOf(replication));
        config.put("transaction.state.log.min.isr", minIsr);
        config.put("share.coordinator.state.topic.replication.factor", String.valueOf(replication));
        config.put("share.coordinator.state.topic.min.isr", minIsr);
        // Internal topics get few partitions: fewer replicas to create, fence and recover in tests.
        config.put("offsets.topic.num.partitions", "3");
        config.put("transaction.state.log.num.partitions", "3");
        return config;
    }

    private static Map<String, String> commonDefaults(int id, NodeRole role, String quorumVoters, Path logDir) {
        Map<String, String> config = new HashMap<>();
        config.put("process.roles", role.processRoles());
        config.put("node.id", String.valueOf(id));
        // A static quorum: format needs neither --standalone nor --initial-controllers.
        config.put("controller.quorum.voters", quorumVoters);
        config.put("controller.listener.names", "CONTROLLER");
        config.put("listener.security.protocol.map", "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT");
        config.put("log.dirs", logDir.toString());
        // The cleaner allocates this buffer on the heap at start-up; the 128 MiB default does not fit -Xmx128m.
        config.put("log.cleaner.dedupe.buffer.size", "4194304");
        return config;
    }

    private static Map<String, String> secured(Map<String, String> defaults, Map<String, String> security) {
        Map<String, String> config = new HashMap<>(defaults);
        config.putAll(security);
        return config;
    }

    private SaslPlainUsers requireSasl(String action) {
        if (saslUsers == null) {
            throw new IllegalStateException("cannot " + action + ": this cluster has no SASL users; build it with"
                    + " security(ClusterSecurity.SASL_PLAIN_WITH_ACLS) or SASL_SSL_WITH_ACLS");
        }
        return saslUsers;
    }

    private ClusterCertificates requireTls(String action) {
        if (certificates == null) {
            throw new IllegalStateException("cannot " + action + ": this cluster does not use TLS; build it with"
                    + " security(ClusterSecurity.SASL_SSL_WITH_ACLS)");
        }
        return certificates;
    }

    private static int internalTopicReplication(int brokerCount) {
        return Math.max(1, Math.min(3, brokerCount));
    }

    /** Configures a {@link LocalKafkaCluster}; every setting has a default that suits tests on a small machine. */
    public static final class Builder {

        private int brokers = DEFAULT_BROKERS;
        private int controllerId = DEFAULT_CONTROLLER_ID;
        private int controllers = 1;
        private final List<String> formatFeatures = new ArrayList<>();
        private String kafkaVersion = KafkaServerClasspath.DEFAULT_VERSION;
        private Path baseDirectory;
        private Path serverClasspathFile;
        private Path kafkaHome;
        private Duration startupTimeout = Duration.ofSeconds(90);
        private Duration cleanStopTimeout = Duration.ofSeconds(60);
        private boolean classDataSharing = true;
        private ClusterBackend backend = ClusterBackend.fromSystemProperty();
        private boolean kafkaVersionChosen;
        private ClusterSecurity security = ClusterSecurity.NONE;
        private final List<String> saslUsers = new ArrayList<>(List.of(ADMIN_USER, RECOVERY_USER, NOBODY_USER));
        private final Map<String, String> brokerProperties = new LinkedHashMap<>();
        private final Map<String, String> controllerProperties = new LinkedHashMap<>();
        private final Map<Integer, Map<String, String>> nodeProperties = new HashMap<>();
        private final Map<NodeRole, List<String>> jvmArgs = new EnumMap<>(NodeRole.class);
        private final java.util.Set<Integer> brokersWithoutAgents = new java.util.HashSet<>();

        private Builder() {
            jvmArgs.put(NodeRole.CONTROLLER, new ArrayList<>());
            jvmArgs.put(NodeRole.BROKER, new ArrayList<>());
        }

        /** Brokers get ids 1..count; 0 starts only the controller. */
        public Builder brokers(int count) {
            if (count < 0 || count > 9) {
                throw new IllegalArgumentException("a local cluster has 0 to 9 brokers, not " + count);
            }
            this.brokers = count;
            return this;
        }

        public Builder controllerId(int id) {
            this.controllerId = id;
            return this;
        }

        /**
         * The Kafka version the nodes run (3.7.2 to 4.4.0): its server classpath is the build's
         * {@code target/kafka-server-<version>.classpath}. Default: the one the tool ships, 4.4.0.
         */
        public Builder kafkaVersion(String version) {
            if (!version.matches("[34]\\.\\d+\\.\\d+")) {
                throw new IllegalArgumentException("a Kafka version is like 3.9.1 or 4.4.0, not '" + version + "'");
            }
            this.kafkaVersion = version;
            this.kafkaVersionChosen = true;
            return this;
        }

        /**
         * A feature level the storage is formatted with, {@code name=level}: {@code eligible.leader.replicas.version=0}
         * makes a 4.x cluster without ELR, as one upgraded from 3.x keeps until someone enables it.
         */
        public Builder formatFeature(String nameEqualsLevel) {
            if (!nameEqualsLevel.matches("[a-z.]+=\\d+")) {
                throw new IllegalArgumentException("a feature is name=level, not '" + nameEqualsLevel + "'");
            }
            formatFeatures.add(nameEqualsLevel);
            return this;
        }

        /** Controllers in the quorum (1, 3 or 5), with ids controllerId, controllerId + 1, ... */
        public Builder controllers(int count) {
            if (count != 1 && count != 3 && count != 5) {
                throw new IllegalArgumentException("a quorum of 1, 3 or 5 controllers, not " + count);
            }
            this.controllers = count;
            return this;
        }

        /** Where node directories go; kept after close. By default a new temporary directory, deleted on close. */
        public Builder baseDirectory(Path directory) {
            this.baseDirectory = directory;
            return this;
        }

        /** A file holding the Kafka server classpath; by default the one the build writes. */
        public Builder serverClasspathFile(Path file) {
            this.serverClasspathFile = file;
            return this;
        }

        /**
         * The nodes run from an installed Kafka (every jar of {@code home/libs}, as its own scripts run it), of the
         * version its server jar is named after, instead of the jars the build resolved.
         */
        public Builder kafkaHome(Path home) {
            this.kafkaHome = home;
            this.kafkaVersion = KafkaServerClasspath.versionOfKafkaHome(home);
            this.kafkaVersionChosen = true;
            return this;
        }

        /**
         * Tiered storage (KIP-405) on every node, with a remote storage that keeps nothing
         * ({@code DiscardingRemoteStorage}): topics may then be created with {@code remote.storage.enable=true}.
         */
        public Builder tieredStorage() {
            String location;
            try {
                // its neighbour's location: loading the storage class itself here would need Kafka's server jars
                location = Path.of(LocalKafkaCluster.class.getProtectionDomain().getCodeSource().getLocation()
                        .toURI()).toString();
            } catch (java.net.URISyntaxException e) {
                throw new LocalClusterException("cannot locate the harness classes for the remote storage", e);
            }
            for (Map<String, String> node : List.of(brokerProperties, controllerProperties)) {
                node.put("remote.log.storage.system.enable", "true");
                node.put("remote.log.storage.manager.class.name", LocalKafkaCluster.class.getPackageName()
                        + ".DiscardingRemoteStorage");
                node.put("remote.log.storage.manager.class.path", location);
            }
            brokerProperties.put("remote.log.metadata.manager.listener.name", "PLAINTEXT");
            // the metadata topic of the default RemoteLogMetadataManager: one partition, on every broker like the other
            // internal topics, so that a test's outage does not take it offline too
            brokerProperties.put("rlmm.config.remote.log.metadata.topic.num.partitions", "1");
            brokerProperties.put("rlmm.config.remote.log.metadata.topic.replication.factor",
                    String.valueOf(internalTopicReplication(brokers)));
            return this;
        }

        /** Sets a server property on every broker (overrides the harness defaults). */
        public Builder brokerProperty(String key, String value) {
            brokerProperties.put(key, value);
            return this;
        }

        /** Sets a server property on the controller (overrides the harness defaults). */
        public Builder controllerProperty(String key, String value) {
            controllerProperties.put(key, value);
            return this;
        }

        /** Sets a server property on one node (wins over the role-wide properties). */
        public Builder nodeProperty(int nodeId, String key, String value) {
            nodeProperties.computeIfAbsent(nodeId, id -> new LinkedHashMap<>()).put(key, value);
            return this;
        }

        /** Extra JVM arguments for every node of {@code role}, after the defaults (so they win). */
        public Builder jvmArgs(NodeRole role, String... args) {
            jvmArgs.get(role).addAll(Arrays.asList(args));
            return this;
        }

        /** Loads a Java agent into the nodes of the given roles: {@code -javaagent:jar[=options]}. */
        public Builder javaAgent(Path agentJar, String options, NodeRole... roles) {
            if (!Files.isRegularFile(agentJar)) {
                throw new IllegalArgumentException("the Java agent " + agentJar.toAbsolutePath()
                        + " does not exist; build it first (mvn -B package -DskipTests builds kafka-patch)");
            }
            String flag = "-javaagent:" + agentJar.toAbsolutePath()
                    + (options == null || options.isEmpty() ? "" : "=" + options);
            for (NodeRole role : roles) {
                jvmArgs.get(role).add(flag);
            }
            return this;
        }

        /** These brokers run without the Java agents given to the broker role (a mixed, half-upgraded cluster). */
        public Builder withoutJavaAgentsOn(int... brokerIds) {
            Arrays.stream(brokerIds).forEach(brokersWithoutAgents::add);
            return this;
        }

        public Builder startupTimeout(Duration timeout) {
            this.startupTimeout = timeout;
            return this;
        }

        /** How long a {@link StopMode#CLEAN} stop may take before the node is killed. */
        public Builder cleanStopTimeout(Duration timeout) {
            this.cleanStopTimeout = timeout;
            return this;
        }

        /**
         * Whether nodes share an AppCDS archive of the Kafka classes (on by default: about half the
         * start-up CPU). The first cluster builds it, next to the classpath file.
         */
        public Builder classDataSharing(boolean enabled) {
            this.classDataSharing = enabled;
            return this;
        }

        /**
         * Processes (the default, or system property {@value ClusterBackend#PROPERTY}) or containers. Containers run
         * the image of system property {@code kafka.test.image} (an {@code apache/kafka} image; its tag is the Kafka
         * version), else one made here from this machine's JRE and the build's server jars.
         */
        public Builder backend(ClusterBackend backend) {
            this.backend = java.util.Objects.requireNonNull(backend, "backend");
            return this;
        }

        /** How clients authenticate and what they may do; {@link ClusterSecurity#NONE} by default. */
        public Builder security(ClusterSecurity security) {
            this.security = java.util.Objects.requireNonNull(security, "security");
            return this;
        }

        /**
         * Adds a SASL user (password {@code <user>-secret}, no ACLs) to those of a secured
         * cluster: {@value #ADMIN_USER},
         * {@value #RECOVERY_USER}, {@value #NOBODY_USER}.
         */
        public Builder saslUser(String user) {
            if (!saslUsers.contains(user)) {
                saslUsers.add(user);
            }
            return this;
        }

        /** Resolves the classpath and the ports; {@link LocalKafkaCluster#start()} starts the nodes. */
        public LocalKafkaCluster build() {
            if (controllerId >= 1 && controllerId <= brokers) {
                throw new IllegalArgumentException("controller id " + controllerId
                        + " collides with the broker ids 1.." + brokers + "; pick one above " + brokers);
            }
            Optional<String> image = backend == ClusterBackend.CONTAINERS ? ContainerRuntime.configuredImage() : Optional.empty();
            if (image.isPresent()) {
                String imageVersion = ContainerRuntime.versionOf(image.get()).orElseThrow(() -> new LocalClusterException(
                        "-D" + ContainerRuntime.IMAGE_PROPERTY + "=" + image.get() + ": the tag must be the Kafka version,"
                                + " as in apache/kafka:4.1.2"));
                if (kafkaVersionChosen && !imageVersion.equals(kafkaVersion)) {
                    throw new LocalClusterException("this cluster runs Kafka " + kafkaVersion + " but -D"
                            + ContainerRuntime.IMAGE_PROPERTY + "=" + image.get() + " holds Kafka " + imageVersion);
                }
                kafkaVersion = imageVersion;
            }
            KafkaServerClasspath classpath = image.isPresent() ? null
                    : kafkaHome != null ? KafkaServerClasspath.ofKafkaHome(kafkaHome)
                    : KafkaServerClasspath.read(serverClasspathFile != null ? serverClasspathFile
                            : KafkaServerClasspath.fileFor(kafkaVersion));
            boolean owned = baseDirectory == null;
            Path directory;
            try {
                directory = owned ? Files.createTempDirectory("kafka-local-cluster-") : baseDirectory.toAbsolutePath();
                Files.createDirectories(directory);
            } catch (IOException e) {
                throw new UncheckedIOException("could not create the local cluster directory", e);
            }
            return new LocalKafkaCluster(this, classpath, directory, owned);
        }

        private Map<String, String> propertiesOf(int nodeId, NodeRole role, Map<String, String> defaults) {
            Map<String, String> merged = new HashMap<>(defaults);
            merged.putAll(role == NodeRole.BROKER ? brokerProperties : controllerProperties);
            merged.putAll(nodeProperties.getOrDefault(nodeId, Map.of()));
            return merged;
        }
    }
}
