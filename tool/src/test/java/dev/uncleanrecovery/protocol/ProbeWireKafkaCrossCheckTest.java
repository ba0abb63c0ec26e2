// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.uncleanrecovery.wire.Hex;
import dev.uncleanrecovery.wire.ProtocolException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsPartition;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsTopic;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.junit.jupiter.api.Test;

/**
 * The stock probe's ListOffsets and Fetch, written and read by {@link ListOffsetsWire} and {@link FetchWire}, against
 * kafka-clients 4.4.0's generated message classes at every version we speak: our requests are their bytes, and we
 * read from their responses what their classes read.
 */
class ProbeWireKafkaCrossCheckTest {

    private static final Uuid ORDERS = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ");
    private static final Uuid PAYMENTS = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAg");

    /** orders-3, orders-1, orders-0, payments-0, payments-5: grouped by topic, as the probe asks. */
    private static final PartitionList ASKED = list(List.of("orders", "orders", "orders", "payments", "payments"),
            List.of(ORDERS, ORDERS, ORDERS, PAYMENTS, PAYMENTS), List.of(3, 1, 0, 0, 5));

    @Test
    void we_speak_the_newest_versions_kafka_clients_knows() {
        // A kafka-clients upgrade with a newer version must be checked against these codecs first.
        assertThat(ApiKeys.FETCH.latestVersion()).isEqualTo(FetchWire.MAX_VERSION);
        assertThat(ApiKeys.LIST_OFFSETS.latestVersion()).isEqualTo(ListOffsetsWire.MAX_VERSION);
        assertThat(FetchWire.API_KEY).isEqualTo(ApiKeys.FETCH.id);
        assertThat(ListOffsetsWire.API_KEY).isEqualTo(ApiKeys.LIST_OFFSETS.id);
    }

    @Test
    void list_offsets_request_is_kafka_clients_bytes_at_every_version() {
        List<ListOffsetsTopic> topics = new ArrayList<>();
        for (int k = 0; k < ASKED.size(); k++) {
            if (k == 0 || !ASKED.topic(k).equals(ASKED.topic(k - 1))) {
                topics.add(new ListOffsetsTopic().setName(ASKED.topic(k)));
            }
            topics.get(topics.size() - 1).partitions().add(new ListOffsetsPartition().setPartitionIndex(ASKED.partition(k))
                    .setCurrentLeaderEpoch(-1).setTimestamp(ListOffsetsRequest.LATEST_TIMESTAMP));
        }
        for (short v = ListOffsetsWire.MIN_VERSION; v <= ListOffsetsWire.MAX_VERSION; v++) {
            ListOffsetsRequest theirs = ListOffsetsRequest.Builder.forReplica(v, ListOffsetsRequest.DEBUGGING_REPLICA_ID)
                    .setTargetTimes(topics).setTimeoutMs(12_345).build(v);
            ByteBuffer ours = ListOffsetsWire.request(v, -2, 12_345, ASKED, ListOffsetsWire.LATEST_TIMESTAMP);
            assertThat(Hex.of(ours)).as("ListOffsets v%d", v).isEqualTo(Hex.of(bytes(theirs.data(), v)));
        }
    }

    @Test
    void list_offsets_response_is_read_as_kafka_clients_reads_it_at_every_version() {
        ListOffsetsResponseData data = new ListOffsetsResponseData().setThrottleTimeMs(7);
        ListOffsetsResponseData.ListOffsetsTopicResponse orders = new ListOffsetsResponseData.ListOffsetsTopicResponse()
                .setName("orders");
        orders.partitions().add(new ListOffsetsResponseData.ListOffsetsPartitionResponse().setPartitionIndex(3)
                .setOffset(4L).setLeaderEpoch(7).setTimestamp(-1L));
        orders.partitions().add(new ListOffsetsResponseData.ListOffsetsPartitionResponse().setPartitionIndex(1)
                .setErrorCode(Errors.NOT_LEADER_OR_FOLLOWER.code()).setOffset(-1L).setLeaderEpoch(-1));
        ListOffsetsResponseData.ListOffsetsTopicResponse payments = new ListOffsetsResponseData.ListOffsetsTopicResponse()
                .setName("paymënts");
        payments.partitions().add(new ListOffsetsResponseData.ListOffsetsPartitionResponse().setPartitionIndex(5)
                .setOffset(Long.MAX_VALUE - 1).setLeaderEpoch(Integer.MAX_VALUE));
        data.topics().add(orders);
        data.topics().add(payments);
        for (short v = ListOffsetsWire.MIN_VERSION; v <= ListOffsetsWire.MAX_VERSION; v++) {
            List<String> read = new ArrayList<>();
            ByteBuffer body = bytes(data, v);
            ListOffsetsWire.readResponse(body, v, (topic, partition, errorCode, offset, leaderEpoch) ->
                    read.add(topic + "-" + partition + " " + Errors.forCode(errorCode) + " " + offset + " " + leaderEpoch));
            assertThat(read).as("ListOffsets v%d", v).containsExactly(
                    "orders-3 NONE 4 7",
                    "orders-1 NOT_LEADER_OR_FOLLOWER -1 -1",
                    "paymënts-5 NONE " + (Long.MAX_VALUE - 1) + " " + Integer.MAX_VALUE);
            assertThat(body.hasRemaining()).isFalse();
        }
    }

    @Test
    void divergence_fetch_request_is_kafka_clients_bytes_at_every_version() {
        int[] probes = {7, 3, 0, 2, 1};
        Map<TopicPartition, FetchRequest.PartitionData> fetchData = new LinkedHashMap<>();
        for (int k = 0; k < ASKED.size(); k++) {
            fetchData.put(new TopicPartition(ASKED.topic(k), ASKED.partition(k)), new FetchRequest.PartitionData(
                    ASKED.topicId(k), Long.MAX_VALUE, FetchRequest.INVALID_LOG_START_OFFSET, 0, Optional.empty(),
                    Optional.of(probes[k])));
        }
        for (short v = FetchWire.MIN_VERSION; v <= FetchWire.MAX_VERSION; v++) {
            FetchRequest theirs = new FetchRequest.Builder(v, v, ListOffsetsRequest.DEBUGGING_REPLICA_ID, -1L, 0, 0,
                    fetchData).build(v);
            ByteBuffer ours = FetchWire.divergenceRequest(v, -2, ASKED, probes);
            assertThat(Hex.of(ours)).as("Fetch v%d", v).isEqualTo(Hex.of(bytes(theirs.data(), v)));
            assertThat(FetchRequest.replicaId(theirs.data())).isEqualTo(-2);
        }
    }

    @Test
    void topic_entries_start_where_the_topic_changes() {
        assertThat(ASKED.topicStarts()).containsExactly(0, 3, 5);
        // Equal names in different String instances are one topic; a topic that comes back is a new entry.
        PartitionList again = list(List.of("orders", new String("orders"), "payments", "orders"),
                List.of(ORDERS, ORDERS, PAYMENTS, ORDERS), List.of(0, 1, 0, 2));
        assertThat(again.topicStarts()).containsExactly(0, 2, 3, 4);
        assertThat(list(List.of(), List.of(), List.of()).topicStarts()).containsExactly(0);
    }

    @Test
    void divergence_fetch_without_topic_id_goes_by_name_only() {
        PartitionList legacy = list(List.of("legacy"), List.of(Uuid.ZERO_UUID), List.of(0));
        assertThat(FetchWire.divergenceRequest((short) 12, -2, legacy, new int[] {1}).remaining()).isPositive();
        assertThatThrownBy(() -> FetchWire.divergenceRequest((short) 13, -2, legacy, new int[] {1}))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("topic id of legacy is unknown");
    }

    @Test
    void fetch_response_is_read_as_kafka_clients_reads_it_at_every_version() {
        for (short v = FetchWire.MIN_VERSION; v <= FetchWire.MAX_VERSION; v++) {
            FetchResponseData data = fetchResponse(v);
            List<String> expected = new ArrayList<>();
            for (FetchResponseData.FetchableTopicResponse topic : data.responses()) {
                for (FetchResponseData.PartitionData p : topic.partitions()) {
                    expected.add((v <= 12 ? topic.topic() : topic.topicId().toString()) + "-" + p.partitionIndex() + " "
                            + Errors.forCode(p.errorCode()) + " hw " + p.highWatermark() + " " + p.divergingEpoch().epoch() + " "
                            + p.divergingEpoch().endOffset() + " " + FetchResponse.isDivergingEpoch(p));
                }
            }
            List<String> read = new ArrayList<>();
            ByteBuffer body = bytes(data, v);
            short topLevel = FetchWire.readResponse(body, v, (topic, topicId, partition, errorCode, highWatermark, epoch, endOffset) ->
                    read.add((topic != null ? topic : topicId.toString()) + "-" + partition + " "
                            + Errors.forCode(errorCode) + " hw " + highWatermark + " " + epoch + " " + endOffset + " " + (epoch >= 0)));
            assertThat(read).as("Fetch v%d", v).isEqualTo(expected).hasSize(5);
            assertThat(topLevel).isEqualTo(Errors.NONE.code());
            assertThat(body.hasRemaining()).isFalse();
        }
    }

    @Test
    void fetch_response_top_level_error_is_returned() {
        FetchResponseData data = new FetchResponseData().setErrorCode(Errors.FETCH_SESSION_ID_NOT_FOUND.code());
        short topLevel = FetchWire.readResponse(bytes(data, (short) 17), (short) 17, (t, id, p, e, hw, epoch, end) -> {
            throw new AssertionError("no partitions");
        });
        assertThat(Errors.forCode(topLevel)).isEqualTo(Errors.FETCH_SESSION_ID_NOT_FOUND);
    }

    @Test
    void truncated_and_unsupported_answers_fail_with_a_protocol_exception() {
        ByteBuffer whole = bytes(fetchResponse((short) 17), (short) 17);
        for (int cut : new int[] {0, 5, 11, whole.remaining() / 2, whole.remaining() - 1}) {
            ByteBuffer part = whole.duplicate();
            part.limit(cut);
            assertThatThrownBy(() -> FetchWire.readResponse(part, (short) 17, (t, id, p, e, hw, epoch, end) -> { }))
                    .as("cut at %d", cut).isInstanceOf(ProtocolException.class).hasMessageContaining("Fetch response v17");
        }
        assertThatThrownBy(() -> FetchWire.readResponse(whole.duplicate(), (short) 11, (t, id, p, e, hw, epoch, end) -> { }))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("v11 is not supported");
        ByteBuffer offsets = bytes(new ListOffsetsResponseData(), (short) 9);
        ByteBuffer longer = ByteBuffer.allocate(offsets.remaining() + 1).put(offsets.duplicate()).put((byte) 0).flip();
        assertThatThrownBy(() -> ListOffsetsWire.readResponse(longer, (short) 9, (t, p, e, o, l) -> { }))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("trailing bytes");
        assertThatThrownBy(() -> ListOffsetsWire.readResponse(offsets.duplicate(), (short) 5, (t, p, e, o, l) -> { }))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("v5 is not supported");
    }

    /**
     * Everything a broker may put in an answer: records, aborted transactions, a DivergingEpoch (also one with epoch
     * -1, which means none), CurrentLeader and SnapshotId tags, node endpoints (v16+), an error.
     */
    private static FetchResponseData fetchResponse(short version) {
        FetchResponseData data = new FetchResponseData().setThrottleTimeMs(3).setSessionId(0);
        FetchResponseData.FetchableTopicResponse orders = new FetchResponseData.FetchableTopicResponse()
                .setTopic("orders").setTopicId(ORDERS);
        orders.partitions().add(new FetchResponseData.PartitionData().setPartitionIndex(3).setHighWatermark(4)
                .setDivergingEpoch(new FetchResponseData.EpochEndOffset().setEpoch(5).setEndOffset(2)));
        orders.partitions().add(new FetchResponseData.PartitionData().setPartitionIndex(1)
                .setErrorCode(Errors.OFFSET_OUT_OF_RANGE.code())
                .setCurrentLeader(new FetchResponseData.LeaderIdAndEpoch().setLeaderId(2).setLeaderEpoch(9))
                .setSnapshotId(new FetchResponseData.SnapshotId().setEndOffset(10).setEpoch(1)));
        orders.partitions().add(new FetchResponseData.PartitionData().setPartitionIndex(0)
                .setAbortedTransactions(List.of(new FetchResponseData.AbortedTransaction().setProducerId(8).setFirstOffset(1),
                        new FetchResponseData.AbortedTransaction().setProducerId(9).setFirstOffset(2)))
                .setPreferredReadReplica(3)
                .setRecords(MemoryRecords.withRecords(Compression.NONE, new SimpleRecord("k".getBytes(), "v".getBytes())))
                .setDivergingEpoch(new FetchResponseData.EpochEndOffset().setEpoch(-1).setEndOffset(7)));
        FetchResponseData.FetchableTopicResponse payments = new FetchResponseData.FetchableTopicResponse()
                .setTopic("payments").setTopicId(PAYMENTS);
        payments.partitions().add(new FetchResponseData.PartitionData().setPartitionIndex(0)
                .setDivergingEpoch(new FetchResponseData.EpochEndOffset().setEpoch(0).setEndOffset(0)));
        payments.partitions().add(new FetchResponseData.PartitionData().setPartitionIndex(5)
                .setErrorCode(Errors.NOT_LEADER_OR_FOLLOWER.code()));
        data.responses().add(orders);
        data.responses().add(payments);
        if (version >= 16) {
            data.nodeEndpoints().add(new FetchResponseData.NodeEndpoint().setNodeId(2).setHost("127.0.0.1").setPort(9092));
        }
        return data;
    }

    private static ByteBuffer bytes(Message data, short version) {
        return MessageUtil.toByteBufferAccessor(data, version).buffer();
    }

    private static PartitionList list(List<String> topics, List<Uuid> ids, List<Integer> partitions) {
        return new PartitionList() {
            @Override
            public int size() {
                return topics.size();
            }

            @Override
            public String topic(int position) {
                return topics.get(position);
            }

            @Override
            public Uuid topicId(int position) {
                return ids.get(position);
            }

            @Override
            public int partition(int position) {
                return partitions.get(position);
            }
        };
    }
}
