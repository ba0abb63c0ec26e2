// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.patch;

import dev.uncleanrecovery.connect.BrokerConnections;
import dev.uncleanrecovery.connect.BrokerState;
import dev.uncleanrecovery.connect.ClientProperties;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.protocol.Frames;
import dev.uncleanrecovery.wire.ElectLeaders;
import dev.uncleanrecovery.wire.ElectLeadersRequest;
import dev.uncleanrecovery.wire.ElectLeadersResponse;
import dev.uncleanrecovery.wire.GetReplicaLogInfo;
import dev.uncleanrecovery.wire.GetReplicaLogInfoRequest;
import dev.uncleanrecovery.wire.GetReplicaLogInfoResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsPartition;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.ListOffsetsResponse;

/** Raw requests to the brokers of a local cluster: the companion patch's RPCs and ListOffsets -2. */
final class PatchedBrokers implements AutoCloseable {

    static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final BrokerConnections connections;

    private PatchedBrokers(BrokerConnections connections) {
        this.connections = connections;
    }

    /** Connections to the given brokers (all of the cluster's by default), which must be running. */
    static PatchedBrokers open(LocalKafkaCluster cluster, List<Integer> brokerIds) {
        List<BrokerState> brokers = new ArrayList<>();
        for (int id : brokerIds) {
            String[] hostPort = cluster.brokerAddress(id).split(":");
            brokers.add(new BrokerState(id, hostPort[0], Integer.parseInt(hostPort[1]), null, false));
        }
        return new PatchedBrokers(BrokerConnections.open(ClientProperties.load(cluster.bootstrapServers(), null, 30_000), brokers));
    }

    /**
     * A connection to the controller's listener (the address in its {@code server.properties}),
     * registered under the controller's node id; for ApiVersions.
     */
    static PatchedBrokers openController(LocalKafkaCluster cluster) throws java.io.IOException {
        Properties server = new Properties();
        try (var in = java.nio.file.Files.newBufferedReader(cluster.nodeDirectory(cluster.controllerId()).resolve("server.properties"))) {
            server.load(in);
        }
        // listeners=CONTROLLER://127.0.0.1:PORT
        String address = server.getProperty("listeners").replaceFirst("^[A-Z_]+://", "");
        String[] hostPort = address.split(":");
        BrokerState controller = new BrokerState(cluster.controllerId(), hostPort[0], Integer.parseInt(hostPort[1]), null, false);
        return new PatchedBrokers(BrokerConnections.open(ClientProperties.load(cluster.bootstrapServers(), null, 30_000), List.of(controller)));
    }

    BrokerConnections connections() {
        return connections;
    }

    GetReplicaLogInfoResponse getReplicaLogInfo(int brokerId, GetReplicaLogInfoRequest request) {
        var frame = connections.sendRawFrame(brokerId, GetReplicaLogInfo.apiKey(), GetReplicaLogInfo.VERSION,
                correlationId -> Frames.request(request, GetReplicaLogInfo.VERSION, correlationId, "patch-test"), TIMEOUT).join();
        return Frames.parseGetReplicaLogInfoResponse(frame).body();
    }

    /** One partition's answer from one broker. */
    GetReplicaLogInfoResponse.PartitionLogInfo logInfo(int brokerId, Uuid topicId, int partition) {
        GetReplicaLogInfoResponse response = getReplicaLogInfo(brokerId,
                new GetReplicaLogInfoRequest(List.of(new GetReplicaLogInfoRequest.TopicPartitions(topicId, List.of(partition)))));
        return response.topicPartitionLogInfoList().get(0).partitionLogInfo().get(0);
    }

    /** ElectLeaders v3 UNCLEAN designating {@code designatedLeader} for one partition, sent to {@code brokerId}. */
    ElectLeadersResponse.PartitionResult electDesignated(int brokerId, TopicPartition partition, int designatedLeader) {
        ElectLeadersRequest request = new ElectLeadersRequest(ElectionType.UNCLEAN, List.of(new ElectLeadersRequest.TopicPartitions(
                partition.topic(), List.of(partition.partition()), List.of(designatedLeader))), 30_000);
        return electLeaders(brokerId, request, ElectLeaders.DESIGNATED_LEADERS_VERSION);
    }

    /** One partition's result of an ElectLeaders request for one partition, sent raw in {@code version}. */
    ElectLeadersResponse.PartitionResult electLeaders(int brokerId, ElectLeadersRequest request, short version) {
        return electLeadersAll(brokerId, request, version).get(0);
    }

    /** Every partition's result of an ElectLeaders request, in answer order, sent raw in {@code version}. */
    List<ElectLeadersResponse.PartitionResult> electLeadersAll(int brokerId, ElectLeadersRequest request, short version) {
        var frame = connections.sendRawFrame(brokerId, ElectLeaders.API_KEY, version,
                correlationId -> Frames.request(request, version, correlationId, "patch-test"), TIMEOUT).join();
        ElectLeadersResponse response = Frames.parseElectLeadersResponse(frame, version).body();
        if (response.errorCode() != 0) {
            throw new AssertionError("ElectLeaders v3 failed for the whole request: error " + response.errorCode());
        }
        return response.replicaElectionResults().stream().flatMap(topic -> topic.partitionResult().stream()).toList();
    }

    /** The replica's log end offset on {@code brokerId}: ListOffsets LATEST with ReplicaId -2 (DEBUGGING). */
    long logEndOffset(int brokerId, TopicPartition partition) {
        ListOffsetsTopic topic = new ListOffsetsTopic().setName(partition.topic());
        topic.partitions().add(new ListOffsetsPartition().setPartitionIndex(partition.partition())
                .setTimestamp(ListOffsetsRequest.LATEST_TIMESTAMP).setCurrentLeaderEpoch(-1));
        ListOffsetsRequest.Builder request = ListOffsetsRequest.Builder
                .forReplica(ApiKeys.LIST_OFFSETS.latestVersion(), ListOffsetsRequest.DEBUGGING_REPLICA_ID)
                .setTargetTimes(List.of(topic));
        ListOffsetsResponse response = connections.send(brokerId, request, ListOffsetsResponse.class, TIMEOUT).join();
        var answer = response.data().topics().get(0).partitions().get(0);
        if (answer.errorCode() != 0) {
            throw new AssertionError("ListOffsets -2 on broker " + brokerId + " for " + partition + ": error " + answer.errorCode());
        }
        return answer.offset();
    }

    static Uuid topicId(LocalKafkaCluster cluster, String topic) throws Exception {
        try (Admin admin = cluster.createAdmin()) {
            return admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).topicId();
        }
    }

    @Override
    public void close() {
        connections.close();
    }
}
