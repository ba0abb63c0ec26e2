// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.wire.ResponseHeader;
import dev.uncleanrecovery.wire.Frames;
import dev.uncleanrecovery.wire.ElectLeaders;
import dev.uncleanrecovery.wire.ElectLeadersRequest.TopicPartitions;
import dev.uncleanrecovery.wire.ElectLeadersRequest;
import dev.uncleanrecovery.wire.ElectLeadersResponse.PartitionResult;
import dev.uncleanrecovery.wire.ElectLeadersResponse.ReplicaElectionResult;
import dev.uncleanrecovery.wire.ElectLeadersResponse;
import dev.uncleanrecovery.wire.Hex;
import dev.uncleanrecovery.wire.UnknownTaggedField;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.message.ElectLeadersRequestData;
import org.apache.kafka.common.message.ElectLeadersResponseData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.protocol.types.RawTaggedField;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.Test;

/**
 * Proves our ElectLeaders v2 layout is Kafka's own: kafka-clients 4.4.0's generated message
 * classes write bytes that we read, and read the bytes that we write, identically.
 */
class ElectLeadersKafkaCrossCheckTest {

    private static final short V2 = 2;

    @Test
    void kafka_clients_speaks_exactly_v2_as_its_newest_elect_leaders() {
        // If a kafka-clients upgrade brings a stock v3, its meaning must be checked against ours.
        assertThat(ApiKeys.ELECT_LEADERS.latestVersion()).isEqualTo(V2);
        assertThat(ElectLeaders.API_KEY).isEqualTo(ApiKeys.ELECT_LEADERS.id);
    }

    @Test
    void request_written_by_kafka_is_read_by_us() {
        ElectLeadersRequestData kafka = kafkaRequest();

        ElectLeadersRequest ours = ElectLeadersRequest.parse(kafkaBytes(kafka, V2), V2);

        assertThat(ours).isEqualTo(new ElectLeadersRequest((byte) 1, List.of(
                new TopicPartitions("orders", List.of(3, 5), null, List.of()),
                new TopicPartitions("payments", List.of(), null,
                        List.of(new UnknownTaggedField(9, new byte[] {7, 7})))), 30_000,
                List.of(new UnknownTaggedField(100, new byte[] {1, 2, 3}))));
    }

    @Test
    void request_written_by_us_is_read_by_kafka_byte_for_byte() {
        ElectLeadersRequest ours = new ElectLeadersRequest((byte) 1, List.of(
                new TopicPartitions("orders", List.of(3, 5), null, List.of()),
                new TopicPartitions("payments", List.of(), null,
                        List.of(new UnknownTaggedField(9, new byte[] {7, 7})))), 30_000,
                List.of(new UnknownTaggedField(100, new byte[] {1, 2, 3})));

        ByteBuffer bytes = ours.serialize(V2);
        ElectLeadersRequestData kafka = new ElectLeadersRequestData(new ByteBufferAccessor(bytes.duplicate()), V2);

        assertThat(kafka).isEqualTo(kafkaRequest());
        assertThat(kafka.unknownTaggedFields()).containsExactly(new RawTaggedField(100, new byte[] {1, 2, 3}));
        assertThat(Hex.of(bytes)).isEqualTo(Hex.of(kafkaBytes(kafkaRequest(), V2)));
    }

    @Test
    void null_topic_partitions_agree_with_kafka() {
        ElectLeadersRequestData kafka = new ElectLeadersRequestData()
                .setElectionType(ElectionType.PREFERRED.value)
                .setTopicPartitions(null)
                .setTimeoutMs(60_000);

        ElectLeadersRequest ours = ElectLeadersRequest.parse(kafkaBytes(kafka, V2), V2);

        assertThat(ours.topicPartitions()).isNull();
        assertThat(Hex.of(ours.serialize(V2))).isEqualTo(Hex.of(kafkaBytes(kafka, V2)));
    }

    @Test
    void response_written_by_kafka_is_read_by_us_and_back() {
        ElectLeadersResponseData kafka = kafkaResponse();

        ElectLeadersResponse ours = ElectLeadersResponse.parse(kafkaBytes(kafka, V2), V2);

        assertThat(ours).isEqualTo(new ElectLeadersResponse(12, (short) 0, List.of(
                new ReplicaElectionResult("orders", List.of(
                        new PartitionResult(3, (short) 0, null),
                        new PartitionResult(5, Errors.ELIGIBLE_LEADERS_NOT_AVAILABLE.code(),
                                "no eligible replica", List.of(new UnknownTaggedField(4, new byte[] {5}))))),
                new ReplicaElectionResult("empty", List.of())), List.of()));
        ByteBuffer ourBytes = ours.serialize(V2);
        assertThat(new ElectLeadersResponseData(new ByteBufferAccessor(ourBytes.duplicate()), V2)).isEqualTo(kafka);
        assertThat(Hex.of(ourBytes)).isEqualTo(Hex.of(kafkaBytes(kafka, V2)));
    }

    @Test
    void our_request_frame_is_parsed_by_kafkas_request_header_and_body_parsers() {
        ElectLeadersRequest ours = new ElectLeadersRequest(ElectionType.UNCLEAN, List.of(
                new TopicPartitions("orders", List.of(3))), 5_000);

        ByteBuffer frame = Frames.request(ours, V2, 77, "kafka-unclean-recovery");
        RequestHeader header = RequestHeader.parse(frame);
        var body = org.apache.kafka.common.requests.ElectLeadersRequest.parse(new ByteBufferAccessor(frame), header.apiVersion());

        assertThat(header.apiKey()).isEqualTo(ApiKeys.ELECT_LEADERS);
        assertThat(header.apiVersion()).isEqualTo(V2);
        assertThat(header.headerVersion()).isEqualTo((short) 2);
        assertThat(header.correlationId()).isEqualTo(77);
        assertThat(header.clientId()).isEqualTo("kafka-unclean-recovery");
        assertThat(body.data().electionType()).isEqualTo(ElectionType.UNCLEAN.value);
        assertThat(body.data().topicPartitions().find("orders").partitions()).containsExactly(3);
        assertThat(frame.hasRemaining()).isFalse();
    }

    @Test
    void kafkas_response_frame_is_parsed_by_our_frame_parser() {
        ObjectSerializationCache cache = new ObjectSerializationCache();
        ResponseHeaderData header = new ResponseHeaderData().setCorrelationId(77);
        ElectLeadersResponseData body = kafkaResponse();
        ByteBuffer frame = ByteBuffer.allocate(header.size(cache, ResponseHeader.VERSION) + body.size(cache, V2));
        header.write(new ByteBufferAccessor(frame), cache, ResponseHeader.VERSION);
        body.write(new ByteBufferAccessor(frame), cache, V2);
        frame.flip();

        Frames.ReceivedResponse<ElectLeadersResponse> received = Frames.parseElectLeadersResponse(frame, V2);

        assertThat(received.header().correlationId()).isEqualTo(77);
        assertThat(received.body().throttleTimeMs()).isEqualTo(12);
        assertThat(received.body().replicaElectionResults()).hasSize(2);
    }

    private static ElectLeadersRequestData kafkaRequest() {
        ElectLeadersRequestData.TopicPartitionsCollection topics = new ElectLeadersRequestData.TopicPartitionsCollection();
        topics.add(new ElectLeadersRequestData.TopicPartitions().setTopic("orders").setPartitions(new ArrayList<>(List.of(3, 5))));
        ElectLeadersRequestData.TopicPartitions payments = new ElectLeadersRequestData.TopicPartitions()
                .setTopic("payments").setPartitions(new ArrayList<>());
        payments.unknownTaggedFields().add(new RawTaggedField(9, new byte[] {7, 7}));
        topics.add(payments);
        ElectLeadersRequestData request = new ElectLeadersRequestData()
                .setElectionType(ElectionType.UNCLEAN.value)
                .setTopicPartitions(topics)
                .setTimeoutMs(30_000);
        request.unknownTaggedFields().add(new RawTaggedField(100, new byte[] {1, 2, 3}));
        return request;
    }

    private static ElectLeadersResponseData kafkaResponse() {
        ElectLeadersResponseData.PartitionResult refused = new ElectLeadersResponseData.PartitionResult()
                .setPartitionId(5)
                .setErrorCode(Errors.ELIGIBLE_LEADERS_NOT_AVAILABLE.code())
                .setErrorMessage("no eligible replica");
        refused.unknownTaggedFields().add(new RawTaggedField(4, new byte[] {5}));
        return new ElectLeadersResponseData()
                .setThrottleTimeMs(12)
                .setErrorCode((short) 0)
                .setReplicaElectionResults(new ArrayList<>(List.of(
                        new ElectLeadersResponseData.ReplicaElectionResult()
                                .setTopic("orders")
                                .setPartitionResult(new ArrayList<>(List.of(
                                        new ElectLeadersResponseData.PartitionResult()
                                                .setPartitionId(3).setErrorCode((short) 0).setErrorMessage(null),
                                        refused))),
                        new ElectLeadersResponseData.ReplicaElectionResult()
                                .setTopic("empty")
                                .setPartitionResult(new ArrayList<>()))));
    }

    private static ByteBuffer kafkaBytes(Message message, short version) {
        ObjectSerializationCache cache = new ObjectSerializationCache();
        ByteBuffer buffer = ByteBuffer.allocate(message.size(cache, version));
        message.write(new ByteBufferAccessor(buffer), cache, version);
        buffer.flip();
        return buffer;
    }
}
