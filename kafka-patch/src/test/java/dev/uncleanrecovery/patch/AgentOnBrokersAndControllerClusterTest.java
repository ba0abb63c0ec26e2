// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.patch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.LastReplicaStandingOutage;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.NodeRole;
import dev.uncleanrecovery.localcluster.PartitionView;
import dev.uncleanrecovery.wire.ElectLeaders;
import dev.uncleanrecovery.wire.ElectLeadersRequest;
import dev.uncleanrecovery.wire.ElectLeadersResponse;
import dev.uncleanrecovery.wire.GetReplicaLogInfo;
import dev.uncleanrecovery.wire.GetReplicaLogInfoRequest;
import dev.uncleanrecovery.wire.GetReplicaLogInfoResponse.PartitionLogInfo;
import dev.uncleanrecovery.wire.GetReplicaLogInfoResponse;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The companion agent on every node of a real Kafka cluster (4.4.0 here, each other supported line in a subclass),
 * after KIP-966's "last replica standing" outage: partitions with replicas [1,3,2] are offline, broker 1 (the last
 * leader) is down, broker 2 holds the longer log and broker 3 the shorter one. Stock unclean election would pick 3,
 * the first acceptable replica in assignment order.
 */
@KafkaClusterTest(brokers = 3, patchAgentOn = {NodeRole.BROKER, NodeRole.CONTROLLER})
class AgentOnBrokersAndControllerClusterTest {

    private static final String TOPIC = "orders";
    private static final int PARTITIONS = 3;
    private static final long ACKED_BY_ALL = 40;
    private static final long ACKED_BY_LEADER_ONLY = 10;
    private static final Duration STATE_TIMEOUT = Duration.ofSeconds(60);

    private static LastReplicaStandingOutage.Result outage;
    private static Uuid topicId;

    @BeforeAll
    static void last_replica_standing(LocalKafkaCluster cluster) throws Exception {
        outage = LastReplicaStandingOutage.reproduce(cluster, TOPIC, PARTITIONS, ACKED_BY_ALL, ACKED_BY_LEADER_ONLY,
                step -> System.out.println("[outage] " + step));
        topicId = PatchedBrokers.topicId(cluster, TOPIC);
    }

    @Test
    void brokers_advertise_get_replica_log_info_v0_and_elect_leaders_v3_the_controller_only_elect_leaders_v3(
            LocalKafkaCluster cluster) throws Exception {
        try (PatchedBrokers brokers = PatchedBrokers.open(cluster, List.of(2, 3))) {
            for (int broker : List.of(2, 3)) {
                ApiVersionsResponseData versions = brokers.apiVersions(broker);
                assertThat(PatchedBrokers.range(versions, GetReplicaLogInfo.apiKey())).hasValueSatisfying(range -> {
                    assertThat(range.minVersion()).isZero();
                    assertThat(range.maxVersion()).isZero();
                });
                // forwardable: the broker advertises min(its own, the controller's) = 3 only with the agent on both
                assertThat(PatchedBrokers.range(versions, ApiKeys.ELECT_LEADERS.id)).hasValueSatisfying(range ->
                        assertThat(range.maxVersion()).isEqualTo((short) 3));
            }
        }
        try (PatchedBrokers controller = PatchedBrokers.openController(cluster)) {
            ApiVersionsResponseData versions = controller.apiVersions(cluster.controllers().firstId());
            assertThat(PatchedBrokers.range(versions, GetReplicaLogInfo.apiKey()).isPresent()).as("not on the controller listener").isFalse();
            assertThat(PatchedBrokers.range(versions, ApiKeys.ELECT_LEADERS.id)).hasValueSatisfying(range ->
                    assertThat(range.maxVersion()).isEqualTo((short) 3));
        }
        assertThat(cluster.nodes().logSinceLastStart(cluster.controllers().firstId()))
                .contains("[kafka-unclean-recovery-agent] Kafka " + cluster.kafkaVersion()
                        + ": GetReplicaLogInfo on api key " + GetReplicaLogInfo.apiKey());
    }

    @Test
    void offline_partition_followers_report_their_log_end_offsets_and_epochs(LocalKafkaCluster cluster) {
        TopicPartition orders0 = new TopicPartition(TOPIC, 0);
        assertThat(cluster.metadata().describePartition(orders0).isLeaderless()).isTrue();
        try (PatchedBrokers brokers = PatchedBrokers.open(cluster, List.of(2, 3))) {
            PartitionLogInfo longest = brokers.logInfo(LastReplicaStandingOutage.LONGEST_SURVIVOR, topicId, 0);
            PartitionLogInfo shortest = brokers.logInfo(LastReplicaStandingOutage.SHORTEST_SURVIVOR, topicId, 0);

            assertThat(longest.error()).isEqualTo(Errors.NONE);
            assertThat(shortest.error()).isEqualTo(Errors.NONE);
            assertThat(longest.logEndOffset()).isEqualTo(outage.survivorLogEndOffsets().get(LastReplicaStandingOutage.LONGEST_SURVIVOR));
            assertThat(shortest.logEndOffset()).isEqualTo(outage.survivorLogEndOffsets().get(LastReplicaStandingOutage.SHORTEST_SURVIVOR));
            // the same numbers stock ListOffsets -2 gives
            assertThat(longest.logEndOffset()).isEqualTo(brokers.logEndOffset(LastReplicaStandingOutage.LONGEST_SURVIVOR, orders0));
            // both wrote only under the first leader's epoch; metadata has moved on since (leader -1 bumps it)
            assertThat(longest.lastWrittenLeaderEpoch()).isEqualTo(0);
            assertThat(shortest.lastWrittenLeaderEpoch()).isEqualTo(0);
            assertThat(longest.currentLeaderEpoch()).isGreaterThan(longest.lastWrittenLeaderEpoch());
            assertThat(shortest.currentLeaderEpoch()).isEqualTo(longest.currentLeaderEpoch());

            GetReplicaLogInfoResponse whole = brokers.getReplicaLogInfo(2, new GetReplicaLogInfoRequest(List.of(
                    new GetReplicaLogInfoRequest.TopicPartitions(topicId, List.of(0, 1, 99)))));
            assertThat(whole.brokerEpoch()).isPositive();
            assertThat(whole.hasMoreData()).isFalse();
            assertThat(whole.topicPartitionLogInfoList().get(0).partitionLogInfo())
                    .extracting(PartitionLogInfo::partition, PartitionLogInfo::error)
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple(0, Errors.NONE),
                            org.assertj.core.groups.Tuple.tuple(1, Errors.NONE),
                            org.assertj.core.groups.Tuple.tuple(99, Errors.UNKNOWN_TOPIC_OR_PARTITION));
        }
    }

    @Test
    void unknown_topic_ids_fail_per_partition_and_more_than_1000_partitions_set_has_more_data(LocalKafkaCluster cluster) {
        Uuid unknown = Uuid.randomUuid();
        List<Integer> partitions = IntStream.range(0, 1001).boxed().toList();
        try (PatchedBrokers brokers = PatchedBrokers.open(cluster, List.of(2))) {
            GetReplicaLogInfoResponse response = brokers.getReplicaLogInfo(2, new GetReplicaLogInfoRequest(List.of(
                    new GetReplicaLogInfoRequest.TopicPartitions(topicId, List.of(0)),
                    new GetReplicaLogInfoRequest.TopicPartitions(unknown, partitions))));

            assertThat(response.hasMoreData()).isTrue();
            assertThat(response.topicPartitionLogInfoList()).hasSize(2);
            List<PartitionLogInfo> ofUnknown = response.topicPartitionLogInfoList().get(1).partitionLogInfo();
            assertThat(ofUnknown).hasSize(999); // 1 + 999 = the first 1000 partitions asked for
            assertThat(ofUnknown).allSatisfy(p -> assertThat(p.error()).isEqualTo(Errors.UNKNOWN_TOPIC_ID));
        }
    }

    @Test
    void designated_election_refuses_a_replica_outside_the_replica_set_or_fenced_and_elects_nobody(LocalKafkaCluster cluster) {
        TopicPartition orders1 = new TopicPartition(TOPIC, 1);
        try (PatchedBrokers brokers = PatchedBrokers.open(cluster, List.of(2))) {
            ElectLeadersResponse.PartitionResult outside = brokers.electDesignated(2, orders1, 5);
            assertThat(outside.error()).isEqualTo(Errors.INVALID_REQUEST);
            assertThat(outside.errorMessage()).contains("designated replica 5 is not in the replica set [1,3,2]");

            // broker 1, the last leader, is down and fenced
            ElectLeadersResponse.PartitionResult fenced = brokers.electDesignated(2, orders1, LastReplicaStandingOutage.LAST_LEADER);
            assertThat(fenced.error()).isEqualTo(Errors.ELIGIBLE_LEADERS_NOT_AVAILABLE);
            assertThat(fenced.errorMessage()).contains("designated replica 1 of orders-1 is fenced");
        }
        PartitionView after = cluster.metadata().describePartition(orders1);
        assertThat(after.isLeaderless()).as("no other replica was elected: %s", after).isTrue();
    }

    @Test
    void designations_that_do_not_pair_up_with_their_partitions_are_refused_and_elect_nobody(LocalKafkaCluster cluster) {
        TopicPartition orders0 = new TopicPartition(TOPIC, 0);
        TopicPartition orders1 = new TopicPartition(TOPIC, 1);
        // 5 is no replica: a partition the controller's checks let through would still elect nobody
        var unpaired = new ElectLeadersRequest(ElectionType.UNCLEAN,
                List.of(new ElectLeadersRequest.TopicPartitions(TOPIC, List.of(0, 1), List.of(5))), 30_000);
        var listedTwice = new ElectLeadersRequest(ElectionType.UNCLEAN, List.of(
                new ElectLeadersRequest.TopicPartitions(TOPIC, List.of(0), List.of(5)),
                new ElectLeadersRequest.TopicPartitions(TOPIC, List.of(1), List.of(5))), 30_000);
        try (PatchedBrokers brokers = PatchedBrokers.open(cluster, List.of(2))) {
            List<ElectLeadersResponse.PartitionResult> both = brokers.electLeadersAll(2, unpaired, ElectLeaders.DESIGNATED_LEADERS_VERSION);
            assertThat(both).hasSize(2).allSatisfy(r -> {
                assertThat(r.error()).isEqualTo(Errors.INVALID_REQUEST);
                assertThat(r.errorMessage()).contains("topic orders has 2 Partitions but 1 DesignatedLeaders");
            });

            List<ElectLeadersResponse.PartitionResult> twice = brokers.electLeadersAll(2, listedTwice,
                    ElectLeaders.DESIGNATED_LEADERS_VERSION);
            assertThat(twice).hasSize(2).allSatisfy(r -> assertThat(r.error()).isEqualTo(Errors.INVALID_REQUEST));
            assertThat(twice).extracting(ElectLeadersResponse.PartitionResult::errorMessage)
                    .anySatisfy(m -> assertThat(m).contains("is listed without a designated leader (topic orders appears"
                            + " more than once in the request)"))
                    .anySatisfy(m -> assertThat(m).contains("designated replica 5 is not in the replica set"));
        }
        assertThat(cluster.metadata().describePartition(orders0).isLeaderless()).isTrue();
        assertThat(cluster.metadata().describePartition(orders1).isLeaderless()).isTrue();
    }

    @Test
    void elect_leaders_v3_without_designated_leaders_answers_like_v2(LocalKafkaCluster cluster) {
        // PREFERRED on a leaderless partition whose preferred replica (1) is down: refused either way, nothing changes
        TopicPartition orders0 = new TopicPartition(TOPIC, 0);
        var request = new ElectLeadersRequest(ElectionType.PREFERRED,
                List.of(new ElectLeadersRequest.TopicPartitions(TOPIC, List.of(0))), 30_000);
        try (PatchedBrokers brokers = PatchedBrokers.open(cluster, List.of(2))) {
            ElectLeadersResponse.PartitionResult v2 = brokers.electLeaders(2, request, (short) 2);
            ElectLeadersResponse.PartitionResult v3 = brokers.electLeaders(2, request, (short) 3);

            assertThat(v2.error()).isEqualTo(Errors.PREFERRED_LEADER_NOT_AVAILABLE);
            assertThat(v3).isEqualTo(v2);
        }
        assertThat(cluster.metadata().describePartition(orders0).isLeaderless()).isTrue();
    }

    @Test
    void designated_election_elects_the_designated_replica_not_the_first_in_assignment_order(LocalKafkaCluster cluster) {
        TopicPartition orders2 = new TopicPartition(TOPIC, 2);
        int designated = LastReplicaStandingOutage.LONGEST_SURVIVOR;
        try (PatchedBrokers brokers = PatchedBrokers.open(cluster, List.of(2, 3))) {
            int epochBefore = brokers.logInfo(designated, topicId, 2).currentLeaderEpoch();

            ElectLeadersResponse.PartitionResult result = brokers.electDesignated(3, orders2, designated);

            assertThat(result.error()).as("%s", result.errorMessage()).isEqualTo(Errors.NONE);
            PartitionView elected = cluster.metadata().awaitPartition(orders2, view -> view.leader() == designated,
                    STATE_TIMEOUT);
            assertThat(elected.replicas()).containsExactly(1, 3, 2); // 3 comes first: stock UNCLEAN would pick it
            assertThat(elected.isr()).contains(designated);
            awaitLeaderEpoch(brokers, designated, epochBefore + 1);
            // the longest log kept everything it had
            assertThat(brokers.logInfo(designated, topicId, 2).logEndOffset())
                    .isEqualTo(outage.survivorLogEndOffsets().get(designated));

            // then: a partition with a leader is refused, and keeps its leader
            ElectLeadersResponse.PartitionResult again = brokers.electDesignated(2, orders2, LastReplicaStandingOutage.SHORTEST_SURVIVOR);
            assertThat(again.error()).isEqualTo(Errors.ELECTION_NOT_NEEDED);
            assertThat(again.errorMessage()).contains("orders-2 already has leader 2");
            assertThat(cluster.metadata().describePartition(orders2).leader()).isEqualTo(designated);
        }
    }

    private static void awaitLeaderEpoch(PatchedBrokers brokers, int broker, int expected) {
        long deadline = System.nanoTime() + STATE_TIMEOUT.toNanos();
        int seen;
        do {
            seen = brokers.logInfo(broker, topicId, 2).currentLeaderEpoch();
            if (seen == expected) {
                return;
            }
            sleep();
        } while (System.nanoTime() < deadline);
        assertThat(seen).as("leader epoch on broker %d after the designated election", broker).isEqualTo(expected);
    }

    private static void sleep() {
        try {
            Thread.sleep(200);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
