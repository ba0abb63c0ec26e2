// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.uncleanrecovery.wire.GetReplicaLogInfoRequest.TopicPartitions;
import dev.uncleanrecovery.wire.GetReplicaLogInfoResponse.PartitionLogInfo;
import dev.uncleanrecovery.wire.GetReplicaLogInfoResponse.TopicPartitionLogInfo;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class GetReplicaLogInfoCodecTest {

    private static final short V0 = GetReplicaLogInfo.VERSION;
    private static final Uuid ORDERS_ID = new Uuid(0x0102030405060708L, 0x090a0b0c0d0e0f10L);
    private static final Uuid PAYMENTS_ID = new Uuid(-1L, 42L);

    // --- byte-exact vectors, written out by hand from the protocol spec ---------------------------

    @Test
    void request_is_encoded_field_by_field_as_the_spec_says() {
        GetReplicaLogInfoRequest request = new GetReplicaLogInfoRequest(List.of(
                new TopicPartitions(ORDERS_ID, List.of(0, 7))));

        byte[] expected = Hex.bytes(
                "02",                                  // TopicPartitions: compact array, 1 entry (count + 1)
                "0102030405060708 090a0b0c0d0e0f10",   //   TopicId: most then least significant 64 bits
                "03",                                  //   Partitions: compact array, 2 entries
                "00000000",                            //     0
                "00000007",                            //     7
                "00",                                  //   tagged fields of TopicPartitions: none
                "00");                                 // tagged fields of the request: none

        assertThat(Hex.of(request.serialize(V0))).isEqualTo(Hex.of(expected));
        assertThat(GetReplicaLogInfoRequest.parse(ByteBuffer.wrap(expected), V0)).isEqualTo(request);
    }

    @Test
    void response_is_encoded_field_by_field_as_the_spec_says() {
        GetReplicaLogInfoResponse response = new GetReplicaLogInfoResponse(0, 311L, true, List.of(
                new TopicPartitionLogInfo(ORDERS_ID, List.of(
                        new PartitionLogInfo(3, 6, 7, 1042L, (short) 0),
                        new PartitionLogInfo(5, -1, -1, -1L, Errors.REPLICA_NOT_AVAILABLE.code(),
                                List.of(new UnknownTaggedField(300, new byte[] {(byte) 0xab, (byte) 0xcd})))))));

        byte[] expected = Hex.bytes(
                "00000000",                            // ThrottleTimeMs 0
                "0000000000000137",                    // BrokerEpoch 311
                "01",                                  // HasMoreData true
                "02",                                  // TopicPartitionLogInfoList: 1 entry
                "0102030405060708 090a0b0c0d0e0f10",   //   TopicId
                "03",                                  //   PartitionLogInfo: 2 entries
                "00000003",                            //     Partition 3
                "00000006",                            //     LastWrittenLeaderEpoch 6
                "00000007",                            //     CurrentLeaderEpoch 7
                "0000000000000412",                    //     LogEndOffset 1042
                "0000",                                //     ErrorCode NONE
                "00",                                  //     tagged fields: none
                "00000005",                            //     Partition 5
                "ffffffff",                            //     LastWrittenLeaderEpoch -1
                "ffffffff",                            //     CurrentLeaderEpoch -1
                "ffffffffffffffff",                    //     LogEndOffset -1
                "0009",                                //     ErrorCode 9 REPLICA_NOT_AVAILABLE
                "01",                                  //     tagged fields: 1
                "ac02",                                //       tag 300 as unsigned varint (0x2c | 0x80, 300 >> 7 = 2)
                "02",                                  //       size 2
                "abcd",                                //       data
                "00",                                  //   tagged fields of the topic: none
                "00");                                 // tagged fields of the response: none

        assertThat(Hex.of(response.serialize(V0))).isEqualTo(Hex.of(expected));
        GetReplicaLogInfoResponse parsed = GetReplicaLogInfoResponse.parse(ByteBuffer.wrap(expected), V0);
        assertThat(parsed).isEqualTo(response);
        assertThat(parsed.topicPartitionLogInfoList().get(0).partitionLogInfo().get(1).error())
                .isEqualTo(Errors.REPLICA_NOT_AVAILABLE);
    }

    @Test
    void a_truncated_response_names_the_field_the_position_and_the_bytes_left() {
        byte[] valid = new GetReplicaLogInfoResponse(0, 311L, false, List.of(
                new TopicPartitionLogInfo(ORDERS_ID, List.of(new PartitionLogInfo(3, 6, 7, 1042L, (short) 0)))))
                .serialize(V0).array();

        // ThrottleTimeMs takes bytes 0-3, so BrokerEpoch starts at 4; cut after 6 of its 8 bytes.
        assertThatThrownBy(() -> GetReplicaLogInfoResponse.parse(ByteBuffer.wrap(valid, 0, 10), V0))
                .isInstanceOf(ProtocolException.class)
                .hasMessage("GetReplicaLogInfo response truncated: needed 8 bytes for BrokerEpoch at position 4, 6 left");
        // Cut inside the partition's LogEndOffset (4 + 8 + 1 + 1 + 16 + 1 + 4 + 4 + 4 = 43): the
        // array count already promises more bytes than are left, so it fails at the count.
        assertThatThrownBy(() -> GetReplicaLogInfoResponse.parse(ByteBuffer.wrap(valid, 0, 46), V0))
                .isInstanceOf(ProtocolException.class)
                .hasMessage("GetReplicaLogInfo response truncated or malformed: PartitionLogInfo at position 30"
                        + " claims 1 elements (at least 23 bytes), only 15 left");
    }

    // --- round trips ------------------------------------------------------------------------------

    @Test
    void empty_request_and_response_round_trip() {
        GetReplicaLogInfoRequest request = new GetReplicaLogInfoRequest(List.of());
        assertThat(Hex.of(request.serialize(V0))).isEqualTo("0100");
        assertThat(roundTrip(request)).isEqualTo(request);

        GetReplicaLogInfoResponse response = new GetReplicaLogInfoResponse(0, -1L, false, List.of());
        assertThat(roundTrip(response)).isEqualTo(response);
    }

    @Test
    void topics_with_no_partitions_round_trip() {
        GetReplicaLogInfoRequest request = new GetReplicaLogInfoRequest(List.of(
                new TopicPartitions(ORDERS_ID, List.of()), new TopicPartitions(PAYMENTS_ID, List.of(1))));
        assertThat(roundTrip(request)).isEqualTo(request);

        GetReplicaLogInfoResponse response = new GetReplicaLogInfoResponse(5, 9L, false, List.of(
                new TopicPartitionLogInfo(ORDERS_ID, List.of())));
        assertThat(roundTrip(response)).isEqualTo(response);
    }

    @Test
    void unknown_tagged_fields_survive_a_round_trip_at_every_level() {
        List<UnknownTaggedField> tags = List.of(
                new UnknownTaggedField(0, new byte[0]),
                new UnknownTaggedField(1, new byte[] {1, 2, 3}),
                new UnknownTaggedField(Integer.MAX_VALUE, new byte[200]));
        GetReplicaLogInfoRequest request = new GetReplicaLogInfoRequest(List.of(
                new TopicPartitions(ORDERS_ID, List.of(1, 2), tags)), tags);
        GetReplicaLogInfoResponse response = new GetReplicaLogInfoResponse(1, 2L, true, List.of(
                new TopicPartitionLogInfo(ORDERS_ID, List.of(
                        new PartitionLogInfo(1, 2, 3, 4L, (short) 0, tags)), tags)), tags);

        assertThat(roundTrip(request)).isEqualTo(request);
        assertThat(roundTrip(response)).isEqualTo(response);
        assertThat(roundTrip(response).unknownTaggedFields().get(1).data()).containsExactly(1, 2, 3);
    }

    @Test
    void a_thousand_partitions_round_trip_with_multi_byte_counts() {
        List<Integer> partitions = IntStream.range(0, GetReplicaLogInfo.MAX_PARTITIONS_PER_REQUEST).boxed().toList();
        List<PartitionLogInfo> answers = new ArrayList<>();
        for (int p : partitions) {
            answers.add(new PartitionLogInfo(p, p % 7, 9, 1_000_000L * p, (short) 0));
        }
        GetReplicaLogInfoRequest request = new GetReplicaLogInfoRequest(List.of(new TopicPartitions(ORDERS_ID, partitions)));
        GetReplicaLogInfoResponse response = new GetReplicaLogInfoResponse(0, 1L, false,
                List.of(new TopicPartitionLogInfo(ORDERS_ID, answers)));

        assertThat(roundTrip(request)).isEqualTo(request);
        assertThat(roundTrip(response)).isEqualTo(response);
    }

    // --- versions, limits, buffer positions -------------------------------------------------------

    @Test
    void only_version_0_exists() {
        GetReplicaLogInfoRequest request = new GetReplicaLogInfoRequest(List.of());
        assertThatThrownBy(() -> request.serialize((short) 1))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("v1 is not supported");
        assertThatThrownBy(() -> GetReplicaLogInfoResponse.parse(ByteBuffer.wrap(new byte[0]), (short) 1))
                .isInstanceOf(ProtocolException.class);
    }

    @Test
    void parse_reads_from_the_position_and_consumes_the_buffer_only_on_success() {
        byte[] body = new GetReplicaLogInfoRequest(List.of(new TopicPartitions(ORDERS_ID, List.of(4))))
                .serialize(V0).array();
        ByteBuffer buffer = ByteBuffer.allocate(3 + body.length);
        buffer.put(new byte[] {9, 9, 9}).put(body).flip().position(3);

        assertThat(GetReplicaLogInfoRequest.parse(buffer, V0).topicPartitions().get(0).partitions()).containsExactly(4);
        assertThat(buffer.position()).isEqualTo(buffer.limit());

        ByteBuffer broken = ByteBuffer.wrap(body, 0, body.length - 1);
        assertThatThrownBy(() -> GetReplicaLogInfoRequest.parse(broken, V0)).isInstanceOf(ProtocolException.class);
        assertThat(broken.position()).isZero();
    }

    @Test
    void first_partitions_keeps_request_order_across_topics_like_a_broker_answering_a_thousand() {
        GetReplicaLogInfoRequest request = new GetReplicaLogInfoRequest(List.of(
                new TopicPartitions(ORDERS_ID, List.of(0, 1, 2)),
                new TopicPartitions(PAYMENTS_ID, List.of(5, 6, 7))));

        assertThat(request.partitionCount()).isEqualTo(6);
        assertThat(request.firstPartitions(6)).isSameAs(request);
        assertThat(request.firstPartitions(4).topicPartitions()).containsExactly(
                new TopicPartitions(ORDERS_ID, List.of(0, 1, 2)),
                new TopicPartitions(PAYMENTS_ID, List.of(5)));
        assertThat(request.firstPartitions(3).topicPartitions()).containsExactly(
                new TopicPartitions(ORDERS_ID, List.of(0, 1, 2)));
        assertThat(request.firstPartitions(0).topicPartitions()).isEmpty();
    }

    @Test
    void the_api_key_of_a_request_is_the_private_one() {
        assertThat(new GetReplicaLogInfoRequest(List.of()).apiKey()).isEqualTo(GetReplicaLogInfo.DEFAULT_API_KEY);
    }

    private static GetReplicaLogInfoRequest roundTrip(GetReplicaLogInfoRequest request) {
        return GetReplicaLogInfoRequest.parse(request.serialize(V0), V0);
    }

    private static GetReplicaLogInfoResponse roundTrip(GetReplicaLogInfoResponse response) {
        return GetReplicaLogInfoResponse.parse(response.serialize(V0), V0);
    }
}
