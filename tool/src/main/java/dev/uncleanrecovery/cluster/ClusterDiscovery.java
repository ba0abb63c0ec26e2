// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cluster;

import dev.uncleanrecovery.connect.ClusterUnreachableException;
import dev.uncleanrecovery.UserInputException;
import dev.uncleanrecovery.connect.BrokerApiVersions;
import dev.uncleanrecovery.connect.BrokerConnections;
import dev.uncleanrecovery.connect.BrokerRotation;
import dev.uncleanrecovery.connect.BrokerState;
import dev.uncleanrecovery.connect.ClientProperties;
import dev.uncleanrecovery.support.OnItsOwnThread;
import java.time.Duration;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.ClientUtils;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.ListPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeClusterRequest;
import org.apache.kafka.common.requests.DescribeClusterResponse;
import org.apache.kafka.common.requests.DescribeConfigsRequest;
import org.apache.kafka.common.requests.DescribeConfigsResponse;
import org.apache.kafka.common.requests.ListPartitionReassignmentsRequest;
import org.apache.kafka.common.requests.ListPartitionReassignmentsResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.utils.Utils;

/**
 * Reads the cluster's view of brokers and partitions: DescribeCluster, Metadata (topic names),
 * DescribeTopicPartitions, ApiVersions (finalized features), DescribeConfigs and
 * ListPartitionReassignments, each sent straight to one live broker at a time through
 * {@link BrokerRotation}, so a hung broker is skipped after one request timeout instead of
 * stalling every call. Read-only (the stock elector's writes go through its connections: ControllerCalls). Admin is
 * kept for Kafka 3.7 (its reassignment listing).
 */
public final class ClusterDiscovery implements AutoCloseable {

    public static final String ELR_FEATURE = "eligible.leader.replicas.version";
    /** metadata.version 3.9-IV0: the newest a Kafka 3.x broker supports in production. */
    private static final short LAST_3X_METADATA_VERSION_LEVEL = 21;
    /** For calls any authenticated principal may make (DescribeCluster, Metadata); a refusal is unexpected. */
    private static final String NO_ACL_NEEDED = null;

    private final Properties clientProperties;
    private final String bootstrapServers;
    private final int timeoutMs;
    private final Duration requestTimeout;
    /** The --bootstrap-server addresses as brokers -1, -2, …: whom to ask before DescribeCluster names the brokers. */
    private final List<BrokerState> bootstrap;
    private final BrokerConnections connections;
    private final BrokerRotation rotation;
    private volatile List<BrokerState> knownBrokers = List.of();
    private volatile DescribeClusterResponseData lastCluster;
    private Admin admin;

    public ClusterDiscovery(Properties clientProperties, int timeoutMs) {
        this.clientProperties = clientProperties;
        this.bootstrapServers = clientProperties.getProperty(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG);
        this.timeoutMs = timeoutMs;
        this.requestTimeout = Duration.ofMillis(ClientProperties.requestTimeoutMs(timeoutMs));
        try {
            this.bootstrap = bootstrapAddresses(clientProperties);
            this.connections = BrokerConnections.open(clientProperties, bootstrap);
        } catch (KafkaException e) {
            throw cannotConnect(e);
        }
        this.rotation = new BrokerRotation(requestTimeout, Duration.ofMillis(timeoutMs), bootstrapServers);
    }

    /** Validates the addresses as Admin would (a port, a resolvable host) and numbers them -1, -2, …. */
    private static List<BrokerState> bootstrapAddresses(Properties clientProperties) {
        AdminClientConfig config = new AdminClientConfig(clientProperties);
        List<String> urls = config.getList(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG);
        try {
            ClientUtils.parseAndValidateAddresses(urls, config.getString(CommonClientConfigs.CLIENT_DNS_LOOKUP_CONFIG));
        } catch (ConfigException e) {
            // kafka-clients says only "No resolvable bootstrap urls given in bootstrap.servers" when no host resolves
            List<String> unresolved = urls.stream().filter(url -> Utils.getHost(url) != null)
                    .filter(url -> !resolves(Utils.getHost(url))).toList();
            if (unresolved.isEmpty()) {
                throw e;
            }
            throw new UserInputException("cannot resolve the host of --bootstrap-server " + String.join(", ", unresolved)
                    + " (unknown to DNS and /etc/hosts here: check the name, or give the broker's IP address)", e);
        }
        List<BrokerState> addresses = new ArrayList<>();
        for (String url : urls) {
            addresses.add(new BrokerState(-(addresses.size() + 1), Utils.getHost(url), Utils.getPort(url), null, false));
        }
        return List.copyOf(addresses);
    }

    private static boolean resolves(String host) {
        try {
            InetAddress.getAllByName(host);
            return true;
        } catch (UnknownHostException e) {
            return false;
        }
    }

    private UserInputException cannotConnect(KafkaException e) {
        Throwable cause = e.getCause() == null ? e : e.getCause();
        return new UserInputException("cannot connect to --bootstrap-server " + bootstrapServers + ": " + cause.getMessage(), e);
    }

    /**
     * The topic whose existence is the tool's run lock, and the prefix of the one that names its holder (see
     * {@code execute.RunLock}): the tool's own, never listed among the cluster's topics.
     */
    public static final String RUN_LOCK_TOPIC = "__kafka_unclean_recovery_lock";

    /**
     * Admin for what Kafka 3.7 brokers cannot answer directly (their topics, their reassignments), created on first
     * use. It bootstraps from the live brokers that answered discovery, so its first Metadata request does not land
     * on a hung one.
     */
    public synchronized Admin admin() {
        if (admin == null) {
            Properties properties = new Properties();
            properties.putAll(clientProperties);
            List<String> answering = rotation.answering(live(knownBrokers)).stream().map(BrokerState::address).toList();
            if (!answering.isEmpty()) {
                properties.setProperty(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, String.join(",", answering));
            }
            try {
                admin = Admin.create(properties);
            } catch (KafkaException e) {
                throw cannotConnect(e);
            }
        }
        return admin;
    }

    /** The connections discovery opened, for requests to single brokers. */
    public BrokerConnections connections() {
        return connections;
    }

    /** The broker order discovery keeps: those that answered first, those that did not last. */
    public BrokerRotation rotation() {
        return rotation;
    }

    public Duration requestTimeout() {
        return requestTimeout;
    }

    /** The unfenced brokers of the last read (DescribeCluster). */
    public List<BrokerState> liveBrokers() {
        return live(lastKnownBrokers());
    }

    /**
     * The unfenced brokers of the last read, the one DescribeCluster names as the controller first. In ZooKeeper mode
     * only the controller broker takes CreateTopics, DeleteTopics, ElectLeaders and AlterPartitionReassignments (any
     * other answers NOT_CONTROLLER); in KRaft that id is a random live broker, and every broker forwards them.
     */
    public List<BrokerState> liveBrokersControllerFirst() {
        return controllerFirst(liveBrokers());
    }

    private List<BrokerState> controllerFirst(List<BrokerState> live) {
        DescribeClusterResponseData cluster = lastCluster;
        int controller = cluster == null ? -1 : cluster.controllerId();
        return Stream.concat(live.stream().filter(b -> b.id() == controller),
                live.stream().filter(b -> b.id() != controller)).toList();
    }

    /** Connections to single brokers with the same client properties; {@code brokers} become askable. */
    public BrokerConnections connections(List<BrokerState> brokers) {
        connections.addBrokers(brokers);
        return connections;
    }

    /** Everything; a topic the cluster will not describe fails the read (what a command that needs each one wants). */
    public ClusterSnapshot describe(PartitionSelection selection) {
        return describe(selection, Depth.EVERYTHING, UnreadableTopics.FAIL);
    }

    /**
     * Everything, and a topic the cluster will not describe (not authorized, deleted since it was listed, no leader
     * yet...) is listed in {@link ClusterSnapshot#unreadableTopics()} instead of failing the read: for {@code status}
     * and {@code plan}, which must show what they could not see rather than leave it out. A {@code --topic} selection
     * still fails: its one topic's error is the whole answer.
     */
    public ClusterSnapshot describeListingUnreadableTopics(PartitionSelection selection) {
        return describe(selection, Depth.EVERYTHING, UnreadableTopics.REPORT);
    }

    /**
     * Only brokers and partition metadata (DescribeCluster + DescribeTopicPartitions): what the electors need
     * while they poll for a reorder or a new leader. Features, min.insync.replicas and reassignments are left
     * empty, so such a snapshot must not be used to re-validate a plan.
     */
    public ClusterSnapshot describePartitionsOnly(PartitionSelection selection) {
        return describe(selection, Depth.PARTITIONS, UnreadableTopics.FAIL);
    }

    /**
     * Brokers, partition metadata and the reassignments in progress (ListPartitionReassignments, read beside the
     * partitions): what a replica order is checked against right before it is changed or put back. Like
     * {@link #describePartitionsOnly}, not for re-validating a plan.
     */
    public ClusterSnapshot describeOrders(PartitionSelection.Explicit selection) {
        return describe(selection, Depth.ORDERS, UnreadableTopics.FAIL);
    }

    /**
     * The partitions as one broker's own metadata shows them (DescribeTopicPartitions, Metadata on Kafka 3.7, sent to
     * that broker alone): what a client asking it sees. Right after an election the brokers learn the new leaders at
     * different moments, so each is asked on its own. Completes exceptionally when the broker does not answer within
     * the request timeout or answers a topic with an error. Its id must be among the brokers of the last read.
     */
    public CompletableFuture<List<TopicPartitionState>> describeOn(int broker, Set<TopicPartition> partitions) {
        Map<String, TopicPartitionsReader.Range> ranges = topicsOf(new PartitionSelection.Explicit(partitions), List.of(),
                new LinkedHashMap<>());
        if (ranges.isEmpty()) {
            return CompletableFuture.completedFuture(List.of());
        }
        CompletableFuture<TopicPartitionsReader.Described> read;
        try {
            read = new TopicPartitionsReader(connections, rotation).readOn(broker, ranges);
        } catch (UnsupportedVersionException e) {
            read = CompletableFuture.failedFuture(e);
        }
        // Kafka 3.7 has no DescribeTopicPartitions: its Metadata, from the same broker
        return read.exceptionallyCompose(e -> unsupported(e)
                        ? metadataOf(broker, ranges.keySet(), rotation.requestTimeout()) : CompletableFuture.failedFuture(e))
                .thenApply(described -> {
                    if (!described.failed().isEmpty()) {
                        Map.Entry<String, Errors> first = described.failed().entrySet().iterator().next();
                        throw new KafkaException("broker " + broker + " answered topic '" + first.getKey() + "' with "
                                + first.getValue());
                    }
                    return described.partitions().stream().filter(p -> partitions.contains(p.topicPartition())).toList();
                });
    }

    /** True when the broker supports no version of the request (the answer's causes, wrapped as they come). */
    private static boolean unsupported(Throwable failure) {
        for (Throwable e = failure; e != null; e = e.getCause()) {
            if (e instanceof UnsupportedVersionException) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether the topic may exist: false only when a broker of the last read answers Metadata for it with
     * UNKNOWN_TOPIC_OR_PARTITION. A topic this principal may not DESCRIBE is hidden from a listing of all topics
     * but answered TOPIC_AUTHORIZATION_FAILED here: it may exist.
     */
    public boolean mayHaveTopic(String topic) {
        try {
            MetadataResponse response = rotation.ask(live(lastKnownBrokers()), "describe topic " + topic,
                    (broker, timeout) -> BrokerRotation.await(connections.send(broker.id(),
                            new MetadataRequest.Builder(List.of(topic), false), MetadataResponse.class, timeout)));
            return response.data().topics().stream().noneMatch(t -> topic.equals(t.name())
                    && t.errorCode() == Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        } catch (ClusterUnreachableException | KafkaException e) {
            return true;
        }
    }

    /** The brokers of the last read (DescribeCluster) this discovery made; read now when there was none. */
    public List<BrokerState> lastKnownBrokers() {
        List<BrokerState> known = knownBrokers;
        return known.isEmpty() ? brokers() : known;
    }

    /** The --bootstrap-server addresses, as given. */
    public String bootstrapServers() {
        return bootstrapServers;
    }

    /** The cluster's id: one DescribeCluster, no partition read; the brokers it names can be asked from then on. */
    public String clusterId() {
        DescribeClusterResponseData cluster = describeCluster();
        brokersOf(cluster);
        return cluster.clusterId();
    }

    /** The registered brokers, fenced ones flagged, in id order: one DescribeCluster, no partition read. */
    public List<BrokerState> brokers() {
        return brokersOf(describeCluster());
    }

    private List<BrokerState> brokersOf(DescribeClusterResponseData cluster) {
        List<BrokerState> brokers = cluster.brokers().stream()
                .map(b -> new BrokerState(b.brokerId(), b.host(), b.port(), b.rack(), b.isFenced()))
                .sorted(Comparator.comparingInt(BrokerState::id))
                .toList();
        connections.addBrokers(brokers);
        knownBrokers = brokers;
        return brokers;
    }

    /** How much a describe reads: see {@link #describe}, {@link #describePartitionsOnly}, {@link #describeOrders}. */
    private enum Depth { EVERYTHING, PARTITIONS, ORDERS }

    /** What a topic-level error in the answer does: fail the read, or list the topic in the snapshot. */
    private enum UnreadableTopics { FAIL, REPORT }

    private ClusterSnapshot describe(PartitionSelection selection, Depth depth, UnreadableTopics onUnreadable) {
        DescribeClusterResponseData cluster = describeCluster();
        List<BrokerState> brokers = brokersOf(cluster);
        List<BrokerState> live = live(brokers);
        if (depth == Depth.EVERYTHING) {
            // Each live broker's ApiVersions, on the raw connection the probe uses next: asked now (once per broker,
            // answers kept), so the connections are open by the time the partitions are read.
            live.forEach(b -> connections.apiVersions(b.id(), requestTimeout));
        }

        Map<String, Errors> failedWhenListed = new LinkedHashMap<>();
        Map<String, TopicPartitionsReader.Range> ranges = topicsOf(selection, live, failedWhenListed);
        Set<String> topics = ranges.keySet();
        // Topic configs and reassignments are read beside the partitions (each is one round trip, forwarded to the
        // controller for reassignments), and awaited after them: a partition error is still the one reported first.
        CompletableFuture<TopicSettings> settings = depth == Depth.EVERYTHING
                ? OnItsOwnThread.run("discovery-topic-configs", () -> topicSettings(topics, live)) : null;
        CompletableFuture<Set<TopicPartition>> reassigning = depth == Depth.EVERYTHING || depth == Depth.ORDERS
                ? OnItsOwnThread.run("discovery-reassignments", () -> reassigning(live)) : null;
        TopicPartitionsReader.Described read = readPartitions(ranges, brokers);
        List<UnreadableTopic> unreadable = new ArrayList<>();
        failedWhenListed.forEach((topic, error) -> unreadable.add(UnreadableTopic.of(topic, error, false)));
        boolean named = !(selection instanceof PartitionSelection.AllTopics);
        read.failed().forEach((topic, error) -> unreadable.add(UnreadableTopic.of(topic, error, named)));
        if (!unreadable.isEmpty() && (onUnreadable == UnreadableTopics.FAIL
                || selection instanceof PartitionSelection.OneTopic)) {
            throw unreadable.get(0).toException();
        }
        Set<String> unreadableNames = unreadable.stream().map(UnreadableTopic::topic).collect(Collectors.toSet());
        List<TopicPartitionState> partitions = new ArrayList<>();
        for (TopicPartitionState p : read.partitions()) {
            if (selection.includes(p.topic(), p.partition())) {
                partitions.add(p);
            }
        }
        checkRequestedPartitionsExist(selection, partitions, unreadableNames);
        partitions.sort(Comparator.comparing(TopicPartitionState::topic)
                .thenComparingInt(TopicPartitionState::partition));

        if (depth != Depth.EVERYTHING) {
            return new ClusterSnapshot(cluster.clusterId(), cluster.controllerId(), brokers, (short) -1,
                    partitions, Map.of(), reassigning == null ? Set.of() : OnItsOwnThread.join(reassigning));
        }
        TopicSettings configs = OnItsOwnThread.join(settings);
        // a topic already reported unreadable fails DescribeConfigs the same way: said once, above
        configs.refused().forEach((topic, answer) -> {
            if (!unreadableNames.contains(topic)) {
                checkAnswer(answer.errorCode(), answer.errorMessage(), "describe the configs of topic '" + topic + "'",
                        "DESCRIBE_CONFIGS on it");
            }
        });
        return new ClusterSnapshot(cluster.clusterId(), cluster.controllerId(), brokers, elrFeatureLevel(live),
                partitions, configs.minInsyncReplicas(), OnItsOwnThread.join(reassigning), configs.tieredStorage(),
                unreadable);
    }

    private static List<BrokerState> live(List<BrokerState> brokers) {
        return brokers.stream().filter(b -> !b.fenced()).toList();
    }

    /** Asks the live brokers of the last answer first, then the --bootstrap-server addresses not among them. */
    private DescribeClusterResponseData describeCluster() {
        DescribeClusterResponseData cluster = describeClusterOnce();
        lastCluster = cluster;
        return cluster;
    }

    private DescribeClusterResponseData describeClusterOnce() {
        List<BrokerState> candidates = new ArrayList<>(live(knownBrokers));
        Set<String> known = candidates.stream().map(BrokerState::address).collect(Collectors.toSet());
        bootstrap.stream().filter(b -> !known.contains(b.address())).forEach(candidates::add);
        try {
            return describeCluster(candidates, true);
        } catch (UnsupportedVersionException e) {
            // DescribeCluster v2 (fenced brokers) is 4.0+; 3.x brokers list only unfenced ones.
            return describeCluster(candidates, false);
        }
    }

    private DescribeClusterResponseData describeCluster(List<BrokerState> candidates, boolean withFenced) {
        BrokerRotation.AsyncRequestToOne<DescribeClusterResponseData> request = (broker, timeout) -> connections.send(broker.id(),
                        new DescribeClusterRequest.Builder(new DescribeClusterRequestData().setIncludeFencedBrokers(withFenced)),
                        DescribeClusterResponse.class, timeout)
                .thenApply(response -> {
                    checkAnswer(response.data().errorCode(), response.data().errorMessage(), "describe the cluster", NO_ACL_NEEDED);
                    return response.data();
                });
        if (knownBrokers.isEmpty()) {
            // First contact: every --bootstrap-server address at once, so a hung one costs nothing.
            return rotation.race(candidates, "describe the cluster", request);
        }
        return rotation.ask(candidates, "describe the cluster", (broker, timeout) -> BrokerRotation.await(request.send(broker, timeout)));
    }

    /**
     * The topics to read, each with the range of partitions the selection needs (so that a large topic's pages
     * can be read at once): from the selection itself, or for every topic from the Metadata answer's partitions.
     */
    private Map<String, TopicPartitionsReader.Range> topicsOf(PartitionSelection selection, List<BrokerState> live,
                                                              Map<String, Errors> failed) {
        Map<String, TopicPartitionsReader.Range> ranges = new TreeMap<>();
        if (selection instanceof PartitionSelection.OneTopic one) {
            ranges.put(one.topic(), one.partitions().isEmpty() ? TopicPartitionsReader.Range.WHOLE_TOPIC
                    : TopicPartitionsReader.Range.of(one.partitions()));
            return ranges;
        }
        if (selection instanceof PartitionSelection.Explicit explicit) {
            explicit.partitions().stream().collect(Collectors.groupingBy(TopicPartition::topic,
                            Collectors.mapping(TopicPartition::partition, Collectors.toList())))
                    .forEach((topic, partitions) -> ranges.put(topic, TopicPartitionsReader.Range.of(partitions)));
            return ranges;
        }
        // Metadata for all topics lists those this principal may DESCRIBE, internal ones included.
        MetadataResponse response = rotation.ask(live, "list topics", (broker, timeout) -> BrokerRotation.await(
                connections.send(broker.id(), MetadataRequest.Builder.allTopics(), MetadataResponse.class, timeout)));
        for (MetadataResponseData.MetadataResponseTopic topic : response.data().topics()) {
            if (topic.name() == null || topic.name().startsWith(RUN_LOCK_TOPIC)) {
                continue; // the tool's own run lock is never the cluster's to report
            }
            if (topic.errorCode() != Errors.NONE.code()) {
                failed.put(topic.name(), Errors.forCode(topic.errorCode())); // listed, but not describable: said, not dropped
            } else {
                ranges.put(topic.name(), topic.partitions().isEmpty() ? TopicPartitionsReader.Range.WHOLE_TOPIC
                        : new TopicPartitionsReader.Range(0, topic.partitions().size() - 1));
            }
        }
        return ranges;
    }

    /** DescribeTopicPartitions straight from a live broker; Metadata for 3.7 brokers. */
    private TopicPartitionsReader.Described readPartitions(Map<String, TopicPartitionsReader.Range> topics,
                                                           List<BrokerState> brokers) {
        if (topics.isEmpty()) {
            return new TopicPartitionsReader.Described(List.of(), Map.of());
        }
        try {
            TopicPartitionsReader reader = new TopicPartitionsReader(connections, rotation);
            return reader.read(topics, live(brokers));
        } catch (UnsupportedVersionException e) {
            return describeTopicsThroughMetadata(topics.keySet(), brokers);
        }
    }

    /**
     * Kafka 3.7 has no DescribeTopicPartitions: Metadata (v7+ carries each partition's leader epoch, v10+ the topic
     * id, both in every version a 3.7 broker offers) from a live broker, for exactly these topics.
     */
    private TopicPartitionsReader.Described describeTopicsThroughMetadata(Set<String> topics, List<BrokerState> brokers) {
        return rotation.ask(live(brokers), "describe topics " + topics, (broker, timeout) ->
                BrokerRotation.await(metadataOf(broker.id(), topics, timeout)));
    }

    private CompletableFuture<TopicPartitionsReader.Described> metadataOf(int broker, Set<String> topics,
                                                                          Duration timeout) {
        return connections.send(broker, new MetadataRequest.Builder(new ArrayList<>(topics), false),
                MetadataResponse.class, timeout).thenApply(response -> {
                    List<TopicPartitionState> result = new ArrayList<>();
                    Map<String, Errors> failed = new LinkedHashMap<>();
                    for (MetadataResponseData.MetadataResponseTopic topic : response.data().topics()) {
                        Errors error = Errors.forCode(topic.errorCode());
                        if (error != Errors.NONE) {
                            failed.putIfAbsent(topic.name(), error);
                            continue;
                        }
                        for (MetadataResponseData.MetadataResponsePartition p : topic.partitions()) {
                            // Metadata has no ELR (3.7 has none); its offline replicas are the fenced or unregistered.
                            result.add(new TopicPartitionState(topic.name(), topic.topicId(), p.partitionIndex(),
                                    p.leaderId(), p.leaderEpoch(), p.replicaNodes(), p.isrNodes(), List.of(), List.of(),
                                    p.offlineReplicas()));
                        }
                    }
                    return new TopicPartitionsReader.Described(result, failed);
                });
    }

    /** @param unreadable topics already reported: their partitions are unknown, not missing */
    private static void checkRequestedPartitionsExist(PartitionSelection selection, List<TopicPartitionState> found,
                                                      Set<String> unreadable) {
        List<TopicPartition> requested = new ArrayList<>();
        if (selection instanceof PartitionSelection.OneTopic one) {
            one.partitions().forEach(p -> requested.add(new TopicPartition(one.topic(), p)));
        } else if (selection instanceof PartitionSelection.Explicit explicit) {
            requested.addAll(explicit.partitions());
        }
        Set<TopicPartition> present = found.stream().map(TopicPartitionState::topicPartition).collect(Collectors.toSet());
        for (TopicPartition tp : requested) {
            if (!present.contains(tp) && !unreadable.contains(tp.topic())) {
                throw new UserInputException("partition " + tp.partition() + " of topic '" + tp.topic()
                        + "' does not exist (check with kafka-topics.sh --describe --topic " + tp.topic() + ")");
            }
        }
    }

    /**
     * The finalized eligible.leader.replicas.version, from a live broker's ApiVersions answer (the one the
     * native-RPC survey reads too, asked once per broker); -1 when unknown; on 3.x, whether in KRaft or ZooKeeper mode.
     */
    private short elrFeatureLevel(List<BrokerState> live) {
        try {
            BrokerApiVersions versions = rotation.ask(live, "read the cluster's finalized features", (broker, timeout) ->
                    BrokerRotation.await(connections.apiVersions(broker.id(), timeout)));
            // Kafka 3.x knows no such feature: level 0 there is no switch anyone can turn. Its brokers support
            // metadata.version up to 3.9-IV0 (level 21) in production; every 4.x broker supports a later one.
            boolean elrKnown = versions.supportedMaxLevel(ELR_FEATURE) >= 0
                    || versions.supportedMaxLevel("metadata.version") > LAST_3X_METADATA_VERSION_LEVEL;
            if (elrKnown) {
                return versions.finalizedLevel(ELR_FEATURE);
            }
            // every KRaft broker takes DescribeQuorum (it forwards it to the controllers); a ZooKeeper-mode one
            // does not advertise it
            return versions.advertises(ApiKeys.DESCRIBE_QUORUM.id) ? ClusterSnapshot.ELR_UNSUPPORTED
                    : ClusterSnapshot.ELR_ZOOKEEPER_MODE;
        } catch (ClusterUnreachableException | KafkaException e) {
            return -1;
        }
    }

    /** Effective min.insync.replicas per topic, and the topics with tiered storage: one DescribeConfigs. */
    private TopicSettings topicSettings(Set<String> topics, List<BrokerState> live) {
        if (topics.isEmpty()) {
            return new TopicSettings(Map.of(), Set.of(), Map.of());
        }
        DescribeConfigsRequestData request = new DescribeConfigsRequestData()
                .setIncludeSynonyms(false)
                .setIncludeDocumentation(false)
                .setResources(topics.stream().map(topic -> new DescribeConfigsRequestData.DescribeConfigsResource()
                        .setResourceType(ConfigResource.Type.TOPIC.id())
                        .setResourceName(topic)
                        .setConfigurationKeys(List.of(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG,
                                TopicConfig.REMOTE_LOG_STORAGE_ENABLE_CONFIG))).toList());
        DescribeConfigsResponse response = rotation.ask(live, "describe topic configs", (broker, timeout) -> BrokerRotation.await(
                connections.send(broker.id(), new DescribeConfigsRequest.Builder(request), DescribeConfigsResponse.class, timeout)));
        Map<String, Integer> result = new TreeMap<>();
        Set<String> tiered = new TreeSet<>();
        // In topic order, so that a refusal names the first topic that needs the ACL.
        Map<String, DescribeConfigsResponseData.DescribeConfigsResult> refused = new TreeMap<>();
        for (DescribeConfigsResponseData.DescribeConfigsResult topic : response.data().results()) {
            if (topic.errorCode() != Errors.NONE.code()) {
                refused.put(topic.resourceName(), topic);
                continue;
            }
            String value = topic.configs().stream()
                    .filter(c -> TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG.equals(c.name()))
                    .map(DescribeConfigsResponseData.DescribeConfigsResourceResult::value)
                    .filter(Objects::nonNull)
                    .findFirst().orElse("1");
            result.put(topic.resourceName(), Integer.parseInt(value));
            if (topic.configs().stream().anyMatch(c -> TopicConfig.REMOTE_LOG_STORAGE_ENABLE_CONFIG.equals(c.name())
                    && "true".equalsIgnoreCase(c.value()))) {
                tiered.add(topic.resourceName());
            }
        }
        return new TopicSettings(result, tiered, refused);
    }

    /**
     * What the snapshot keeps of the topics' configs.
     *
     * @param refused by topic name, the answers that were errors: checked once the partitions are read, so that a
     *                topic the partition read already reported is not reported again
     */
    private record TopicSettings(Map<String, Integer> minInsyncReplicas, Set<String> tieredStorage,
                                 Map<String, DescribeConfigsResponseData.DescribeConfigsResult> refused) {
    }

    /**
     * ListPartitionReassignments, which each KRaft broker forwards to the controller, and which in ZooKeeper mode only
     * the controller broker answers: asked of the broker DescribeCluster names first. (Admin would send it to the
     * broker its metadata names as "controller" — a random one in KRaft — and keep retrying it if it hangs.)
     */
    private Set<TopicPartition> reassigning(List<BrokerState> live) {
        ListPartitionReassignmentsResponse response;
        try {
            response = listReassignments(controllerFirst(live));
            if (response.data().errorCode() == Errors.NOT_CONTROLLER.code()) {
                // ZooKeeper mode, where only the controller broker answers it: the controller moved, ask who it is
                response = listReassignments(controllerFirst(live(brokersOf(describeCluster()))));
            }
        } catch (UnsupportedVersionException e) {
            // Brokers too old to take it directly: Admin sends it to the controller.
            return await(admin().listPartitionReassignments().reassignments(), "list partition reassignments",
                    "DESCRIBE on the cluster").keySet();
        }
        checkAnswer(response.data().errorCode(), response.data().errorMessage(), "list partition reassignments",
                "DESCRIBE on the cluster");
        Set<TopicPartition> result = new HashSet<>();
        response.data().topics().forEach(t -> t.partitions().forEach(
                p -> result.add(new TopicPartition(t.name(), p.partitionIndex()))));
        return result;
    }

    private ListPartitionReassignmentsResponse listReassignments(List<BrokerState> controllerFirst) {
        return rotation.askInGivenOrder(controllerFirst, "list partition reassignments", (broker, timeout) ->
                BrokerRotation.await(connections.send(broker.id(), new ListPartitionReassignmentsRequest.Builder(
                                new ListPartitionReassignmentsRequestData().setTopics(null)),
                        ListPartitionReassignmentsResponse.class, timeout)));
    }

    /**
     * Turns an error code in a broker's answer into the exception the user sees.
     *
     * @param permission the ACL that lets this principal do {@code what} ("DESCRIBE on the cluster"),
     *                   or {@link #NO_ACL_NEEDED}
     */
    private static void checkAnswer(short errorCode, String errorMessage, String what, String permission) {
        Errors error = Errors.forCode(errorCode);
        if (error == Errors.NONE) {
            return;
        }
        if (error.exception() instanceof AuthorizationException) {
            throw notAuthorized(what, permission, error.exception());
        }
        throw error.exception("could not " + what + ": " + (errorMessage == null || errorMessage.isBlank()
                ? error.message() : errorMessage));
    }

    private static UserInputException notAuthorized(String what, String permission, Throwable cause) {
        // Kafka's own text is useless here: for requests a broker forwards to the controller it
        // is a dump of the request ("Request Request(processor=1, ...) needs DESCRIBE permission").
        return new UserInputException("not authorized to " + what + ": " + (permission == null
                ? "grant this principal the ACLs listed in README Permissions"
                : "grant " + permission + " to this principal (see README Permissions)"), cause);
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
            return ClusterUnreachableException.noAnswer(what, bootstrapServers, Duration.ofMillis(timeoutMs), cause);
        }
        if (cause instanceof AuthorizationException) {
            return notAuthorized(what, permission, cause);
        }
        if (cause instanceof RuntimeException runtime) {
            return runtime;
        }
        return new IllegalStateException("could not " + what + ": " + cause, cause);
    }

    @Override
    public void close() {
        connections.close();
        synchronized (this) {
            if (admin != null) {
                admin.close(Duration.ofSeconds(5));
            }
        }
    }
}
