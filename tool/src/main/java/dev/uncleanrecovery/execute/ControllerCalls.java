// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import dev.uncleanrecovery.cluster.ClusterDiscovery;
import dev.uncleanrecovery.connect.BrokerConnections;
import dev.uncleanrecovery.connect.BrokerRotation;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.AlterPartitionReassignmentsRequest;
import org.apache.kafka.common.requests.AlterPartitionReassignmentsResponse;
import org.apache.kafka.common.requests.ElectLeadersRequest;
import org.apache.kafka.common.requests.ElectLeadersResponse;

/**
 * Every write the tool makes to the controller — the stock elector's AlterPartitionReassignments (reorder and restore)
 * and ElectLeaders UNCLEAN, the run lock's CreateTopics and DeleteTopics — sent straight to one live broker, which
 * forwards it to the controller: what Admin does in KRaft, where the "controller" its metadata names is a broker.
 * Over the tool's open broker connections, a request leaves at once; Admin would first be created and bootstrap its
 * own (a new connection, ApiVersions, Metadata) before the first change.
 * A broker that does not answer is skipped like in every other read ({@link BrokerRotation}); a request it may have
 * forwarded is then sent again through another broker, as Admin retries too: a reorder to the same order is a no-op,
 * and an election already done answers ELECTION_NOT_NEEDED for that partition.
 * Every write is split by {@link #requests}, the native elector's ElectLeaders v3 too.
 */
public final class ControllerCalls {

    public static final String PARTITIONS_PER_REQUEST_PROPERTY = "kafka.unclean.recovery.partitions.per.controller.request";

    /**
     * Each write here makes at most one metadata record per partition (or topic) it names. The controller refuses an
     * operation of more than 10,000 records (QuorumController.MAX_RECORDS_PER_USER_OP), and an election of exactly
     * 10,000 — appended in batches of 10,000, then an empty one — fails ("Append failed because there are no records")
     * and makes it resign (Kafka 4.4.0, ControllerCapScaleClusterTest): 9,999, for every write alike. Smaller on demand
     * ({@value #PARTITIONS_PER_REQUEST_PROPERTY}).
     */
    public static final int MAX_PARTITIONS_PER_REQUEST = Math.max(1, Math.min(9_999,
            Integer.getInteger(PARTITIONS_PER_REQUEST_PROPERTY, 9_999)));

    private static final String REORDER = "reorder replicas";
    private static final String ELECT = "elect leaders";
    private static final String CREATE = "create the run lock";
    private static final String DELETE = "remove the run lock";

    /** One request to the controller through a live broker, and its answer (a refusal is an answer). */
    interface Channel {
        /**
         * @param doing what the request does, for messages ("reorder replicas")
         * @throws RuntimeException when no broker answered (see {@link BrokerRotation#ask})
         */
        <R extends AbstractResponse> R ask(String doing, AbstractRequest.Builder<?> request, Class<R> answer);
    }

    private final Channel channel;
    private final Duration requestTimeout;

    /**
     * Writes through the live brokers of the discovery's last read (each forwards them to the controller), over the
     * connections it opened.
     */
    public static ControllerCalls through(ClusterDiscovery discovery) {
        BrokerConnections connections = discovery.connections();
        BrokerRotation rotation = discovery.rotation();
        Channel channel = new Channel() {
            @Override
            public <R extends AbstractResponse> R ask(String doing, AbstractRequest.Builder<?> request, Class<R> answer) {
                R response = askControllerFirst(doing, request, answer);
                if (response.errorCounts().containsKey(Errors.NOT_CONTROLLER)) {
                    // ZooKeeper mode: the controller moved since the last read, and a broker that is not the
                    // controller applies nothing of such a request. Ask who it is now, and send it there.
                    discovery.brokers();
                    response = askControllerFirst(doing, request, answer);
                }
                return response;
            }

            private <R extends AbstractResponse> R askControllerFirst(String doing, AbstractRequest.Builder<?> request,
                                                                      Class<R> answer) {
                return rotation.askInGivenOrder(discovery.liveBrokersControllerFirst(), doing, (broker, timeout) ->
                        BrokerRotation.await(connections.send(broker.id(), request, answer, timeout)));
            }
        };
        return new ControllerCalls(channel, discovery.requestTimeout());
    }

    ControllerCalls(Channel channel, Duration requestTimeout) {
        this.channel = channel;
        this.requestTimeout = requestTimeout;
    }

    /**
     * The partitions split into requests of at most {@link #MAX_PARTITIONS_PER_REQUEST}, in order: the one place
     * every controller write is cut to the controller's cap.
     */
    public static <T> List<List<T>> requests(List<T> partitions) {
        List<List<T>> requests = new ArrayList<>();
        for (int i = 0; i < partitions.size(); i += MAX_PARTITIONS_PER_REQUEST) {
            requests.add(partitions.subList(i, Math.min(partitions.size(), i + MAX_PARTITIONS_PER_REQUEST)));
        }
        return requests;
    }

    /**
     * Sets each partition's replica list (the same replicas, in another order: nothing moves), in as many requests
     * as {@link #requests} makes, one after the other. A request that gets no answer ends the call with its exception:
     * what the earlier ones applied is for the caller to read back.
     *
     * @return the partitions the controller refused, with its refusal (Kafka's message)
     */
    public Map<TopicPartition, String> reassign(Map<TopicPartition, List<Integer>> replicas) {
        Map<TopicPartition, String> refused = new LinkedHashMap<>();
        for (List<TopicPartition> request : requests(new ArrayList<>(replicas.keySet()))) {
            Map<String, List<ReassignablePartition>> byTopic = new LinkedHashMap<>();
            request.forEach(tp -> byTopic.computeIfAbsent(tp.topic(), t -> new ArrayList<>())
                    .add(new ReassignablePartition().setPartitionIndex(tp.partition()).setReplicas(replicas.get(tp))));
            AlterPartitionReassignmentsRequestData data = new AlterPartitionReassignmentsRequestData()
                    .setTimeoutMs((int) requestTimeout.toMillis())
                    .setTopics(byTopic.entrySet().stream()
                            .map(e -> new ReassignableTopic().setName(e.getKey()).setPartitions(e.getValue())).toList());
            AlterPartitionReassignmentsResponseData answer = channel.ask(REORDER,
                    new AlterPartitionReassignmentsRequest.Builder(data), AlterPartitionReassignmentsResponse.class).data();
            Map<TopicPartition, Optional<String>> answered = new LinkedHashMap<>();
            answer.responses().forEach(topic -> topic.partitions().forEach(p -> answered.put(
                    new TopicPartition(topic.name(), p.partitionIndex()), refusal(p.errorCode(), p.errorMessage(), REORDER))));
            refusals(request, answered, refusal(answer.errorCode(), answer.errorMessage(), REORDER), refused);
        }
        return refused;
    }

    /**
     * ElectLeaders UNCLEAN, in as many requests as {@link #requests} makes, one after the other; like {@link #reassign}.
     *
     * @return the partitions the controller refused, with its refusal (Kafka's message)
     */
    public Map<TopicPartition, String> electUnclean(List<TopicPartition> partitions) {
        Map<TopicPartition, String> refused = new LinkedHashMap<>();
        for (List<TopicPartition> request : requests(partitions)) {
            ElectLeadersResponseData answer = channel.ask(ELECT, new ElectLeadersRequest.Builder(ElectionType.UNCLEAN,
                    request, (int) requestTimeout.toMillis()), ElectLeadersResponse.class).data();
            Map<TopicPartition, Optional<String>> answered = new LinkedHashMap<>();
            answer.replicaElectionResults().forEach(topic -> topic.partitionResult().forEach(p -> answered.put(
                    new TopicPartition(topic.topic(), p.partitionId()), refusal(p.errorCode(), p.errorMessage(), ELECT))));
            refusals(request, answered, refusal(answer.errorCode(), null, ELECT), refused);
        }
        return refused;
    }

    /**
     * Creates a topic of one partition on one replica (the controller places it on a live broker). CreateTopics is
     * Kafka's one compare-and-set a client has: of two requests for the same name exactly one succeeds, the other is
     * answered TOPIC_ALREADY_EXISTS. It writes a topic and a partition record, far below the cap.
     *
     * @return the new topic's id, or the controller's refusal
     */
    public TopicCreation createTopic(String name) {
        CreatableTopicCollection topics = new CreatableTopicCollection();
        topics.add(new CreatableTopic().setName(name).setNumPartitions(1).setReplicationFactor((short) 1));
        CreateTopicsRequest.Builder request = new CreateTopicsRequest.Builder(new CreateTopicsRequestData()
                .setTopics(topics).setTimeoutMs((int) requestTimeout.toMillis()));
        CreateTopicsResponseData answer = channel.ask(CREATE, request, CreateTopicsResponse.class).data();
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
        Map<Uuid, Errors> errors = new LinkedHashMap<>();
        topicIds.forEach(id -> errors.put(id, Errors.UNKNOWN_SERVER_ERROR));
        for (List<Uuid> request : requests(topicIds)) {
            DeleteTopicsRequestData data = new DeleteTopicsRequestData().setTimeoutMs((int) requestTimeout.toMillis());
            request.forEach(id -> data.topics().add(new DeleteTopicState().setTopicId(id)));
            DeleteTopicsResponseData answer = channel.ask(DELETE, new DeleteTopicsRequest.Builder(data),
                    DeleteTopicsResponse.class).data();
            for (DeleteTopicsResponseData.DeletableTopicResult result : answer.responses()) {
                if (errors.containsKey(result.topicId())) {
                    errors.put(result.topicId(), Errors.forCode(result.errorCode()));
                }
            }
        }
        return errors;
    }

    /** The names and ids of the topics whose name starts with {@code prefix}, as a live broker's metadata has them. */
    public Map<String, Uuid> topicsNamed(String prefix) {
        MetadataResponse answer = channel.ask("list topics", MetadataRequest.Builder.allTopics(), MetadataResponse.class);
        Map<String, Uuid> topics = new LinkedHashMap<>();
        answer.data().topics().forEach(t -> {
            if (t.name() != null && t.name().startsWith(prefix) && t.errorCode() == Errors.NONE.code()) {
                topics.put(t.name(), t.topicId());
            }
        });
        return topics;
    }

    /**
     * Adds to {@code refused} every asked partition the controller did not do: a refusal of the whole request (not
     * authorized, say) applies to each, and a partition the controller did not mention is refused too — unanswered is
     * not done.
     */
    private static void refusals(List<TopicPartition> asked, Map<TopicPartition, Optional<String>> answered,
                                 Optional<String> wholeRequest, Map<TopicPartition, String> refused) {
        for (TopicPartition tp : asked) {
            Optional<String> refusal = wholeRequest.isPresent() ? wholeRequest
                    : answered.getOrDefault(tp, Optional.of("the controller's answer does not mention this partition"));
            refusal.ifPresent(why -> refused.put(tp, why));
        }
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
