// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.wire.GetReplicaLogInfo;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.junit.jupiter.api.Test;

/** Reaching one chosen broker of a real Kafka 4.4.0 cluster, and what a caller sees when it cannot. */
@KafkaClusterTest(brokers = 1)
class BrokerConnectionsClusterTest {

    private static Properties properties(LocalKafkaCluster cluster) {
        return ClientProperties.load(cluster.bootstrapServers(), null, 15_000);
    }

    private static BrokerState broker1(LocalKafkaCluster cluster) {
        String[] hostPort = cluster.brokerAddress(1).split(":");
        return new BrokerState(1, hostPort[0], Integer.parseInt(hostPort[1]), null, false);
    }

    @Test
    void api_versions_list_every_key_the_broker_advertises(LocalKafkaCluster cluster) {
        try (BrokerConnections connections = BrokerConnections.open(properties(cluster), List.of(broker1(cluster)))) {
            BrokerApiVersions versions = connections.apiVersions(1).join();

            assertThat(versions.range(ApiKeys.FETCH.id)).hasValueSatisfying(r -> {
                assertThat(r.minVersion()).isLessThanOrEqualTo((short) 12);
                assertThat(r.maxVersion()).isGreaterThanOrEqualTo((short) 12);
            });
            assertThat(versions.advertises(ApiKeys.LIST_OFFSETS.id, (short) 4)).isTrue();
            assertThat(versions.advertises(GetReplicaLogInfo.apiKey())).as("a stock broker").isFalse();
            // asked once per broker
            assertThat(connections.apiVersions(1)).isSameAs(connections.apiVersions(1));
        }
    }

    @Test
    void a_raw_request_travels_over_its_own_authenticated_connection_and_answers_are_matched(LocalKafkaCluster cluster) {
        // DescribeCluster v0 is flexible like our own RPCs: request header v2, response header v1.
        short version = 0;
        try (BrokerConnections connections = BrokerConnections.open(properties(cluster), List.of(broker1(cluster)))) {
            List<CompletableFuture<ByteBuffer>> answers = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                answers.add(connections.sendRaw(1, ApiKeys.DESCRIBE_CLUSTER.id, version,
                        serialize(new DescribeClusterRequestData(), version), Duration.ofSeconds(10)));
            }

            for (CompletableFuture<ByteBuffer> answer : answers) {
                DescribeClusterResponseData response =
                        new DescribeClusterResponseData(new ByteBufferAccessor(answer.join()), version);
                assertThat(response.errorCode()).isZero();
                assertThat(response.clusterId()).isEqualTo(cluster.clusterId());
                assertThat(response.brokers()).extracting(DescribeClusterResponseData.DescribeClusterBroker::brokerId)
                        .containsExactly(1);
            }
        }
    }

    @Test
    void a_caller_framed_request_gets_the_whole_response_frame_back(LocalKafkaCluster cluster) {
        short version = 0;
        try (BrokerConnections connections = BrokerConnections.open(properties(cluster), List.of(broker1(cluster)))) {
            int[] usedCorrelationId = new int[1];
            ByteBuffer frame = connections.sendRawFrame(1, ApiKeys.DESCRIBE_CLUSTER.id, version, correlationId -> {
                usedCorrelationId[0] = correlationId;
                RequestHeaderData header = new RequestHeaderData().setRequestApiKey(ApiKeys.DESCRIBE_CLUSTER.id)
                        .setRequestApiVersion(version).setCorrelationId(correlationId).setClientId("framing-test");
                ByteBuffer body = serialize(new DescribeClusterRequestData(), version);
                ObjectSerializationCache cache = new ObjectSerializationCache();
                ByteBuffer whole = ByteBuffer.allocate(header.size(cache, (short) 2) + body.remaining());
                header.write(new ByteBufferAccessor(whole), cache, (short) 2);
                whole.put(body).flip();
                return whole;
            }, Duration.ofSeconds(10)).join();

            ResponseHeaderData header = new ResponseHeaderData(new ByteBufferAccessor(frame), (short) 1);
            assertThat(header.correlationId()).isEqualTo(usedCorrelationId[0]);
            assertThat(new DescribeClusterResponseData(new ByteBufferAccessor(frame), version).clusterId())
                    .isEqualTo(cluster.clusterId());
        }
    }

    @Test
    void a_raw_request_for_a_key_the_broker_does_not_advertise_is_never_sent(LocalKafkaCluster cluster) {
        try (BrokerConnections connections = BrokerConnections.open(properties(cluster), List.of(broker1(cluster)))) {
            CompletableFuture<ByteBuffer> answer = connections.sendRaw(1, GetReplicaLogInfo.apiKey(),
                    GetReplicaLogInfo.VERSION, ByteBuffer.allocate(0), Duration.ofSeconds(10));

            assertThatThrownBy(answer::join).isInstanceOf(CompletionException.class)
                    .cause().isInstanceOf(BrokerRequestException.class)
                    .hasMessageStartingWith("broker 1 (" + cluster.brokerAddress(1) + ") does not advertise GetReplicaLogInfo"
                            + " version 0 in ApiVersions, so the request was not sent");
            // the ordinary connection still works
            assertThat(connections.send(1, new ApiVersionsRequest.Builder(), ApiVersionsResponse.class).join()
                    .data().errorCode()).isZero();
        }
    }

    @Test
    void a_broker_that_is_not_registered_is_refused_at_once(LocalKafkaCluster cluster) {
        try (BrokerConnections connections = BrokerConnections.open(properties(cluster), List.of(broker1(cluster)))) {
            CompletableFuture<ApiVersionsResponse> answer =
                    connections.send(7, new ApiVersionsRequest.Builder(), ApiVersionsResponse.class);

            assertThatThrownBy(answer::join).cause().isInstanceOf(BrokerRequestException.class)
                    .hasMessage("broker 7 is not registered with the controller (DescribeCluster did not list it), so it cannot be asked")
                    .satisfies(e -> assertThat(((BrokerRequestException) e).isRetriable()).isFalse());
        }
    }

    @Test
    void a_broker_with_nothing_listening_fails_with_its_id_and_address(LocalKafkaCluster cluster) throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        BrokerState gone = new BrokerState(9, "127.0.0.1", closedPort, null, true);
        try (BrokerConnections connections = BrokerConnections.open(properties(cluster), List.of(broker1(cluster), gone))) {
            CompletableFuture<ApiVersionsResponse> answer =
                    connections.send(9, new ApiVersionsRequest.Builder(), ApiVersionsResponse.class, Duration.ofSeconds(10));

            assertThatThrownBy(answer::join).cause().isInstanceOf(BrokerRequestException.class)
                    .hasMessageStartingWith("cannot connect to broker 9 (127.0.0.1:" + closedPort + "): connection refused")
                    .satisfies(e -> assertThat(((BrokerRequestException) e).isRetriable()).isTrue())
                    // The probe settles a fenced broker that refuses at once instead of retrying until its deadline.
                    .satisfies(e -> assertThat(((BrokerRequestException) e).isConnectionRefused()).isTrue());

            // ApiVersions and the probe's requests go over the raw channel: the same answer there.
            assertThatThrownBy(() -> connections.apiVersions(9, Duration.ofSeconds(10)).join()).cause()
                    .isInstanceOf(BrokerRequestException.class)
                    .hasMessageStartingWith("cannot connect to broker 9 (127.0.0.1:" + closedPort + "): connection refused")
                    .satisfies(e -> assertThat(((BrokerRequestException) e).isRetriable()).isTrue())
                    .satisfies(e -> assertThat(((BrokerRequestException) e).isConnectionRefused()).isTrue());
        }
    }

    @Test
    void a_broker_that_accepts_but_never_answers_times_out_with_its_id_and_address(LocalKafkaCluster cluster)
            throws IOException {
        // Like a SIGSTOPped broker: the kernel accepts the connection, nobody reads it.
        try (ServerSocket silent = new ServerSocket(0, 10, InetAddress.getLoopbackAddress());
             BrokerConnections connections = BrokerConnections.open(properties(cluster), List.of(broker1(cluster),
                     new BrokerState(8, "127.0.0.1", silent.getLocalPort(), null, false)))) {
            long start = System.nanoTime();
            CompletableFuture<ApiVersionsResponse> answer =
                    connections.send(8, new ApiVersionsRequest.Builder(), ApiVersionsResponse.class, Duration.ofMillis(800));

            assertThatThrownBy(answer::join).cause().isInstanceOf(BrokerRequestException.class)
                    .hasMessageStartingWith("broker 8 (127.0.0.1:" + silent.getLocalPort() + ") did not");
            assertThat((System.nanoTime() - start) / 1_000_000).isBetween(700L, 3_000L);
        }
    }

    @Test
    void closing_fails_what_is_still_waiting(LocalKafkaCluster cluster) throws IOException {
        try (ServerSocket silent = new ServerSocket(0, 10, InetAddress.getLoopbackAddress())) {
            BrokerConnections connections = BrokerConnections.open(properties(cluster), List.of(
                    new BrokerState(8, "127.0.0.1", silent.getLocalPort(), null, false)));
            CompletableFuture<ApiVersionsResponse> answer =
                    connections.send(8, new ApiVersionsRequest.Builder(), ApiVersionsResponse.class, Duration.ofMinutes(1));
            try (Socket accepted = silent.accept()) {
                // the request now waits on a connected socket that never answers
                assertThat(accepted.isConnected()).isTrue();
                connections.close();
            }

            assertThatThrownBy(answer::join).cause().isInstanceOf(BrokerRequestException.class)
                    .hasMessageContaining("broker connections were closed");
        }
    }

    private static ByteBuffer serialize(DescribeClusterRequestData data, short version) {
        ObjectSerializationCache cache = new ObjectSerializationCache();
        ByteBuffer buffer = ByteBuffer.allocate(data.size(cache, version));
        data.write(new ByteBufferAccessor(buffer), cache, version);
        buffer.flip();
        return buffer;
    }
}
