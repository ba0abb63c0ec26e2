// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import dev.uncleanrecovery.cluster.ClusterDiscovery;
import dev.uncleanrecovery.connect.BrokerConnections;
import dev.uncleanrecovery.connect.BrokerRotation;
import dev.uncleanrecovery.connect.BrokerState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData.ReassignablePartition;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData.ReassignableTopic;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData;
import org.apache.kafka.common.message.ElectLeadersResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AlterPartitionReassignmentsRequest;
import org.apache.kafka.common.requests.AlterPartitionReassignmentsResponse;
import org.apache.kafka.common.requests.ElectLeadersRequest;
import org.apache.kafka.common.requests.ElectLeadersResponse;

/**
 * The stock elector's two writes, AlterPartitionReassignments and ElectLeaders (UNCLEAN), sent straight to one live
 * broker, which forwards them to the controller — what Admin does in KRaft, where the "controller" its metadata names
 * is a broker. Over the tool's open broker connections, a request leaves at once; Admin would first be created and
 * bootstrap its own (a new connection, ApiVersions, Metadata) before the first change.
 * A broker that does not answer is skipped like in every other read ({@link BrokerRotation}); a request it may have
 * forwarded is then sent again through another broker, as Admin retries too: a reorder to the same order is a no-op,
 * and an election already done answers ELECTION_NOT_NEEDED for that partition.
 */
public final class ControllerCalls {

    /**
     * A reorder and an election each write one PartitionChangeRecord per partition, and the controller refuses a
     * request that writes more than 10,000 records (QuorumController.MAX_RECORDS_PER_USER_OP) — a designated
     * election (ElectLeaders v3) as well as a stock one. The controller works through requests one at a time, and
     * each broker forwards one at a time, so fewer, larger requests finish sooner.
     */
    public static final int MAX_PARTITIONS_PER_REQUEST = 10_000;

    private static final String REORDER = "reorder replicas";
    private static final String ELECT = "elect leaders";

    private final BrokerConnections connections;
    private final BrokerRotation rotation;
    private final Supplier<List<BrokerState>> liveBrokers;
    private final Duration requestTimeout;

    /**
     * AlterPartitionReassignments and ElectLeaders through the live brokers of the discovery's last read (each
     * forwards them to the controller), over the connections it opened.
     */
    public static ControllerCalls through(ClusterDiscovery discovery) {
        return new ControllerCalls(discovery.connections(), discovery.rotation(), discovery::liveBrokers,
                discovery.requestTimeout());
    }

    ControllerCalls(BrokerConnections connections, BrokerRotation rotation, Supplier<List<BrokerState>> liveBrokers,
                    Duration requestTimeout) {
        this.connections = connections;
        this.rotation = rotation;
        this.liveBrokers = liveBrokers;
        this.requestTimeout = requestTimeout;
    }

    /** The partitions split into requests of at most {@link #MAX_PARTITIONS_PER_REQUEST}, in order. */
    public static <T> List<List<T>> requests(List<T> partitions) {
        List<List<T>> requests = new ArrayList<>();
        for (int i = 0; i < partitions.size(); i += MAX_PARTITIONS_PER_REQUEST) {
            requests.add(partitions.subList(i, Math.min(partitions.size(), i + MAX_PARTITIONS_PER_REQUEST)));
        }
        return requests;
    }

    /**
     * Sets each partition's replica list (the same replicas, in another order: nothing moves).
     *
     * @return per partition, in request order, the controller's refusal (Kafka's message), or empty when done
     */
    public Map<TopicPartition, Optional<String>> reassign(Map<TopicPartition, List<Integer>> replicas) {
        Map<String, List<ReassignablePartition>> byTopic = new LinkedHashMap<>();
        replicas.forEach((tp, order) -> byTopic.computeIfAbsent(tp.topic(), t -> new ArrayList<>())
                .add(new ReassignablePartition().setPartitionIndex(tp.partition()).setReplicas(order)));
        AlterPartitionReassignmentsRequestData request = new AlterPartitionReassignmentsRequestData()
                .setTimeoutMs((int) requestTimeout.toMillis())
                .setTopics(byTopic.entrySet().stream()
                        .map(e -> new ReassignableTopic().setName(e.getKey()).setPartitions(e.getValue())).toList());
        AlterPartitionReassignmentsResponseData answer = rotation.ask(liveBrokers.get(), REORDER, (broker, timeout) ->
                BrokerRotation.await(connections.send(broker.id(), new AlterPartitionReassignmentsRequest.Builder(request),
                        AlterPartitionReassignmentsResponse.class, timeout))).data();
        Map<TopicPartition, Optional<String>> refused = new LinkedHashMap<>();
        answer.responses().forEach(topic -> topic.partitions().forEach(p -> refused.put(
                new TopicPartition(topic.name(), p.partitionIndex()), refusal(p.errorCode(), p.errorMessage(), REORDER))));
        return inRequestOrder(replicas.keySet(), refused, refusal(answer.errorCode(), answer.errorMessage(), REORDER));
    }

    /**
     * {@link #reassign} in as many requests of at most {@link #MAX_PARTITIONS_PER_REQUEST} as it takes, in order.
     *
     * @return the partitions the controller refused, with its refusal
     */
    public Map<TopicPartition, String> reassignAll(Map<TopicPartition, List<Integer>> replicas) {
        Map<TopicPartition, String> failures = new LinkedHashMap<>();
        for (List<TopicPartition> request : requests(new ArrayList<>(replicas.keySet()))) {
            Map<TopicPartition, List<Integer>> batch = new LinkedHashMap<>();
            request.forEach(tp -> batch.put(tp, replicas.get(tp)));
            reassign(batch).forEach((tp, refusal) -> refusal.ifPresent(error -> failures.put(tp, error)));
        }
        return failures;
    }

    /** @return per partition, in request order, the controller's refusal (Kafka's message), or empty when elected */
    public Map<TopicPartition, Optional<String>> electUnclean(Collection<TopicPartition> partitions) {
        ElectLeadersRequest.Builder request = new ElectLeadersRequest.Builder(ElectionType.UNCLEAN, partitions,
                (int) requestTimeout.toMillis());
        ElectLeadersResponseData answer = rotation.ask(liveBrokers.get(), ELECT, (broker, timeout) ->
                BrokerRotation.await(connections.send(broker.id(), request, ElectLeadersResponse.class, timeout))).data();
        Map<TopicPartition, Optional<String>> refused = new LinkedHashMap<>();
        answer.replicaElectionResults().forEach(topic -> topic.partitionResult().forEach(p -> refused.put(
                new TopicPartition(topic.topic(), p.partitionId()), refusal(p.errorCode(), p.errorMessage(), ELECT))));
        return inRequestOrder(partitions, refused, refusal(answer.errorCode(), null, ELECT));
    }

    /**
     * Every asked partition: a refusal of the whole request (not authorized, say) applies to each, and a partition
     * the controller did not mention is refused too — unanswered is not done.
     */
    private static Map<TopicPartition, Optional<String>> inRequestOrder(Collection<TopicPartition> asked,
                                                                        Map<TopicPartition, Optional<String>> answered,
                                                                        Optional<String> wholeRequest) {
        return asked.stream().collect(Collectors.toMap(tp -> tp,
                tp -> wholeRequest.isPresent() ? wholeRequest
                        : answered.getOrDefault(tp, Optional.of("the controller's answer does not mention this partition")),
                (a, b) -> a, LinkedHashMap::new));
    }

    /**
     * Kafka's own wording, as Admin would put it in its exception; but not for a missing ACL, where the controller's
     * text is a dump of the forwarded request ("Request Request(processor=0, connectionId=…) needs ALTER permission.").
     */
    private static Optional<String> refusal(short errorCode, String message, String doing) {
        Errors error = Errors.forCode(errorCode);
        if (error == Errors.NONE) {
            return Optional.empty();
        }
        if (error.exception() instanceof AuthorizationException) {
            return Optional.of(error.name() + ": the tool's principal needs ALTER on the cluster to " + doing
                    + " (see README Permissions)");
        }
        return Optional.of(error.exception(message).getMessage());
    }
}
