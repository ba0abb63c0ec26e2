// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.uncleanrecovery.wire.ElectLeadersRequest.TopicPartitions;
import dev.uncleanrecovery.wire.ElectLeadersResponse.PartitionResult;
import dev.uncleanrecovery.wire.ElectLeadersResponse.ReplicaElectionResult;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class ElectLeadersCodecTest {

    private static final short V2 = 2;
    private static final short V3 = ElectLeaders.DESIGNATED_LEADERS_VERSION;

    // --- byte-exact vectors, written out by hand from the protocol spec ---------------------------

    @Test
    void v3_request_puts_designated_leaders_after_partitions() {
        ElectLeadersRequest request = new ElectLeadersRequest(ElectionType.UNCLEAN, List.of(
                new TopicPartitions("orders", List.of(3, 5), List.of(2, 1)),
                new TopicPartitions("t", List.of(0))), 30_000);

        byte[] expected = Hex.bytes(
                "01",                    // ElectionType 1 UNCLEAN
                "03",                    // TopicPartitions: compact nullable array, 2 entries
                "07 6f7264657273",       //   Topic "orders": compact string, length 6 + 1
                "03 00000003 00000005",  //   Partitions [3, 5]
                "03 00000002 00000001",  //   DesignatedLeaders [2, 1]: 2 leads 3, 1 leads 5
                "00",                    //   tagged fields: none
                "02 74",                 //   Topic "t"
                "02 00000000",           //   Partitions [0]
                "00",                    //   DesignatedLeaders null
                "00",                    //   tagged fields: none
                "00007530",              // TimeoutMs 30000
                "00");                   // tagged fields: none

        assertThat(Hex.of(request.serialize(V3))).isEqualTo(Hex.of(expected));
        assertThat(ElectLeadersRequest.parse(ByteBuffer.wrap(expected), V3)).isEqualTo(request);
    }

    @Test
    void v2_request_has_no_designated_leaders_field() {
        ElectLeadersRequest request = new ElectLeadersRequest(ElectionType.PREFERRED, List.of(
                new TopicPartitions("orders", List.of(3, 5))), 100);

        byte[] expected = Hex.bytes(
                "00",                    // ElectionType 0 PREFERRED
                "02",                    // TopicPartitions: 1 entry
                "07 6f7264657273",       //   Topic "orders"
                "03 00000003 00000005",  //   Partitions [3, 5]
                "00",                    //   tagged fields: none
                "00000064",              // TimeoutMs 100
                "00");                   // tagged fields: none

        assertThat(Hex.of(request.serialize(V2))).isEqualTo(Hex.of(expected));
        assertThat(ElectLeadersRequest.parse(ByteBuffer.wrap(expected), V2)).isEqualTo(request);
    }

    @Test
    void null_topic_partitions_means_all_partitions_and_is_a_zero_count() {
        ElectLeadersRequest request = new ElectLeadersRequest(ElectionType.PREFERRED, null, 60_000);

        byte[] expected = Hex.bytes(
                "00",        // ElectionType PREFERRED
                "00",        // TopicPartitions null
                "0000ea60",  // TimeoutMs 60000
                "00");       // tagged fields: none

        assertThat(Hex.of(request.serialize(V2))).isEqualTo(Hex.of(expected));
        assertThat(Hex.of(request.serialize(V3))).isEqualTo(Hex.of(expected));
        assertThat(ElectLeadersRequest.parse(ByteBuffer.wrap(expected), V3).topicPartitions()).isNull();
    }

    @Test
    void response_is_encoded_field_by_field_as_the_spec_says() {
        ElectLeadersResponse response = new ElectLeadersResponse(0, (short) 0, List.of(
                new ReplicaElectionResult("orders", List.of(
                        new PartitionResult(3, (short) 0, null),
                        new PartitionResult(5, Errors.ELIGIBLE_LEADERS_NOT_AVAILABLE.code(), "no")))));

        byte[] expected = Hex.bytes(
                "00000000",          // ThrottleTimeMs 0
                "0000",              // ErrorCode NONE
                "02",                // ReplicaElectionResults: 1 entry
                "07 6f7264657273",   //   Topic "orders"
                "03",                //   PartitionResult: 2 entries
                "00000003",          //     PartitionId 3
                "0000",              //     ErrorCode NONE
                "00",                //     ErrorMessage null
                "00",                //     tagged fields: none
                "00000005",          //     PartitionId 5
                "0053",              //     ErrorCode 83 ELIGIBLE_LEADERS_NOT_AVAILABLE
                "03 6e6f",           //     ErrorMessage "no"
                "00",                //     tagged fields: none
                "00",                //   tagged fields: none
                "00");               // tagged fields: none

        assertThat(Hex.of(response.serialize(V3))).isEqualTo(Hex.of(expected));
        assertThat(Hex.of(response.serialize(V2))).isEqualTo(Hex.of(expected));
        ElectLeadersResponse parsed = ElectLeadersResponse.parse(ByteBuffer.wrap(expected), V3);
        assertThat(parsed).isEqualTo(response);
        assertThat(parsed.replicaElectionResults().get(0).partitionResult().get(1).error())
                .isEqualTo(Errors.ELIGIBLE_LEADERS_NOT_AVAILABLE);
    }

    // --- v2 versus v3 -----------------------------------------------------------------------------

    @Test
    void v3_without_designated_leaders_is_v2_plus_one_null_marker_per_topic() {
        ElectLeadersRequest request = new ElectLeadersRequest(ElectionType.UNCLEAN, List.of(
                new TopicPartitions("a", List.of(1)),
                new TopicPartitions("bb", List.of())), 5);

        byte[] v2 = Hex.toArray(request.serialize(V2));
        byte[] v3 = Hex.toArray(request.serialize(V3));

        // Positions by hand: ElectionType 1 + count 1 + "a" 2 + Partitions 5 = 9: first marker.
        // Then tags 1 + "bb" 3 + empty Partitions 1 = 9 + 1 + 5 = 15: second marker, in v3 coordinates.
        assertThat(v3).hasSize(v2.length + 2);
        assertThat(v3[9]).isZero();
        assertThat(v3[15]).isZero();
        assertThat(Hex.of(withoutBytesAt(v3, 9, 15))).isEqualTo(Hex.of(v2));
    }

    @Test
    void v2_refuses_designated_leaders_rather_than_dropping_them() {
        ElectLeadersRequest request = new ElectLeadersRequest(ElectionType.UNCLEAN, List.of(
                new TopicPartitions("orders", List.of(3), List.of(2))), 5);

        assertThat(request.hasDesignatedLeaders()).isTrue();
        assertThatThrownBy(() -> request.serialize(V2))
                .isInstanceOf(ProtocolException.class)
                .hasMessage("ElectLeaders request v2 cannot carry DesignatedLeaders (topic orders); they need v3");
    }

    @Test
    void versions_outside_2_and_3_are_refused() {
        ElectLeadersRequest request = new ElectLeadersRequest(ElectionType.UNCLEAN, null, 5);
        assertThatThrownBy(() -> request.serialize((short) 1))
                .isInstanceOf(ProtocolException.class)
                .hasMessage("ElectLeaders request v1 is not supported: this codec speaks v2 and v3");
        assertThatThrownBy(() -> ElectLeadersResponse.parse(ByteBuffer.wrap(new byte[0]), (short) 4))
                .isInstanceOf(ProtocolException.class);
    }

    // --- round trips ------------------------------------------------------------------------------

    @Test
    void requests_round_trip_with_null_empty_and_set_designated_leaders() {
        List<UnknownTaggedField> tags = List.of(new UnknownTaggedField(7, new byte[] {42}));
        ElectLeadersRequest request = new ElectLeadersRequest((byte) 1, List.of(
                new TopicPartitions("with", List.of(0, 1, 2), List.of(3, 4, 5), tags),
                new TopicPartitions("without", List.of(9), null, List.of()),
                new TopicPartitions("empty", List.of(), List.of(), List.of())), 1234, tags);

        assertThat(ElectLeadersRequest.parse(request.serialize(V3), V3)).isEqualTo(request);

        ElectLeadersRequest v2Request = new ElectLeadersRequest((byte) 0, List.of(
                new TopicPartitions("without", List.of(9), null, tags)), 1, tags);
        assertThat(ElectLeadersRequest.parse(v2Request.serialize(V2), V2)).isEqualTo(v2Request);
        assertThat(ElectLeadersRequest.parse(new ElectLeadersRequest((byte) 1, List.of(), 0, List.of()).serialize(V3), V3)
                .topicPartitions()).isEmpty();
    }

    @Test
    void designated_leaders_of_another_length_than_partitions_are_carried_as_sent() {
        // The controller, not the codec, refuses the mismatch, so it can answer per topic.
        ElectLeadersRequest request = new ElectLeadersRequest(ElectionType.UNCLEAN, List.of(
                new TopicPartitions("orders", List.of(1, 2), List.of(3))), 5);
        assertThat(ElectLeadersRequest.parse(request.serialize(V3), V3)).isEqualTo(request);
    }

    @Test
    void unknown_election_types_survive_decoding() {
        ElectLeadersRequest request = new ElectLeadersRequest((byte) 2, List.of(), 5, List.of());
        assertThat(ElectLeadersRequest.parse(request.serialize(V3), V3).electionType()).isEqualTo((byte) 2);
    }

    @Test
    void responses_round_trip_with_empty_arrays_and_unknown_tags() {
        List<UnknownTaggedField> tags = List.of(new UnknownTaggedField(3, new byte[] {1}), new UnknownTaggedField(200, new byte[0]));
        ElectLeadersResponse response = new ElectLeadersResponse(7, Errors.CLUSTER_AUTHORIZATION_FAILED.code(), List.of(
                new ReplicaElectionResult("a", List.of(), tags),
                new ReplicaElectionResult("b", List.of(new PartitionResult(1, (short) 0, "", tags)), List.of())), tags);

        assertThat(ElectLeadersResponse.parse(response.serialize(V3), V3)).isEqualTo(response);
        assertThat(ElectLeadersResponse.parse(response.serialize(V2), V2).error()).isEqualTo(Errors.CLUSTER_AUTHORIZATION_FAILED);
        ElectLeadersResponse empty = new ElectLeadersResponse(0, (short) 0, List.of());
        assertThat(ElectLeadersResponse.parse(empty.serialize(V2), V2)).isEqualTo(empty);
    }

    @Test
    void non_ascii_topic_names_are_utf8_and_counted_in_bytes() {
        // "é" is two UTF-8 bytes, so the compact length is 2 + 1.
        ElectLeadersRequest request = new ElectLeadersRequest(ElectionType.UNCLEAN, List.of(
                new TopicPartitions("é", List.of())), 0);
        assertThat(Hex.of(request.serialize(V2))).startsWith("01" + "02" + "03c3a9");
        assertThat(ElectLeadersRequest.parse(request.serialize(V2), V2)).isEqualTo(request);
    }

    @Test
    void a_topic_name_longer_than_the_protocol_allows_is_refused_when_writing() {
        ElectLeadersRequest request = new ElectLeadersRequest(ElectionType.UNCLEAN, List.of(
                new TopicPartitions("x".repeat(Short.MAX_VALUE + 1), List.of())), 0);
        assertThatThrownBy(() -> request.serialize(V2))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("Topic is 32768 bytes long");
    }

    private static byte[] withoutBytesAt(byte[] bytes, int... positions) {
        ByteArrayOutputStream kept = new ByteArrayOutputStream();
        outer:
        for (int i = 0; i < bytes.length; i++) {
            for (int position : positions) {
                if (i == position) {
                    continue outer;
                }
            }
            kept.write(bytes[i]);
        }
        return kept.toByteArray();
    }
}
