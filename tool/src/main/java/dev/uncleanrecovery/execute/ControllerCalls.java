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
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopicCollection;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsRequestData.DeleteTopicState;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.requests.CreateTopicsRequest;
import org.apache.kafka.common.requests.CreateTopicsResponse;
import org.apache.kafka.common.requests.DeleteTopicsRequest;
import org.apache.kafka.common.requests.DeleteTopicsResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
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
     * each broker forwards one at a time, so fewer, larger requests finish sooner. Smaller requests on demand
     * ({@value #PARTITIONS_PER_REQUEST_PROPERTY}), for a controller that struggles with large ones.
     */
    public static final int MAX_PARTITIONS_PER_REQUEST = Math.max(1, Math.min(10_000,
            Integer.getInteger(ControllerCalls.PARTITIONS_PER_REQUEST_PROPERTY, 10_000)));

    public static final String PARTITIONS_PER_REQUEST_PROPERTY = "kafka.unclean.recovery.partitions.per.controller.request";

    private static final String REORDER = "reorder replicas";
    private static final String ELECT = "elect leaders";
    private static final String CREATE = "create the run lock";
    private static final String DELETE = "remove the run lock";

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
     * Creates a topic of one partition on one replica (the controller places it on a live broker). CreateTopics is
     * Kafka's one compare-and-set a client has: of two requests for the same name exactly one succeeds, the other is
     * answered TOPIC_ALREADY_EXISTS.
     *
     * @return the new topic's id, or the controller's refusal
     */
    public TopicCreation createTopic(String name) {
        CreatableTopicCollection topics = new CreatableTopicCollection();
        topics.add(new CreatableTopic().setName(name).setNumPartitions(1).setReplicationFactor((short) 1));
        CreateTopicsRequest.Builder request = new CreateTopicsRequest.Builder(new CreateTopicsRequestData()
                .setTopics(topics).setTimeoutMs((int) requestTimeout.toMillis()));
        CreateTopicsResponseData answer = rotation.ask(liveBrokers.get(), CREATE, (broker, timeout) ->
                BrokerRotation.await(connections.send(broker.id(), request, CreateTopicsResponse.class, timeout))).data();
        CreateTopicsResponseData.CreatableTopicResult result = answer.topics().find(name);
        if (result == null) {
            return new TopicCreation(null, Errors.UNKNOWN_SERVER_ERROR, "the controller's answer does not mention " + name);
        }
        Errors error = Errors.forCode(result.errorCode());
        return new TopicCreation(error == Errors.NONE ? result.topicId() : null, error,
                refusal(result.errorCode(), result.errorMessage(), CREATE).orElse(null));
    }

    /** A topic created, or why not: {@code error} is Kafka's code, {@code refusal} its message. */
    public record TopicCreation(Uuid topicId, Errors error, String refusal) {
    }

    /**
     * Deletes a topic by its id, never by its name: a name may by now belong to a topic someone created after the one
     * this call means (DeleteTopics v6, KIP-516).
     *
     * @return the controller's refusal (UNKNOWN_TOPIC_ID when it is already gone), or empty when deleted
     */
    public Optional<Errors> deleteTopic(Uuid topicId) {
        Errors error = deleteTopics(List.of(topicId)).get(topicId);
        return error == Errors.NONE ? Optional.empty() : Optional.of(error);
    }

    /**
     * Deletes topics by id in one request (see {@link #deleteTopic}).
     *
     * @return per id, the controller's answer: NONE when deleted; UNKNOWN_SERVER_ERROR for an id it did not answer
     */
    public Map<Uuid, Errors> deleteTopics(List<Uuid> topicIds) {
        DeleteTopicsRequestData data = new DeleteTopicsRequestData().setTimeoutMs((int) requestTimeout.toMillis());
        topicIds.forEach(id -> data.topics().add(new DeleteTopicState().setTopicId(id)));
        DeleteTopicsRequest.Builder request = new DeleteTopicsRequest.Builder(data);
        DeleteTopicsResponseData answer = rotation.ask(liveBrokers.get(), DELETE, (broker, timeout) ->
                BrokerRotation.await(connections.send(broker.id(), request, DeleteTopicsResponse.class, timeout))).data();
        Map<Uuid, Errors> errors = new LinkedHashMap<>();
        topicIds.forEach(id -> errors.put(id, Errors.UNKNOWN_SERVER_ERROR));
        for (DeleteTopicsResponseData.DeletableTopicResult result : answer.responses()) {
            if (errors.containsKey(result.topicId())) {
                errors.put(result.topicId(), Errors.forCode(result.errorCode()));
            }
        }
        return errors;
    }

    /** The names and ids of the topics whose name starts with {@code prefix}, as a live broker's metadata has them. */
    public Map<String, Uuid> topicsNamed(String prefix) {
        MetadataResponse answer = rotation.ask(liveBrokers.get(), "list topics", (broker, timeout) ->
                BrokerRotation.await(connections.send(broker.id(), MetadataRequest.Builder.allTopics(),
                        MetadataResponse.class, timeout)));
        Map<String, Uuid> topics = new LinkedHashMap<>();
        answer.data().topics().forEach(t -> {
            if (t.name() != null && t.name().startsWith(prefix) && t.errorCode() == Errors.NONE.code()) {
                topics.put(t.name(), t.topicId());
            }
        });
        return topics;
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
            String permission = doing.equals(CREATE) || doing.equals(DELETE)
                    ? "CREATE, DELETE and DESCRIBE on the topics prefixed " + RunLock.LOCK_TOPIC
                    : "ALTER on the cluster";
            return Optional.of(error.name() + ": the tool's principal needs " + permission + " to " + doing
                    + " (see README Permissions)");
        }
        return Optional.of(error.exception(message).getMessage());
    }
}
