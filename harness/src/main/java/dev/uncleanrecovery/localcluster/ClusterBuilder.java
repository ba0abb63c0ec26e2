// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Configures a {@link LocalKafkaCluster}: its nodes, their server properties and JVM flags, its security and backend.
 * Every setting has a default that suits tests on a small machine; {@link NodeDefaults} holds the server defaults.
 */
public final class ClusterBuilder {

    public static final int DEFAULT_CONTROLLER_ID = 1000;
    public static final int DEFAULT_BROKERS = 3;

    int brokers = DEFAULT_BROKERS;
    int controllerId = DEFAULT_CONTROLLER_ID;
    int controllers = 1;
    final List<String> formatFeatures = new ArrayList<>();
    String kafkaVersion = KafkaServerClasspath.DEFAULT_VERSION;
    Path baseDirectory;
    Path serverClasspathFile;
    Path kafkaHome;
    Duration startupTimeout = Duration.ofSeconds(90);
    Duration cleanStopTimeout = Duration.ofSeconds(60);
    boolean classDataSharing = true;
    ClusterBackend backend = ClusterBackend.fromSystemProperty();
    NodeNetwork network = NodeNetwork.LOOPBACK;
    MetadataMode metadataMode = MetadataMode.KRAFT;
    boolean kafkaVersionChosen;
    ClusterSecurity security = ClusterSecurity.NONE;
    final List<String> saslUsers = new ArrayList<>(
            List.of(ClusterAccess.ADMIN_USER, ClusterAccess.RECOVERY_USER, ClusterAccess.NOBODY_USER));
    final Map<String, String> brokerProperties = new LinkedHashMap<>();
    final Map<String, String> controllerProperties = new LinkedHashMap<>();
    final Map<Integer, Map<String, String>> nodeProperties = new HashMap<>();
    final Map<NodeRole, List<String>> jvmArgs = new EnumMap<>(NodeRole.class);
    final java.util.Set<Integer> brokersWithoutAgents = new java.util.HashSet<>();
    final java.util.SortedSet<Integer> brokersWithFailableLogDir = new java.util.TreeSet<>();

    ClusterBuilder() {
        jvmArgs.put(NodeRole.CONTROLLER, new ArrayList<>());
        jvmArgs.put(NodeRole.BROKER, new ArrayList<>());
    }

    /** Brokers get ids 1..count; 0 starts only the controller. */
    public ClusterBuilder brokers(int count) {
        if (count < 0 || count > 9) {
            throw new IllegalArgumentException("a local cluster has 0 to 9 brokers, not " + count);
        }
        this.brokers = count;
        return this;
    }

    public ClusterBuilder controllerId(int id) {
        this.controllerId = id;
        return this;
    }

    /**
     * The Kafka version the nodes run (3.7.2 to 4.4.0): its server classpath is the build's
     * {@code target/kafka-server-<version>.classpath}. Default: the one the tool ships, 4.4.0.
     */
    public ClusterBuilder kafkaVersion(String version) {
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
    public ClusterBuilder formatFeature(String nameEqualsLevel) {
        if (!nameEqualsLevel.matches("[a-z.]+=\\d+")) {
            throw new IllegalArgumentException("a feature is name=level, not '" + nameEqualsLevel + "'");
        }
        formatFeatures.add(nameEqualsLevel);
        return this;
    }

    /**
     * KRaft (the default) or ZooKeeper (Kafka 3.x): a ZooKeeper server, id controllerId, stands in the controller's
     * place, and the brokers elect the controller among themselves. Processes on loopback, without security.
     */
    public ClusterBuilder metadataMode(MetadataMode mode) {
        this.metadataMode = java.util.Objects.requireNonNull(mode, "mode");
        return this;
    }

    /** Controllers in the quorum (1, 3 or 5), with ids controllerId, controllerId + 1, ... */
    public ClusterBuilder controllers(int count) {
        if (count != 1 && count != 3 && count != 5) {
            throw new IllegalArgumentException("a quorum of 1, 3 or 5 controllers, not " + count);
        }
        this.controllers = count;
        return this;
    }

    /** Where node directories go; kept after close. By default a new temporary directory, deleted on close. */
    public ClusterBuilder baseDirectory(Path directory) {
        this.baseDirectory = directory;
        return this;
    }

    /** A file holding the Kafka server classpath; by default the one the build writes. */
    public ClusterBuilder serverClasspathFile(Path file) {
        this.serverClasspathFile = file;
        return this;
    }

    /**
     * The nodes run from an installed Kafka (every jar of {@code home/libs}, as its own scripts run it), of the
     * version its server jar is named after, instead of the jars the build resolved.
     */
    public ClusterBuilder kafkaHome(Path home) {
        this.kafkaHome = home;
        this.kafkaVersion = KafkaServerClasspath.versionOfKafkaHome(home);
        this.kafkaVersionChosen = true;
        return this;
    }

    /**
     * Tiered storage (KIP-405) on every node, with a remote storage that keeps nothing
     * ({@code DiscardingRemoteStorage}): topics may then be created with {@code remote.storage.enable=true}.
     */
    public ClusterBuilder tieredStorage() {
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
                String.valueOf(NodeDefaults.internalTopicReplication(brokers)));
        return this;
    }

    /** Sets a server property on every broker (overrides the harness defaults). */
    public ClusterBuilder brokerProperty(String key, String value) {
        brokerProperties.put(key, value);
        return this;
    }

    /** Sets a server property on the controller (overrides the harness defaults). */
    public ClusterBuilder controllerProperty(String key, String value) {
        controllerProperties.put(key, value);
        return this;
    }

    /** Sets a server property on one node (wins over the role-wide properties). */
    public ClusterBuilder nodeProperty(int nodeId, String key, String value) {
        nodeProperties.computeIfAbsent(nodeId, id -> new LinkedHashMap<>()).put(key, value);
        return this;
    }

    /** Extra JVM arguments for every node of {@code role}, after the defaults (so they win). */
    public ClusterBuilder jvmArgs(NodeRole role, String... args) {
        jvmArgs.get(role).addAll(Arrays.asList(args));
        return this;
    }

    /** Loads a Java agent into the nodes of the given roles: {@code -javaagent:jar[=options]}. */
    public ClusterBuilder javaAgent(Path agentJar, String options, NodeRole... roles) {
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
    public ClusterBuilder withoutJavaAgentsOn(int... brokerIds) {
        Arrays.stream(brokerIds).forEach(brokersWithoutAgents::add);
        return this;
    }

    /**
     * Gives the broker a second log directory, after its own, on a disk of its own (an ext4 image loop-mounted in
     * its directory) that {@link DiskFaults#failLogDir} fails under the running broker; the first directory keeps
     * the metadata log, so the broker stays up. Processes only, as root; the disk is unmounted on close.
     */
    public ClusterBuilder failableLogDir(int brokerId) {
        brokersWithFailableLogDir.add(brokerId);
        return this;
    }

    public ClusterBuilder startupTimeout(Duration timeout) {
        this.startupTimeout = timeout;
        return this;
    }

    /** How long a {@link StopMode#CLEAN} stop may take before the node is killed. */
    public ClusterBuilder cleanStopTimeout(Duration timeout) {
        this.cleanStopTimeout = timeout;
        return this;
    }

    /**
     * Whether nodes share an AppCDS archive of the Kafka classes (on by default: about half the
     * start-up CPU). The first cluster builds it, next to the classpath file.
     */
    public ClusterBuilder classDataSharing(boolean enabled) {
        this.classDataSharing = enabled;
        return this;
    }

    /**
     * Processes (the default, or system property {@value ClusterBackend#PROPERTY}) or containers. Containers run
     * the image of system property {@code kafka.test.image} (an {@code apache/kafka} image; its tag is the Kafka
     * version), else one made here from this machine's JRE and the build's server jars.
     */
    public ClusterBuilder backend(ClusterBackend backend) {
        this.backend = java.util.Objects.requireNonNull(backend, "backend");
        return this;
    }

    /**
     * Loopback (the default) or {@link NodeNetwork#HOSTS}: every node, the clients and this JVM a host of its own,
     * with the faults of {@link LocalKafkaCluster#network()} between them. Hosts need root and the processes backend.
     */
    public ClusterBuilder network(NodeNetwork network) {
        this.network = java.util.Objects.requireNonNull(network, "network");
        return this;
    }

    /** How clients authenticate and what they may do; {@link ClusterSecurity#NONE} by default. */
    public ClusterBuilder security(ClusterSecurity security) {
        this.security = java.util.Objects.requireNonNull(security, "security");
        return this;
    }

    /**
     * Adds a SASL user (password {@code <user>-secret}, no ACLs) to those of a secured
     * cluster: {@value ClusterAccess#ADMIN_USER},
     * {@value ClusterAccess#RECOVERY_USER}, {@value ClusterAccess#NOBODY_USER}.
     */
    public ClusterBuilder saslUser(String user) {
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
        if (network == NodeNetwork.HOSTS && backend == ClusterBackend.CONTAINERS) {
            throw new LocalClusterException("a cluster of hosts runs its nodes as processes in network namespaces;"
                    + " containers share this machine's network: drop -D" + ClusterBackend.PROPERTY + "=containers");
        }
        if (network == NodeNetwork.HOSTS && security.usesTls()) {
            throw new LocalClusterException("a cluster of hosts has no TLS listeners yet (the certificates name"
                    + " 127.0.0.1); use " + ClusterSecurity.SASL_PLAIN_WITH_ACLS + " or " + ClusterSecurity.NONE);
        }
        if (!brokersWithFailableLogDir.isEmpty() && backend == ClusterBackend.CONTAINERS) {
            throw new LocalClusterException("a failable log directory is a loop mount of this machine, which the"
                    + " containers do not see: drop -D" + ClusterBackend.PROPERTY + "=containers");
        }
        if (!brokersWithFailableLogDir.isEmpty() && brokersWithFailableLogDir.last() > brokers) {
            throw new IllegalArgumentException("no broker " + brokersWithFailableLogDir.last()
                    + " to give a failable log directory; brokers are 1.." + brokers);
        }
        if (metadataMode == MetadataMode.ZOOKEEPER) {
            checkZooKeeperMode();
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
        return new LocalKafkaCluster(new ClusterLayout(this, classpath, directory, owned));
    }

    // What the ZooKeeper backend does not make: a quorum, a 4.x cluster, SASL/TLS, containers, hosts.
    private void checkZooKeeperMode() {
        if (!kafkaVersion.startsWith("3.")) {
            throw new LocalClusterException("Kafka " + kafkaVersion + " has no ZooKeeper mode (4.0 removed it);"
                    + " a ZooKeeper-mode cluster runs 3.7.2 or 3.9.1");
        }
        if (controllers != 1 || !formatFeatures.isEmpty() || security != ClusterSecurity.NONE
                || backend != ClusterBackend.PROCESSES || network != NodeNetwork.LOOPBACK) {
            throw new LocalClusterException("a ZooKeeper-mode local cluster is one ZooKeeper server and PLAINTEXT"
                    + " brokers, as processes on loopback: drop the controllers, format features, security, backend"
                    + " or network settings");
        }
    }

    Map<String, String> propertiesOf(int nodeId, NodeRole role, Map<String, String> defaults) {
        Map<String, String> merged = new HashMap<>(defaults);
        merged.putAll(role == NodeRole.BROKER ? brokerProperties : controllerProperties);
        merged.putAll(nodeProperties.getOrDefault(nodeId, Map.of()));
        return merged;
    }
}
