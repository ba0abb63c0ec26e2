// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.uncleanrecovery.cluster.ClusterSnapshot;
import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.connect.BrokerRequestException;
import dev.uncleanrecovery.connect.BrokerState;
import dev.uncleanrecovery.wire.ElectLeadersRequest;
import dev.uncleanrecovery.wire.ElectLeadersResponse.PartitionResult;
import dev.uncleanrecovery.wire.ElectLeadersResponse.ReplicaElectionResult;
import dev.uncleanrecovery.wire.ElectLeadersResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * The native elector against a scripted controller: what it sends, and how answers and the partition state
 * read afterwards become outcomes. Offline partitions have replicas [1,3,2], leader epoch 4, designated 2.
 */
class NativeElectorTest {

    private static final int EPOCH = 4;

    /** The partitions as the metadata shows them; the scripted controller changes it. */
    private final Map<TopicPartition, TopicPartitionState> metadata = new ConcurrentHashMap<>();
    private final List<Integer> sentThrough = new CopyOnWriteArrayList<>();
    private final List<ElectLeadersRequest> requests = new CopyOnWriteArrayList<>();

    private static TopicPartitionState state(TopicPartition tp, int leader, int epoch) {
        return new TopicPartitionState(tp.topic(), Uuid.ZERO_UUID, tp.partition(), leader, epoch, List.of(1, 3, 2),
                leader < 0 ? List.of() : List.of(leader), List.of(), List.of(1), List.of(1));
    }

    private static ElectionTarget target(TopicPartition tp) {
        return new ElectionTarget(tp, 2, EPOCH, List.of(1, 3, 2), List.of(2, 3, 1), 100, 0);
    }

    /**
     * The read the targets were validated against: deliberately empty. The native elector must read the partitions
     * again right before electing, so it cannot depend on this.
     */
    private static final ClusterSnapshot VALIDATED_ELSEWHERE =
            new ClusterSnapshot("cluster", 1000, List.of(), (short) 1, List.of(), Map.of(), Set.of());

    private PartitionStateReader reader() {
        return partitions -> new ClusterSnapshot("cluster", 1000,
                List.of(new BrokerState(1, "h", 1, null, true), new BrokerState(2, "h", 2, null, false),
                        new BrokerState(3, "h", 3, null, false)), (short) 1,
                partitions.stream().map(metadata::get).filter(java.util.Objects::nonNull).toList(), Map.of(), Set.of());
    }

    /** orders-0 … orders-(count - 1), all offline, each a target designating broker 2. */
    private List<ElectionTarget> offlineOrders(int count) {
        List<ElectionTarget> targets = new ArrayList<>();
        for (int p = 0; p < count; p++) {
            TopicPartition tp = new TopicPartition("orders", p);
            offline(tp);
            targets.add(target(tp));
        }
        return targets;
    }

    private void offline(TopicPartition... partitions) {
        for (TopicPartition tp : partitions) {
            metadata.put(tp, state(tp, -1, EPOCH));
        }
    }

    /** A controller that elects every designated leader except in {@code refuse}, answering them with the error. */
    private NativeElector.Exchange controller(Map<TopicPartition, Errors> refuse) {
        return (broker, request, timeout) -> {
            sentThrough.add(broker);
            requests.add(request);
            List<ReplicaElectionResult> results = new ArrayList<>();
            for (ElectLeadersRequest.TopicPartitions topic : request.topicPartitions()) {
                List<PartitionResult> partitions = new ArrayList<>();
                for (int i = 0; i < topic.partitions().size(); i++) {
                    TopicPartition tp = new TopicPartition(topic.topic(), topic.partitions().get(i));
                    Errors error = refuse.getOrDefault(tp, Errors.NONE);
                    if (error == Errors.NONE) {
                        metadata.put(tp, state(tp, topic.designatedLeaders().get(i), EPOCH + 1));
                    }
                    partitions.add(new PartitionResult(tp.partition(), error.code(),
                            error == Errors.NONE ? null : "designated replica 2 is not in the replica set's live brokers"));
                }
                results.add(new ReplicaElectionResult(topic.topic(), partitions));
            }
            return CompletableFuture.completedFuture(new ElectLeadersResponse(0, (short) 0, results));
        };
    }

    private NativeElector elector(List<Integer> via, NativeElector.Exchange exchange) {
        return new NativeElector(via, exchange, id -> "broker " + id, reader(), Duration.ofSeconds(2), s -> { });
    }

    @Test
    void a_failing_gate_before_the_first_change_sends_no_election() {
        TopicPartition orders0 = new TopicPartition("orders", 0);
        offline(orders0);

        assertThatThrownBy(() -> elector(List.of(2), controller(Map.of())).elect(List.of(target(orders0)),
                VALIDATED_ELSEWHERE, () -> {
                    throw new IllegalStateException("the plan could not be written");
                })).hasMessage("the plan could not be written");
        assertThat(requests).isEmpty();
    }

    @Test
    void the_designated_replica_is_elected_with_one_unclean_v3_request_and_verified() {
        TopicPartition orders0 = new TopicPartition("orders", 0);
        TopicPartition payments3 = new TopicPartition("payments", 3);
        offline(orders0, payments3);

        List<PartitionOutcome> outcomes = elector(List.of(2, 3), controller(Map.of()))
                .elect(List.of(target(orders0), target(payments3)), VALIDATED_ELSEWHERE);

        assertThat(outcomes).extracting(PartitionOutcome::outcome).containsExactly(Outcome.ELECTED, Outcome.ELECTED);
        assertThat(outcomes.get(0).detail()).isEqualTo("leader 2, leader epoch 4 -> 5");
        assertThat(requests).singleElement().satisfies(r -> {
            assertThat(r.electionType()).isEqualTo(ElectionType.UNCLEAN.value);
            assertThat(r.hasDesignatedLeaders()).isTrue();
            assertThat(r.topicPartitions()).extracting(ElectLeadersRequest.TopicPartitions::topic)
                    .containsExactly("orders", "payments");
            assertThat(r.topicPartitions()).allSatisfy(t -> assertThat(t.designatedLeaders()).containsExactly(2));
        });
        assertThat(sentThrough).containsExactly(2);
    }

    @Test
    void a_partition_the_controller_refuses_is_refused_with_its_message_and_the_others_are_elected() {
        TopicPartition orders0 = new TopicPartition("orders", 0);
        TopicPartition orders1 = new TopicPartition("orders", 1);
        offline(orders0, orders1);

        List<PartitionOutcome> outcomes = elector(List.of(2), controller(Map.of(orders1, Errors.INELIGIBLE_REPLICA)))
                .elect(List.of(target(orders0), target(orders1)), VALIDATED_ELSEWHERE);

        assertThat(outcomes).extracting(PartitionOutcome::outcome).containsExactly(Outcome.ELECTED, Outcome.REFUSED);
        assertThat(outcomes.get(1).detail()).isEqualTo("the controller refused the designated election: INELIGIBLE_REPLICA:"
                + " designated replica 2 is not in the replica set's live brokers; nothing changed");
        assertThat(metadata.get(orders1).isOffline()).isTrue();
    }

    @Test
    void no_answer_through_one_broker_is_sent_through_the_next() {
        TopicPartition orders0 = new TopicPartition("orders", 0);
        offline(orders0);
        NativeElector.Exchange healthy = controller(Map.of());
        NativeElector.Exchange firstSilent = (broker, request, timeout) -> broker == 2
                ? CompletableFuture.failedFuture(new BrokerRequestException(2, true, "broker 2 did not answer ElectLeaders"))
                : healthy.send(broker, request, timeout);

        List<PartitionOutcome> outcomes = elector(List.of(2, 3), firstSilent).elect(List.of(target(orders0)), VALIDATED_ELSEWHERE);

        assertThat(outcomes).extracting(PartitionOutcome::outcome).containsExactly(Outcome.ELECTED);
        assertThat(sentThrough).containsExactly(3);
    }

    @Test
    void requests_under_the_cap_are_spread_over_the_brokers_in_turn() {
        // Each broker forwards one request at a time to the controller: spread, they are forwarded side by side.
        List<ElectionTarget> targets = offlineOrders(25_000);

        List<PartitionOutcome> outcomes = elector(List.of(2, 3), controller(Map.of())).elect(targets, VALIDATED_ELSEWHERE);

        assertThat(outcomes).hasSize(25_000).allSatisfy(o -> assertThat(o.outcome()).isEqualTo(Outcome.ELECTED));
        assertThat(requests).extracting(r -> r.topicPartitions().get(0).partitions().size())
                .containsExactly(9_999, 9_999, 5_002);
        assertThat(sentThrough).containsExactly(2, 3, 2);
    }

    @Test
    void a_request_whose_broker_does_not_answer_goes_round_to_the_others() {
        List<ElectionTarget> targets = offlineOrders(19_998);
        NativeElector.Exchange healthy = controller(Map.of());
        List<Integer> asked = new CopyOnWriteArrayList<>();
        NativeElector.Exchange thirdSilent = (broker, request, timeout) -> {
            asked.add(broker);
            return broker == 3
                    ? CompletableFuture.failedFuture(new BrokerRequestException(3, true, "broker 3 did not answer ElectLeaders"))
                    : healthy.send(broker, request, timeout);
        };

        List<PartitionOutcome> outcomes = elector(List.of(2, 3), thirdSilent).elect(targets, VALIDATED_ELSEWHERE);

        assertThat(outcomes).allSatisfy(o -> assertThat(o.outcome()).isEqualTo(Outcome.ELECTED));
        // The second request went to 3 first, then round to 2.
        assertThat(asked).containsExactly(2, 3, 2);
        assertThat(sentThrough).containsExactly(2, 2);
    }

    @Test
    void no_answer_at_all_fails_and_says_the_partition_is_still_offline() {
        TopicPartition orders0 = new TopicPartition("orders", 0);
        offline(orders0);

        List<PartitionOutcome> outcomes = elector(List.of(2), (broker, request, timeout) -> CompletableFuture.failedFuture(
                new BrokerRequestException(2, true, "broker 2 closed the connection"))).elect(List.of(target(orders0)), VALIDATED_ELSEWHERE);

        assertThat(outcomes).singleElement().satisfies(o -> {
            assertThat(o.outcome()).isEqualTo(Outcome.FAILED);
            assertThat(o.detail()).contains("ElectLeaders v3 got no answer (broker 2 closed the connection)",
                    "still offline");
        });
    }

    @Test
    void a_partition_led_again_before_the_election_is_not_sent() {
        TopicPartition orders0 = new TopicPartition("orders", 0);
        TopicPartition orders1 = new TopicPartition("orders", 1);
        offline(orders0);
        metadata.put(orders1, state(orders1, 3, EPOCH + 1));

        List<PartitionOutcome> outcomes = elector(List.of(2), controller(Map.of()))
                .elect(List.of(target(orders0), target(orders1)), VALIDATED_ELSEWHERE);

        assertThat(outcomes).extracting(PartitionOutcome::outcome).containsExactly(Outcome.ELECTED, Outcome.REFUSED);
        assertThat(outcomes.get(1).detail()).contains("got a leader before the election (3, epoch 5)");
        assertThat(requests).singleElement().satisfies(r -> assertThat(r.topicPartitions().get(0).partitions())
                .containsExactly(0));
    }

    @Test
    void another_leader_after_the_election_is_reported_loudly() {
        TopicPartition orders0 = new TopicPartition("orders", 0);
        offline(orders0);
        NativeElector.Exchange electsThree = (broker, request, timeout) -> {
            metadata.put(orders0, state(orders0, 3, EPOCH + 1));
            return CompletableFuture.completedFuture(new ElectLeadersResponse(0, (short) 0, List.of(
                    new ReplicaElectionResult("orders", List.of(new PartitionResult(0, (short) 0, null))))));
        };

        List<PartitionOutcome> outcomes = elector(List.of(2), electsThree).elect(List.of(target(orders0)), VALIDATED_ELSEWHERE);

        assertThat(outcomes).singleElement().satisfies(o -> {
            assertThat(o.outcome()).isEqualTo(Outcome.ELECTED_OTHER);
            assertThat(o.detail()).contains("THE CONTROLLER ELECTED 3, NOT the designated 2");
        });
    }

    @Test
    void up_to_9999_partitions_go_in_one_request() {
        List<PartitionOutcome> outcomes = elector(List.of(2), controller(Map.of()))
                .elect(offlineOrders(9_999), VALIDATED_ELSEWHERE);

        assertThat(outcomes).hasSize(9_999).allSatisfy(o -> assertThat(o.outcome()).isEqualTo(Outcome.ELECTED));
        assertThat(requests).singleElement()
                .satisfies(r -> assertThat(r.topicPartitions().get(0).partitions()).hasSize(9_999));
    }

    @Test
    void says_it_is_native_and_through_which_broker() {
        assertThat(elector(List.of(2, 3), controller(Map.of())).describe())
                .startsWith("native: ElectLeaders v3 with DesignatedLeaders").contains("through broker 2");
    }
}
