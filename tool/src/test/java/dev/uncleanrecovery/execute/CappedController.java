// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import dev.uncleanrecovery.cluster.ClusterSnapshot;
import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.connect.BrokerState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData.ReassignablePartitionResponse;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData.ReassignableTopicResponse;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.ElectLeadersResponseData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.AlterPartitionReassignmentsRequest;
import org.apache.kafka.common.requests.AlterPartitionReassignmentsResponse;
import org.apache.kafka.common.requests.CreateTopicsRequest;
import org.apache.kafka.common.requests.CreateTopicsResponse;
import org.apache.kafka.common.requests.DeleteTopicsRequest;
import org.apache.kafka.common.requests.DeleteTopicsResponse;
import org.apache.kafka.common.requests.ElectLeadersRequest;
import org.apache.kafka.common.requests.ElectLeadersResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;

/**
 * A KRaft controller behind a live broker, in memory, for the tool's controller writes: it applies reorders and
 * elections to its partitions (brokers 2 and 3 live, 1 fenced), reads them back through {@link #reader()}, and records
 * every request it gets. It refuses what Kafka 4.4.0's refuses: a write of more than 10,000 records
 * (POLICY_VIOLATION), and fails on an election of exactly 10,000 (its empty second batch): no answer.
 */
final class CappedController implements ControllerCalls.Channel, NativeElector.Exchange {

    static final int MAX_RECORDS_PER_USER_OP = 10_000;
    private static final List<BrokerState> BROKERS = List.of(new BrokerState(1, "h", 1, null, true),
            new BrokerState(2, "h", 2, null, false), new BrokerState(3, "h", 3, null, false));
    private static final Set<Integer> LIVE = Set.of(2, 3);

    /** One request the controller got: its API and the partitions (or topics) it names, in order. */
    record Write(String api, List<String> names) {
    }

    private final Map<TopicPartition, TopicPartitionState> partitions = new ConcurrentHashMap<>();
    private final Map<String, Uuid> topics = new ConcurrentHashMap<>();
    final List<Write> writes = new CopyOnWriteArrayList<>();
    /** Fails the request it is given (the controller or the broker gone): no answer at all. */
    private volatile Predicate<Write> failing = w -> false;

    void put(TopicPartitionState state) {
        partitions.put(state.topicPartition(), state);
    }

    TopicPartitionState state(TopicPartition tp) {
        return partitions.get(tp);
    }

    void failWhen(Predicate<Write> which) {
        failing = which;
    }

    /** The controller's writes through the live brokers, with the run's request timeout. */
    ControllerCalls calls() {
        return new ControllerCalls(this, Duration.ofSeconds(30));
    }

    PartitionStateReader reader() {
        return asked -> new ClusterSnapshot("cluster", 1000, BROKERS, (short) 1,
                asked.stream().map(partitions::get).filter(Objects::nonNull).toList(), Map.of(), Set.of());
    }

    List<Write> writes(String api) {
        return writes.stream().filter(w -> w.api().equals(api)).toList();
    }

    @Override
    public <R extends AbstractResponse> R ask(String doing, AbstractRequest.Builder<?> builder, Class<R> answer) {
        AbstractRequest request = builder.build();
        AbstractResponse response;
        if (request instanceof AlterPartitionReassignmentsRequest r) {
            response = reassign(r);
        } else if (request instanceof ElectLeadersRequest r) {
            response = electUnclean(r);
        } else if (request instanceof CreateTopicsRequest r) {
            response = createTopics(r);
        } else if (request instanceof DeleteTopicsRequest r) {
            response = deleteTopics(r);
        } else if (request instanceof MetadataRequest) {
            MetadataResponseData data = new MetadataResponseData();
            topics.forEach((name, id) -> data.topics().add(new MetadataResponseData.MetadataResponseTopic()
                    .setName(name).setTopicId(id).setErrorCode(Errors.NONE.code())));
            response = new MetadataResponse(data, (short) 12);
        } else {
            throw new IllegalArgumentException("not a request this controller answers: " + request.apiKey());
        }
        return answer.cast(response);
    }

    private Write received(String api, List<String> names) {
        Write write = new Write(api, names);
        writes.add(write);
        if (failing.test(write)) {
            throw new IllegalStateException("no broker answered " + api);
        }
        return write;
    }

    private AlterPartitionReassignmentsResponse reassign(AlterPartitionReassignmentsRequest request) {
        Map<TopicPartition, List<Integer>> orders = new LinkedHashMap<>();
        request.data().topics().forEach(t -> t.partitions().forEach(p -> orders.put(
                new TopicPartition(t.name(), p.partitionIndex()), p.replicas())));
        received("AlterPartitionReassignments", orders.keySet().stream().map(TopicPartition::toString).toList());
        AlterPartitionReassignmentsResponseData data = new AlterPartitionReassignmentsResponseData();
        if (orders.size() > MAX_RECORDS_PER_USER_OP) {
            return new AlterPartitionReassignmentsResponse(data.setErrorCode(Errors.POLICY_VIOLATION.code()));
        }
        Map<String, ReassignableTopicResponse> byTopic = new LinkedHashMap<>();
        orders.forEach((tp, order) -> {
            TopicPartitionState now = partitions.get(tp);
            Errors error = now == null ? Errors.UNKNOWN_TOPIC_OR_PARTITION
                    : Set.copyOf(now.replicas()).equals(Set.copyOf(order)) ? Errors.NONE : Errors.INVALID_REPLICA_ASSIGNMENT;
            if (error == Errors.NONE) {
                partitions.put(tp, now.withReplicas(order)); // the same set in another order: applied at once
            }
            byTopic.computeIfAbsent(tp.topic(), t -> new ReassignableTopicResponse().setName(t)).partitions()
                    .add(new ReassignablePartitionResponse().setPartitionIndex(tp.partition()).setErrorCode(error.code()));
        });
        return new AlterPartitionReassignmentsResponse(data.setResponses(new ArrayList<>(byTopic.values())));
    }

    private ElectLeadersResponse electUnclean(ElectLeadersRequest request) {
        List<TopicPartition> asked = new ArrayList<>();
        request.data().topicPartitions().forEach(t -> t.partitions().forEach(p -> asked.add(new TopicPartition(t.topic(), p))));
        received("ElectLeaders", asked.stream().map(TopicPartition::toString).toList());
        checkElectionSize(asked.size());
        ElectLeadersResponseData data = new ElectLeadersResponseData();
        if (asked.size() > MAX_RECORDS_PER_USER_OP) {
            return new ElectLeadersResponse(data.setErrorCode(Errors.POLICY_VIOLATION.code()));
        }
        Map<String, ElectLeadersResponseData.ReplicaElectionResult> byTopic = new LinkedHashMap<>();
        for (TopicPartition tp : asked) {
            // UNCLEAN elects the first live replica in assignment order
            Errors error = elect(tp, partitions.get(tp).replicas().stream().filter(LIVE::contains).findFirst().orElse(-1));
            byTopic.computeIfAbsent(tp.topic(), t -> new ElectLeadersResponseData.ReplicaElectionResult().setTopic(t))
                    .partitionResult().add(new ElectLeadersResponseData.PartitionResult().setPartitionId(tp.partition())
                            .setErrorCode(error.code()));
        }
        return new ElectLeadersResponse(data.setReplicaElectionResults(new ArrayList<>(byTopic.values())));
    }

    /** ElectLeaders v3 with DesignatedLeaders, as the kafka-patch agent's controller answers it. */
    @Override
    public CompletableFuture<dev.uncleanrecovery.wire.ElectLeadersResponse> send(int brokerId,
            dev.uncleanrecovery.wire.ElectLeadersRequest request, Duration timeout) {
        List<String> asked = new ArrayList<>();
        request.topicPartitions().forEach(t -> t.partitions().forEach(p -> asked.add(t.topic() + "-" + p)));
        try {
            received("ElectLeaders v3", asked);
            checkElectionSize(asked.size());
        } catch (IllegalStateException e) {
            return CompletableFuture.failedFuture(new dev.uncleanrecovery.connect.BrokerRequestException(brokerId, true,
                    e.getMessage()));
        }
        if (asked.size() > MAX_RECORDS_PER_USER_OP) {
            return CompletableFuture.completedFuture(new dev.uncleanrecovery.wire.ElectLeadersResponse(0,
                    Errors.POLICY_VIOLATION.code(), List.of()));
        }
        List<dev.uncleanrecovery.wire.ElectLeadersResponse.ReplicaElectionResult> results = new ArrayList<>();
        for (dev.uncleanrecovery.wire.ElectLeadersRequest.TopicPartitions t : request.topicPartitions()) {
            List<dev.uncleanrecovery.wire.ElectLeadersResponse.PartitionResult> elected = new ArrayList<>();
            for (int i = 0; i < t.partitions().size(); i++) {
                Errors error = elect(new TopicPartition(t.topic(), t.partitions().get(i)), t.designatedLeaders().get(i));
                elected.add(new dev.uncleanrecovery.wire.ElectLeadersResponse.PartitionResult(t.partitions().get(i),
                        error.code(), null));
            }
            results.add(new dev.uncleanrecovery.wire.ElectLeadersResponse.ReplicaElectionResult(t.topic(), elected));
        }
        return CompletableFuture.completedFuture(new dev.uncleanrecovery.wire.ElectLeadersResponse(0, (short) 0, results));
    }

    /** Kafka 4.4.0 appends an election's records in batches of 10,000, then an empty one, which fails the controller. */
    private static void checkElectionSize(int records) {
        if (records == MAX_RECORDS_PER_USER_OP) {
            throw new IllegalStateException("the controller resigned: Append failed because there are no records");
        }
    }

    private Errors elect(TopicPartition tp, int leader) {
        TopicPartitionState now = partitions.get(tp);
        if (now == null) {
            return Errors.UNKNOWN_TOPIC_OR_PARTITION;
        }
        if (!now.isOffline()) {
            return Errors.ELECTION_NOT_NEEDED;
        }
        if (!LIVE.contains(leader) || !now.replicas().contains(leader)) {
            return Errors.ELIGIBLE_LEADERS_NOT_AVAILABLE;
        }
        partitions.put(tp, new TopicPartitionState(tp.topic(), now.topicId(), tp.partition(), leader, now.leaderEpoch() + 1,
                now.replicas(), List.of(leader), List.of(), List.of(), now.offlineReplicas()));
        return Errors.NONE;
    }

    private CreateTopicsResponse createTopics(CreateTopicsRequest request) {
        List<String> names = new ArrayList<>();
        // a topic record and a record per partition
        request.data().topics().forEach(t -> {
            for (int p = 0; p <= t.numPartitions(); p++) {
                names.add(t.name() + (p == 0 ? "" : "-" + (p - 1)));
            }
        });
        received("CreateTopics", names);
        CreateTopicsResponseData data = new CreateTopicsResponseData();
        request.data().topics().forEach(t -> {
            Uuid id = topics.containsKey(t.name()) ? null : Uuid.randomUuid();
            if (id != null) {
                topics.put(t.name(), id);
            }
            data.topics().add(new CreateTopicsResponseData.CreatableTopicResult().setName(t.name())
                    .setTopicId(id == null ? Uuid.ZERO_UUID : id)
                    .setErrorCode((id == null ? Errors.TOPIC_ALREADY_EXISTS : Errors.NONE).code()));
        });
        return new CreateTopicsResponse(data);
    }

    private DeleteTopicsResponse deleteTopics(DeleteTopicsRequest request) {
        received("DeleteTopics", request.data().topics().stream().map(t -> t.topicId().toString()).toList());
        DeleteTopicsResponseData data = new DeleteTopicsResponseData();
        request.data().topics().forEach(t -> {
            boolean existed = topics.values().removeIf(t.topicId()::equals);
            data.responses().add(new DeleteTopicsResponseData.DeletableTopicResult().setTopicId(t.topicId())
                    .setErrorCode((existed ? Errors.NONE : Errors.UNKNOWN_TOPIC_ID).code()));
        });
        return new DeleteTopicsResponse(data);
    }
}
