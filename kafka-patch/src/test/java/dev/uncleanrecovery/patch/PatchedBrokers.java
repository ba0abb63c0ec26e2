// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.patch;

import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.wire.ElectLeaders;
import dev.uncleanrecovery.wire.ElectLeadersRequest;
import dev.uncleanrecovery.wire.ElectLeadersResponse;
import dev.uncleanrecovery.wire.Frames;
import dev.uncleanrecovery.wire.GetReplicaLogInfo;
import dev.uncleanrecovery.wire.GetReplicaLogInfoRequest;
import dev.uncleanrecovery.wire.GetReplicaLogInfoResponse;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.function.IntFunction;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsPartition;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.ListOffsetsResponse;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * Raw requests to the nodes of a local cluster, one blocking socket per node: the companion patch's RPCs (framed by
 * the {@code wire} module, as the tool frames them), ApiVersions and ListOffsets -2 (framed by kafka-clients).
 */
final class PatchedBrokers implements AutoCloseable {

    static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final String CLIENT_ID = "patch-test";

    private final Map<Integer, Socket> sockets;
    private int correlationId;

    private PatchedBrokers(Map<Integer, Socket> sockets) {
        this.sockets = sockets;
    }

    /** Connections to the given brokers, which must be running. */
    static PatchedBrokers open(LocalKafkaCluster cluster, List<Integer> brokerIds) {
        Map<Integer, String> addresses = new LinkedHashMap<>();
        brokerIds.forEach(id -> addresses.put(id, cluster.brokerAddress(id)));
        return connect(addresses);
    }

    /** A connection to the controller's listener (the address in its {@code server.properties}). */
    static PatchedBrokers openController(LocalKafkaCluster cluster) throws IOException {
        Properties server = new Properties();
        try (var in = Files.newBufferedReader(cluster.nodes().directory(cluster.controllers().firstId()).resolve("server.properties"))) {
            server.load(in);
        }
        // listeners=CONTROLLER://127.0.0.1:PORT
        String address = server.getProperty("listeners").replaceFirst("^[A-Z_]+://", "");
        return connect(Map.of(cluster.controllers().firstId(), address));
    }

    private static PatchedBrokers connect(Map<Integer, String> addresses) {
        Map<Integer, Socket> sockets = new LinkedHashMap<>();
        try {
            for (Map.Entry<Integer, String> node : addresses.entrySet()) {
                String[] hostPort = node.getValue().split(":");
                Socket socket = new Socket();
                socket.connect(new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1])), (int) TIMEOUT.toMillis());
                socket.setSoTimeout((int) TIMEOUT.toMillis());
                sockets.put(node.getKey(), socket);
            }
        } catch (IOException e) {
            sockets.values().forEach(PatchedBrokers::closeQuietly);
            throw new UncheckedIOException(e);
        }
        return new PatchedBrokers(sockets);
    }

    /** What the node advertises (ApiVersions v3). */
    ApiVersionsResponseData apiVersions(int nodeId) {
        ApiVersionsResponse response = send(nodeId, new ApiVersionsRequest.Builder().build((short) 3),
                ApiVersionsResponse.class);
        return response.data();
    }

    /** The version range advertised for {@code apiKey}, if any. */
    static Optional<ApiVersionsResponseData.ApiVersion> range(ApiVersionsResponseData versions, short apiKey) {
        return Optional.ofNullable(versions.apiKeys().find(apiKey));
    }

    GetReplicaLogInfoResponse getReplicaLogInfo(int brokerId, GetReplicaLogInfoRequest request) {
        ByteBuffer frame = exchange(brokerId, id -> Frames.request(request, GetReplicaLogInfo.VERSION, id, CLIENT_ID));
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
        ByteBuffer frame = exchange(brokerId, id -> Frames.request(request, version, id, CLIENT_ID));
        ElectLeadersResponse response = Frames.parseElectLeadersResponse(frame, version).body();
        if (response.errorCode() != 0) {
            throw new AssertionError("ElectLeaders v" + version + " failed for the whole request: error " + response.errorCode());
        }
        return response.replicaElectionResults().stream().flatMap(topic -> topic.partitionResult().stream()).toList();
    }

    /** The replica's log end offset on {@code brokerId}: ListOffsets LATEST with ReplicaId -2 (DEBUGGING). */
    long logEndOffset(int brokerId, TopicPartition partition) {
        ListOffsetsTopic topic = new ListOffsetsTopic().setName(partition.topic());
        topic.partitions().add(new ListOffsetsPartition().setPartitionIndex(partition.partition())
                .setTimestamp(ListOffsetsRequest.LATEST_TIMESTAMP).setCurrentLeaderEpoch(-1));
        // a broker older than these clients closes the connection on a version it does not know
        short version = (short) Math.min(ApiKeys.LIST_OFFSETS.latestVersion(),
                range(apiVersions(brokerId), ApiKeys.LIST_OFFSETS.id).orElseThrow().maxVersion());
        ListOffsetsRequest request = ListOffsetsRequest.Builder
                .forReplica(version, ListOffsetsRequest.DEBUGGING_REPLICA_ID)
                .setTargetTimes(List.of(topic)).build(version);
        var answer = send(brokerId, request, ListOffsetsResponse.class).data().topics().get(0).partitions().get(0);
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

    private <T extends AbstractResponse> T send(int nodeId, AbstractRequest request, Class<T> type) {
        RequestHeader[] header = new RequestHeader[1];
        ByteBuffer frame = exchange(nodeId, id -> {
            header[0] = new RequestHeader(request.apiKey(), request.version(), CLIENT_ID, id);
            return request.serializeWithHeader(header[0]);
        });
        return type.cast(AbstractResponse.parseResponse(frame, header[0]));
    }

    /** Sends one size-prefixed frame and reads the answer's frame (header and body, without the size). */
    private synchronized ByteBuffer exchange(int nodeId, IntFunction<ByteBuffer> frameFor) {
        Socket socket = sockets.get(nodeId);
        if (socket == null) {
            throw new IllegalArgumentException("no connection to node " + nodeId);
        }
        int id = ++correlationId;
        ByteBuffer frame = frameFor.apply(id);
        try {
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            byte[] bytes = new byte[frame.remaining()];
            frame.duplicate().get(bytes);
            out.writeInt(bytes.length);
            out.write(bytes);
            out.flush();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            byte[] answer = new byte[in.readInt()];
            in.readFully(answer);
            ByteBuffer response = ByteBuffer.wrap(answer);
            int answeredId = response.getInt(0);
            if (answeredId != id) {
                throw new AssertionError("node " + nodeId + " answered correlation id " + answeredId + " to " + id);
            }
            return response;
        } catch (IOException e) {
            throw new UncheckedIOException("node " + nodeId, e);
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing: nothing left to read
        }
    }

    @Override
    public void close() {
        sockets.values().forEach(PatchedBrokers::closeQuietly);
    }
}
