// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.uncleanrecovery.wire.GetReplicaLogInfoResponse.PartitionLogInfo;
import dev.uncleanrecovery.wire.GetReplicaLogInfoResponse.TopicPartitionLogInfo;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

class FramesTest {

    private static final short V0 = GetReplicaLogInfo.VERSION;
    private static final short V3 = ElectLeaders.DESIGNATED_LEADERS_VERSION;

    @Test
    void get_replica_log_info_request_frame_is_header_v2_then_body() {
        ByteBuffer frame = Frames.request(new GetReplicaLogInfoRequest(List.of()), V0, 7, "kur");

        byte[] expected = Hex.bytes(
                "07ae",        // RequestApiKey 1966
                "0000",        // RequestApiVersion 0
                "00000007",    // CorrelationId 7
                "0003 6b7572", // ClientId "kur": classic int16 length, not compact, even in header v2
                "00",          // header tagged fields: none
                "01",          // body: TopicPartitions, 0 entries
                "00");         // body tagged fields: none

        assertThat(Hex.of(frame)).isEqualTo(Hex.of(expected));
        assertThat(frame.position()).isZero();
    }

    @Test
    void a_null_client_id_is_length_minus_one() {
        ByteBuffer frame = Frames.request(new GetReplicaLogInfoRequest(List.of()), V0, 1, null);

        assertThat(Hex.of(frame)).isEqualTo(Hex.of(Hex.bytes("07ae", "0000", "00000001", "ffff", "00", "01", "00")));
        assertThat(Frames.parseRequest(frame).header().clientId()).isNull();
    }

    @Test
    void response_frame_is_header_v1_then_body() {
        GetReplicaLogInfoResponse body = new GetReplicaLogInfoResponse(0, 311L, false, List.of());

        ByteBuffer frame = Frames.response(body, V0, 7);

        byte[] expected = Hex.bytes(
                "00000007",          // CorrelationId 7
                "00",                // header tagged fields: none
                "00000000",          // ThrottleTimeMs 0
                "0000000000000137",  // BrokerEpoch 311
                "00",                // HasMoreData false
                "01",                // TopicPartitionLogInfoList: 0 entries
                "00");               // tagged fields: none
        assertThat(Hex.of(frame)).isEqualTo(Hex.of(expected));

        Frames.ReceivedResponse<GetReplicaLogInfoResponse> received = Frames.parseGetReplicaLogInfoResponse(frame);
        assertThat(received.header()).isEqualTo(new ResponseHeader(7));
        assertThat(received.body()).isEqualTo(body);
        assertThat(frame.hasRemaining()).isFalse();
    }

    @Test
    void the_agent_gets_back_what_the_tool_sent() {
        GetReplicaLogInfoRequest logInfo = new GetReplicaLogInfoRequest(List.of(
                new GetReplicaLogInfoRequest.TopicPartitions(Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ"), List.of(0, 1))));
        ElectLeadersRequest designated = new ElectLeadersRequest(ElectionType.UNCLEAN, List.of(
                new ElectLeadersRequest.TopicPartitions("orders", List.of(3), List.of(2))), 30_000);

        Frames.ReceivedRequest first = Frames.parseRequest(Frames.request(logInfo, V0, 1, "tool"));
        Frames.ReceivedRequest second = Frames.parseRequest(Frames.request(designated, V3, 2, "tool"));

        assertThat(first.header()).isEqualTo(new RequestHeader(GetReplicaLogInfo.DEFAULT_API_KEY, V0, 1, "tool"));
        assertThat(first.body()).isEqualTo(logInfo);
        assertThat(second.header()).isEqualTo(new RequestHeader(ElectLeaders.API_KEY, V3, 2, "tool"));
        assertThat(second.body()).isEqualTo(designated);
    }

    @Test
    void the_tool_gets_back_what_the_agent_answered() {
        GetReplicaLogInfoResponse logInfo = new GetReplicaLogInfoResponse(0, 5L, true, List.of(
                new TopicPartitionLogInfo(Uuid.ONE_UUID, List.of(new PartitionLogInfo(0, 3, 4, 100L, (short) 0)))));
        ElectLeadersResponse elected = new ElectLeadersResponse(0, (short) 0, List.of(
                new ElectLeadersResponse.ReplicaElectionResult("orders", List.of(
                        new ElectLeadersResponse.PartitionResult(3, (short) 0, null)))));

        assertThat(Frames.parseGetReplicaLogInfoResponse(Frames.response(logInfo, V0, 9)).body()).isEqualTo(logInfo);
        assertThat(Frames.parseElectLeadersResponse(Frames.response(elected, V3, 9), V3).body()).isEqualTo(elected);
    }

    @Test
    void header_tagged_fields_are_read_and_kept() {
        byte[] frame = Hex.bytes(
                "00000007",  // CorrelationId 7
                "01",        // header tagged fields: 1
                "05 01 ff",  //   tag 5, size 1, data ff
                "00000000 0000000000000001 00 01 00"); // body: throttle, epoch 1, no more data, no topics, no tags

        ResponseHeader header = Frames.parseGetReplicaLogInfoResponse(ByteBuffer.wrap(frame)).header();

        assertThat(header.unknownTaggedFields()).containsExactly(new UnknownTaggedField(5, new byte[] {(byte) 0xff}));
    }

    @Test
    void a_request_for_another_api_is_refused_with_its_key() {
        byte[] frame = Hex.bytes("0003", "000c", "00000001", "ffff", "00"); // Metadata v12

        assertThatThrownBy(() -> Frames.parseRequest(ByteBuffer.wrap(frame)))
                .isInstanceOf(ProtocolException.class)
                .hasMessage("request header at position 0 has api key 3, which is neither GetReplicaLogInfo (1966) nor ElectLeaders (43)");
    }

    @Test
    void unsupported_versions_are_refused_before_the_header_is_read_further() {
        byte[] electLeadersV1 = Hex.bytes("002b", "0001", "00000001", "ffff"); // non-flexible v1: header v1
        byte[] logInfoV1 = Hex.bytes("07ae", "0001", "00000001", "ffff", "00");

        assertThatThrownBy(() -> Frames.parseRequest(ByteBuffer.wrap(electLeadersV1)))
                .isInstanceOf(ProtocolException.class)
                .hasMessage("ElectLeaders request v1 is not supported: this codec speaks v2 and v3");
        assertThatThrownBy(() -> Frames.parseRequest(ByteBuffer.wrap(logInfoV1)))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("v1 is not supported");
    }

    @Test
    void body_errors_report_frame_positions_under_the_body_name() {
        // Header: 2 + 2 + 4 + (2 + 3) + 1 = 14 bytes; the body's count varint claims 1 topic.
        byte[] frame = Hex.bytes("07ae", "0000", "00000007", "0003 6b7572", "00", "02");

        assertThatThrownBy(() -> Frames.parseRequest(ByteBuffer.wrap(frame)))
                .isInstanceOf(ProtocolException.class)
                .hasMessage("GetReplicaLogInfo request truncated or malformed: TopicPartitions at position 14 claims 1 elements"
                        + " (at least 18 bytes), only 0 left");
    }

    @Test
    void trailing_bytes_after_the_body_are_refused() {
        ByteBuffer frame = Frames.request(new GetReplicaLogInfoRequest(List.of()), V0, 7, "kur");
        ByteBuffer longer = ByteBuffer.allocate(frame.remaining() + 1).put(frame).put((byte) 0).flip();

        assertThatThrownBy(() -> Frames.parseRequest(longer))
                .isInstanceOf(ProtocolException.class)
                .hasMessage("GetReplicaLogInfo request has 1 unexpected trailing bytes at position 16");
    }

    @Test
    void a_designated_request_cannot_be_framed_as_v2() {
        ElectLeadersRequest designated = new ElectLeadersRequest(ElectionType.UNCLEAN, List.of(
                new ElectLeadersRequest.TopicPartitions("orders", List.of(3), List.of(2))), 30_000);

        assertThatThrownBy(() -> Frames.request(designated, (short) 2, 1, "tool")).isInstanceOf(ProtocolException.class);
    }

    @Test
    void the_agent_follows_an_overridden_api_key() {
        String before = System.getProperty(GetReplicaLogInfo.API_KEY_PROPERTY);
        System.setProperty(GetReplicaLogInfo.API_KEY_PROPERTY, "1967");
        try {
            ByteBuffer frame = Frames.request(new GetReplicaLogInfoRequest(List.of()), V0, 1, "tool");
            assertThat(Hex.of(frame)).startsWith("07af");
            assertThat(Frames.parseRequest(frame).body()).isInstanceOf(GetReplicaLogInfoRequest.class);
        } finally {
            if (before == null) {
                System.clearProperty(GetReplicaLogInfo.API_KEY_PROPERTY);
            } else {
                System.setProperty(GetReplicaLogInfo.API_KEY_PROPERTY, before);
            }
        }
    }
}
