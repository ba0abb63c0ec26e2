// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import dev.uncleanrecovery.wire.Frames;
import dev.uncleanrecovery.wire.ElectLeaders;
import dev.uncleanrecovery.wire.ElectLeadersRequest;
import dev.uncleanrecovery.wire.ElectLeadersResponse;
import dev.uncleanrecovery.wire.GetReplicaLogInfo;
import dev.uncleanrecovery.wire.GetReplicaLogInfoRequest;
import dev.uncleanrecovery.wire.GetReplicaLogInfoResponse.PartitionLogInfo;
import dev.uncleanrecovery.wire.GetReplicaLogInfoResponse.TopicPartitionLogInfo;
import dev.uncleanrecovery.wire.GetReplicaLogInfoResponse;
import dev.uncleanrecovery.wire.Hex;
import dev.uncleanrecovery.wire.ProtocolException;
import dev.uncleanrecovery.wire.UnknownTaggedField;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import java.util.stream.Stream;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Bytes from the network are untrusted: whatever arrives, decoding either succeeds or throws
 * {@link ProtocolException} — never an IndexOutOfBounds, a NegativeArraySize or an allocation
 * sized by a forged count.
 */
class MalformedInputTest {

    private static final short V0 = GetReplicaLogInfo.VERSION;
    private static final short V2 = 2;
    private static final short V3 = 3;
    private static final String UUID_HEX = "0102030405060708 090a0b0c0d0e0f10";

    /** One valid encoding and the decoder that must accept it. */
    record Case(String name, byte[] valid, Function<ByteBuffer, Object> decoder) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Case> validMessages() {
        List<UnknownTaggedField> tags = List.of(new UnknownTaggedField(300, new byte[] {1, 2}));
        GetReplicaLogInfoRequest logInfoRequest = new GetReplicaLogInfoRequest(List.of(
                new GetReplicaLogInfoRequest.TopicPartitions(Uuid.ONE_UUID, List.of(1, 2), tags),
                new GetReplicaLogInfoRequest.TopicPartitions(Uuid.METADATA_TOPIC_ID, List.of())), tags);
        GetReplicaLogInfoResponse logInfoResponse = new GetReplicaLogInfoResponse(1, 2L, true, List.of(
                new TopicPartitionLogInfo(Uuid.ONE_UUID, List.of(
                        new PartitionLogInfo(1, 2, 3, 4L, (short) 0, tags),
                        PartitionLogInfo.failed(2, Errors.NOT_LEADER_OR_FOLLOWER))),
                new TopicPartitionLogInfo(Uuid.METADATA_TOPIC_ID, List.of(), tags)));
        ElectLeadersRequest designated = new ElectLeadersRequest((byte) 1, List.of(
                new ElectLeadersRequest.TopicPartitions("orders", List.of(3, 5), List.of(2, 1), tags),
                new ElectLeadersRequest.TopicPartitions("t", List.of(0), null, List.of())), 30_000, tags);
        ElectLeadersRequest plain = new ElectLeadersRequest(ElectionType.UNCLEAN, List.of(
                new ElectLeadersRequest.TopicPartitions("orders", List.of(3, 5))), 30_000);
        ElectLeadersResponse electResponse = new ElectLeadersResponse(0, (short) 0, List.of(
                new ElectLeadersResponse.ReplicaElectionResult("orders", List.of(
                        new ElectLeadersResponse.PartitionResult(3, (short) 0, null, tags),
                        new ElectLeadersResponse.PartitionResult(5, (short) 83, "no")), tags)), tags);
        return Stream.of(
                new Case("GetReplicaLogInfo request", bytes(logInfoRequest.serialize(V0)),
                        b -> GetReplicaLogInfoRequest.parse(b, V0)),
                new Case("GetReplicaLogInfo response", bytes(logInfoResponse.serialize(V0)),
                        b -> GetReplicaLogInfoResponse.parse(b, V0)),
                new Case("ElectLeaders v3 request", bytes(designated.serialize(V3)),
                        b -> ElectLeadersRequest.parse(b, V3)),
                new Case("ElectLeaders v2 request", bytes(plain.serialize(V2)),
                        b -> ElectLeadersRequest.parse(b, V2)),
                new Case("ElectLeaders response", bytes(electResponse.serialize(V3)),
                        b -> ElectLeadersResponse.parse(b, V3)),
                new Case("GetReplicaLogInfo request frame", bytes(Frames.request(logInfoRequest, V0, 5, "tool")),
                        Frames::parseRequest),
                new Case("ElectLeaders v3 request frame", bytes(Frames.request(designated, V3, 5, "tool")),
                        Frames::parseRequest),
                new Case("GetReplicaLogInfo response frame", bytes(Frames.response(logInfoResponse, V0, 5)),
                        Frames::parseGetReplicaLogInfoResponse),
                new Case("ElectLeaders response frame", bytes(Frames.response(electResponse, V3, 5)),
                        b -> Frames.parseElectLeadersResponse(b, V3)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("validMessages")
    void every_truncation_fails_cleanly(Case message) {
        assertThat(message.decoder().apply(ByteBuffer.wrap(message.valid()))).isNotNull();
        for (int length = 0; length < message.valid().length; length++) {
            ByteBuffer cut = ByteBuffer.wrap(message.valid(), 0, length);
            int at = length;
            assertThatThrownBy(() -> message.decoder().apply(cut))
                    .as("%s cut to %d of %d bytes", message.name(), at, message.valid().length)
                    .isInstanceOf(ProtocolException.class);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("validMessages")
    void a_trailing_byte_fails_cleanly(Case message) {
        byte[] longer = java.util.Arrays.copyOf(message.valid(), message.valid().length + 1);
        assertThatThrownBy(() -> message.decoder().apply(ByteBuffer.wrap(longer)))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("1 unexpected trailing bytes");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("validMessages")
    void random_corruption_either_decodes_or_fails_cleanly(Case message) {
        Random random = new Random(966L * message.name().hashCode());
        for (int round = 0; round < 800; round++) {
            byte[] corrupt = message.valid().clone();
            int flips = 1 + random.nextInt(3);
            for (int i = 0; i < flips; i++) {
                corrupt[random.nextInt(corrupt.length)] = (byte) random.nextInt(256);
            }
            try {
                message.decoder().apply(ByteBuffer.wrap(corrupt));
            } catch (ProtocolException expected) {
                // fine: the one failure type callers handle
            } catch (RuntimeException | Error unexpected) {
                fail(message.name() + " " + Hex.of(corrupt) + " threw " + unexpected, unexpected);
            }
        }
    }

    @Test
    void a_varint_cut_short_says_where_it_began() {
        byte[] request = Hex.bytes("01", "ff"); // no topics, then a tag count whose varint is cut after 1 byte

        assertThatThrownBy(() -> GetReplicaLogInfoRequest.parse(ByteBuffer.wrap(request), V0))
                .isInstanceOf(ProtocolException.class)
                .hasMessage("GetReplicaLogInfo request truncated: needed 1 more byte for tagged fields of"
                        + " GetReplicaLogInfo request (unsigned varint from position 1) at position 2, 0 left");
    }

    @Test
    void a_forged_topic_count_fails_before_anything_is_allocated() {
        byte[] response = Hex.bytes(
                "00000000 0000000000000001 00", // ThrottleTimeMs, BrokerEpoch, HasMoreData
                "ffffffff0f");                  // TopicPartitionLogInfoList: 2^32 - 1, so 2^32 - 2 entries

        assertThatThrownBy(() -> GetReplicaLogInfoResponse.parse(ByteBuffer.wrap(response), V0))
                .isInstanceOf(ProtocolException.class)
                .hasMessage("GetReplicaLogInfo response truncated or malformed: TopicPartitionLogInfoList at position 13 claims"
                        + " 4294967294 elements (at least 77309411292 bytes), only 0 left");
    }

    @Test
    void a_forged_partition_count_fails_before_anything_is_allocated() {
        byte[] request = Hex.bytes("02", UUID_HEX, "ffffffff07", "00", "00"); // Partitions: 2^31 - 2 entries

        assertThatThrownBy(() -> GetReplicaLogInfoRequest.parse(ByteBuffer.wrap(request), V0))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("Partitions at position 17 claims 2147483646 elements");
    }

    @Test
    void a_string_longer_than_the_protocol_allows_fails() {
        byte[] request = Hex.bytes("01", "02", "ffffffff0f", "00"); // Topic length 2^32 - 2

        assertThatThrownBy(() -> ElectLeadersRequest.parse(ByteBuffer.wrap(request), V3))
                .isInstanceOf(ProtocolException.class)
                .hasMessage("ElectLeaders v3 request malformed: Topic at position 2 is 4294967294 bytes long,"
                        + " more than the protocol's 32767");
    }

    @Test
    void a_string_longer_than_the_bytes_left_fails() {
        byte[] response = Hex.bytes(
                "00000000 0000 02 02 61 02", // throttle, error, 1 topic "a", 1 partition
                "00000003 0000",             // PartitionId 3, ErrorCode 0
                "65 6e6f");                  // ErrorMessage claims 100 bytes, 2 follow

        assertThatThrownBy(() -> ElectLeadersResponse.parse(ByteBuffer.wrap(response), V2))
                .isInstanceOf(ProtocolException.class)
                .hasMessage("ElectLeaders v2 response truncated: ErrorMessage at position 16 claims 100 bytes, only 2 left");
    }

    @Test
    void a_negative_client_id_length_fails() {
        byte[] frame = Hex.bytes("07ae", "0000", "00000001", "fffe", "00", "01", "00");

        assertThatThrownBy(() -> Frames.parseRequest(ByteBuffer.wrap(frame)))
                .isInstanceOf(ProtocolException.class)
                .hasMessage("request header malformed: ClientId at position 8 has negative length -2");
    }

    @Test
    void a_varint_longer_than_five_bytes_fails() {
        byte[] request = Hex.bytes("ffffffff8f01", "00");

        assertThatThrownBy(() -> GetReplicaLogInfoRequest.parse(ByteBuffer.wrap(request), V0))
                .isInstanceOf(ProtocolException.class)
                .hasMessage("GetReplicaLogInfo request malformed: unsigned varint for TopicPartitions at position 0"
                        + " is longer than 5 bytes");
    }

    @Test
    void a_varint_beyond_32_bits_fails() {
        byte[] request = Hex.bytes("ffffffff7f", "00");

        assertThatThrownBy(() -> GetReplicaLogInfoRequest.parse(ByteBuffer.wrap(request), V0))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("does not fit in 32 bits");
    }

    @Test
    void a_tagged_field_larger_than_the_bytes_left_fails() {
        byte[] request = Hex.bytes("01", "01", "05", "ffffffff0f"); // no topics; 1 tag: tag 5, size 2^32 - 1

        assertThatThrownBy(() -> GetReplicaLogInfoRequest.parse(ByteBuffer.wrap(request), V0))
                .isInstanceOf(ProtocolException.class)
                .hasMessage("GetReplicaLogInfo request truncated: tag 5 in tagged fields of GetReplicaLogInfo request"
                        + " at position 3 claims 4294967295 bytes, only 0 left");
    }

    @Test
    void a_tag_number_beyond_int_range_fails() {
        byte[] request = Hex.bytes("01", "01", "ffffffff0f", "00");

        assertThatThrownBy(() -> GetReplicaLogInfoRequest.parse(ByteBuffer.wrap(request), V0))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("tag 4294967295")
                .hasMessageContaining("out of range");
    }

    @Test
    void a_forged_tag_count_fails() {
        byte[] request = Hex.bytes("01", "ffffffff0f");

        assertThatThrownBy(() -> GetReplicaLogInfoRequest.parse(ByteBuffer.wrap(request), V0))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("claims 4294967295 elements");
    }

    @Test
    void null_where_the_protocol_forbids_it_fails() {
        byte[] nullPartitions = Hex.bytes("02", UUID_HEX, "00", "00", "00");
        byte[] nullTopicName = Hex.bytes("01", "02", "00", "01", "00", "00000000", "00");
        byte[] nullResults = Hex.bytes("00000000", "0000", "00", "00");

        assertThatThrownBy(() -> GetReplicaLogInfoRequest.parse(ByteBuffer.wrap(nullPartitions), V0))
                .isInstanceOf(ProtocolException.class)
                .hasMessage("GetReplicaLogInfo request malformed: Partitions at position 17 is null but may not be");
        assertThatThrownBy(() -> ElectLeadersRequest.parse(ByteBuffer.wrap(nullTopicName), V2))
                .isInstanceOf(ProtocolException.class)
                .hasMessage("ElectLeaders v2 request malformed: Topic at position 2 is null but may not be");
        assertThatThrownBy(() -> ElectLeadersResponse.parse(ByteBuffer.wrap(nullResults), V2))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("ReplicaElectionResults at position 6 is null");
    }

    @Test
    void invalid_utf8_fails() {
        byte[] request = Hex.bytes("01", "02", "02 ff", "01", "00", "00000000", "00");

        assertThatThrownBy(() -> ElectLeadersRequest.parse(ByteBuffer.wrap(request), V2))
                .isInstanceOf(ProtocolException.class)
                .hasMessage("ElectLeaders v2 request malformed: Topic at position 2 is not valid UTF-8");
    }

    private static byte[] bytes(ByteBuffer buffer) {
        return Hex.toArray(buffer);
    }
}
