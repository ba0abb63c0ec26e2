// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.concurrent.ExecutionException;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;

/**
 * What the cluster reports about its partitions and brokers, now or once it holds: a partition's leader, ISR, ELR and
 * LastKnownELR ({@link #describePartition}, {@link #awaitPartition}), whether the controller has fenced a broker, and
 * where open transactions start. Errors while polling (no broker up yet, topic not yet known) only mean "not yet".
 *
 * <pre>{@code
 * cluster.stopBroker(2, StopMode.ABRUPT);
 * cluster.metadata().awaitBrokerFenced(2);
 * cluster.metadata().awaitPartition(tp, view -> !view.isr().contains(2), Duration.ofSeconds(30));
 * }</pre>
 */
public final class ClusterMetadata {

    static final Duration ADMIN_CALL_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration DEFAULT_AWAIT_TIMEOUT = Duration.ofSeconds(60);

    private final ClusterLayout layout;
    private final SortedMap<Integer, KafkaNode> brokers;
    private final KafkaNode controller;
    private final String kafkaVersion;
    /** The cluster's own long-lived client, made for polling: short timeouts, quick reconnects. */
    private final Supplier<Admin> harnessAdmin;
    /** A new client the caller closes. */
    private final Supplier<Admin> newAdmin;

    ClusterMetadata(ClusterLayout layout, Supplier<Admin> harnessAdmin, Supplier<Admin> newAdmin) {
        this.layout = layout;
        this.brokers = layout.brokers;
        this.controller = layout.controller;
        this.kafkaVersion = layout.kafkaVersion;
        this.harnessAdmin = harnessAdmin;
        this.newAdmin = newAdmin;
    }

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
                        + "; running nodes: " + layout.runningNodeIds());
            }
            NodeLifecycle.pollPause();
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
        KafkaNode broker = layout.broker(brokerId);
        awaitBrokerRegistration(broker, true, timeout);
    }

    public void awaitBrokerUnfenced(int brokerId) {
        awaitBrokerUnfenced(brokerId, DEFAULT_AWAIT_TIMEOUT);
    }

    /** Waits until a running broker reports {@code brokerId} registered and unfenced. */
    public void awaitBrokerUnfenced(int brokerId, Duration timeout) {
        awaitBrokerRegistration(layout.broker(brokerId), false, timeout);
    }

    /** Where each open transaction on the partition starts, as its leader's producer state says (DescribeProducers). */
    public List<Long> openTransactionStarts(TopicPartition partition) {
        try (Admin admin = newAdmin.get()) {
            return admin.describeProducers(List.of(partition)).partitionResult(partition).get().activeProducers()
                    .stream().filter(p -> p.currentTransactionStartOffset().isPresent())
                    .map(p -> p.currentTransactionStartOffset().getAsLong()).toList();
        } catch (ExecutionException e) {
            throw new LocalClusterException("could not describe the producers of " + partition + ": " + e.getCause(),
                    e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LocalClusterException("interrupted", e);
        }
    }

    private void awaitBrokerRegistration(KafkaNode broker, boolean fenced, Duration timeout) {
        Instant deadline = Instant.now().plus(timeout);
        String lastSeen = "nothing";
        while (true) {
            if (brokers.values().stream().anyMatch(KafkaNode::isRunning)) {
                try {
                    Optional<Node> registration = describeBrokerRegistrations(fenced && broker.isRunning()).stream()
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
            } else if (fenced && (layout.metadataMode == MetadataMode.ZOOKEEPER ? sessionEnded(broker)
                    : controllerLoggedFencing(broker))) {
                return;
            } else {
                lastSeen = "no broker running to ask";
            }
            if (Instant.now().isAfter(deadline)) {
                throw new LocalClusterException(broker.name() + " was not " + (fenced ? "fenced" : "unfenced")
                        + " within " + timeout.toSeconds() + " s (last seen: " + lastSeen + "); see "
                        + controller.log().file() + " and " + broker.log().file());
            }
            NodeLifecycle.pollPause();
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

    // In ZooKeeper mode a broker leaves the cluster when its session ends, and with no broker left to answer, the
    // ZooKeeper server's log is the witness: "Expiring session 0x..., timeout of 6000ms exceeded" for the session id
    // the broker logged on connecting. A clean stop closes the session before the JVM exits.
    private boolean sessionEnded(KafkaNode broker) {
        if (broker.isRunning() || broker.lastStopMode() == null) {
            return false;
        }
        if (broker.lastStopMode() == StopMode.CLEAN) {
            return true;
        }
        Matcher session = Pattern.compile("session id = (0x[0-9a-f]+),")
                .matcher(broker.log().readSince(broker.logLengthAtStart()));
        String sessionId = null;
        while (session.find()) {
            sessionId = session.group(1);
        }
        return sessionId != null && controller.log().readSince(broker.controllerLogLengthAtStop())
                .contains("Expiring session " + sessionId + ",");
    }

    // Fenced brokers are listed only on request (KIP-1073, Kafka 4.0); Node.isFenced() says which. A running broker
    // cut off from the controller still sees itself unfenced, and an Admin keeps sending to the node it is connected
    // to: awaiting such a fence, each poll asks from a new client, whose first idle node is drawn at random.
    private Collection<Node> describeBrokerRegistrations(boolean askAnew) throws ExecutionException {
        DescribeClusterOptions options = new DescribeClusterOptions().includeFencedBrokers(listsFencedBrokers())
                .timeoutMs((int) ADMIN_CALL_TIMEOUT.toMillis());
        try {
            if (!askAnew) {
                return harnessAdmin.get().describeCluster(options).nodes().get();
            }
            Admin admin = newAdmin.get();
            try {
                return admin.describeCluster(options).nodes().get();
            } finally {
                admin.close(Duration.ZERO);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LocalClusterException("interrupted while describing the cluster", e);
        }
    }

    private PartitionView fetchPartition(TopicPartition partition) throws ExecutionException {
        TopicDescription topic;
        try {
            topic = harnessAdmin.get().describeTopics(Set.of(partition.topic()),
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
}
