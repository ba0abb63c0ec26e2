// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.wire;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;

/**
 * GetReplicaLogInfo response v0, the upstream KIP-966 layout:
 * <pre>
 * GetReplicaLogInfoResponse v0 =&gt; ThrottleTimeMs:INT32 BrokerEpoch:INT64 HasMoreData:BOOL
 *                                  [TopicPartitionLogInfoList] TAG_BUFFER
 *   TopicPartitionLogInfoList =&gt; TopicId:UUID [PartitionLogInfo] TAG_BUFFER
 *     PartitionLogInfo =&gt; Partition:INT32 LastWrittenLeaderEpoch:INT32 CurrentLeaderEpoch:INT32
 *                         LogEndOffset:INT64 ErrorCode:INT16 TAG_BUFFER
 * </pre>
 * Arrays are compact and never null.
 *
 * @param throttleTimeMs            how long the broker asks the client to wait before the next request
 * @param brokerEpoch               the answering broker's epoch; a change between probe and
 *                                  election means the broker restarted and the answer is stale
 * @param hasMoreData               true when the request asked for more than
 *                                  {@link GetReplicaLogInfo#MAX_PARTITIONS_PER_REQUEST}
 *                                  partitions: only the first ones were answered
 * @param topicPartitionLogInfoList the answers, grouped by topic id
 * @param unknownTaggedFields       tags from a newer sender, written back unchanged
 */
public record GetReplicaLogInfoResponse(
        int throttleTimeMs,
        long brokerEpoch,
        boolean hasMoreData,
        List<TopicPartitionLogInfo> topicPartitionLogInfoList,
        List<UnknownTaggedField> unknownTaggedFields) implements NativeResponse {

    public static final String MESSAGE = "GetReplicaLogInfo response";

    /** Smallest TopicPartitionLogInfoList entry: a UUID, an empty array and an empty tag section. */
    private static final int MIN_TOPIC_BYTES = 16 + 1 + 1;

    /** A PartitionLogInfo entry: 4 + 4 + 4 + 8 + 2 fixed bytes and at least an empty tag section. */
    private static final int MIN_PARTITION_BYTES = 4 + 4 + 4 + 8 + 2 + 1;

    /**
     * @param topicId             the topic the answers are about
     * @param partitionLogInfo    one answer per partition asked for
     * @param unknownTaggedFields tags from a newer sender, written back unchanged
     */
    public record TopicPartitionLogInfo(
            Uuid topicId,
            List<PartitionLogInfo> partitionLogInfo,
            List<UnknownTaggedField> unknownTaggedFields) {

        public TopicPartitionLogInfo {
            Objects.requireNonNull(topicId, "topicId");
            partitionLogInfo = List.copyOf(partitionLogInfo);
            unknownTaggedFields = List.copyOf(unknownTaggedFields);
        }

        public TopicPartitionLogInfo(Uuid topicId, List<PartitionLogInfo> partitionLogInfo) {
            this(topicId, partitionLogInfo, List.of());
        }
    }

    /**
     * What one replica's broker knows about that replica's log.
     *
     * @param partition              the partition index
     * @param lastWrittenLeaderEpoch the latest epoch in the replica's leader-epoch cache, -1 if empty;
     *                               the first thing the leader choice ranks by (the Raft rule)
     * @param currentLeaderEpoch     the partition's leader epoch as that broker knows it
     * @param logEndOffset           the offset after the replica's last record
     * @param errorCode              a Kafka error code, 0 when the other fields are meaningful
     * @param unknownTaggedFields    tags from a newer sender, written back unchanged
     */
    public record PartitionLogInfo(
            int partition,
            int lastWrittenLeaderEpoch,
            int currentLeaderEpoch,
            long logEndOffset,
            short errorCode,
            List<UnknownTaggedField> unknownTaggedFields) {

        public PartitionLogInfo {
            unknownTaggedFields = List.copyOf(unknownTaggedFields);
        }

        public PartitionLogInfo(int partition, int lastWrittenLeaderEpoch, int currentLeaderEpoch,
                                long logEndOffset, short errorCode) {
            this(partition, lastWrittenLeaderEpoch, currentLeaderEpoch, logEndOffset, errorCode, List.of());
        }

        /** The answer for a partition the broker could not describe: every number -1, meaning unknown. */
        public static PartitionLogInfo failed(int partition, Errors error) {
            return new PartitionLogInfo(partition, -1, -1, -1L, error.code());
        }

        /** The error code as Kafka's enum; unknown codes map to {@link Errors#UNKNOWN_SERVER_ERROR}. */
        public Errors error() {
            return Errors.forCode(errorCode);
        }
    }

    public GetReplicaLogInfoResponse {
        topicPartitionLogInfoList = List.copyOf(topicPartitionLogInfoList);
        unknownTaggedFields = List.copyOf(unknownTaggedFields);
    }

    public GetReplicaLogInfoResponse(int throttleTimeMs, long brokerEpoch, boolean hasMoreData,
                                     List<TopicPartitionLogInfo> topicPartitionLogInfoList) {
        this(throttleTimeMs, brokerEpoch, hasMoreData, topicPartitionLogInfoList, List.of());
    }

    @Override
    public ByteBuffer serialize(short version) {
        checkSupported(version);
        WireWriter out = new WireWriter(MESSAGE);
        write(out);
        return out.toByteBuffer();
    }

    /**
     * Decodes a response body: from {@code body}'s position to its limit, which must hold exactly
     * one response. On success the position moves to the limit; on failure it stays put.
     *
     * @throws ProtocolException if the bytes are not a valid response of that version
     */
    public static GetReplicaLogInfoResponse parse(ByteBuffer body, short version) {
        checkSupported(version);
        WireReader in = WireReader.of(body, MESSAGE);
        GetReplicaLogInfoResponse response = read(in);
        in.expectEnd();
        in.consumedTo(body);
        return response;
    }

    public static void checkSupported(short version) {
        if (version != GetReplicaLogInfo.VERSION) {
            throw new ProtocolException("GetReplicaLogInfo response v" + version + " is not supported: only v0 exists");
        }
    }

    void write(WireWriter out) {
        out.writeInt32(throttleTimeMs);
        out.writeInt64(brokerEpoch);
        out.writeBoolean(hasMoreData);
        out.writeCompactArrayCount(topicPartitionLogInfoList.size());
        for (TopicPartitionLogInfo topic : topicPartitionLogInfoList) {
            out.writeUuid(topic.topicId());
            out.writeCompactArrayCount(topic.partitionLogInfo().size());
            for (PartitionLogInfo partition : topic.partitionLogInfo()) {
                out.writeInt32(partition.partition());
                out.writeInt32(partition.lastWrittenLeaderEpoch());
                out.writeInt32(partition.currentLeaderEpoch());
                out.writeInt64(partition.logEndOffset());
                out.writeInt16(partition.errorCode());
                out.writeTaggedFields(partition.unknownTaggedFields());
            }
            out.writeTaggedFields(topic.unknownTaggedFields());
        }
        out.writeTaggedFields(unknownTaggedFields);
    }

    public static GetReplicaLogInfoResponse read(WireReader in) {
        int throttleTimeMs = in.readInt32("ThrottleTimeMs");
        long brokerEpoch = in.readInt64("BrokerEpoch");
        boolean hasMoreData = in.readBoolean("HasMoreData");
        int topicCount = in.readCompactArrayCount("TopicPartitionLogInfoList", MIN_TOPIC_BYTES, false);
        List<TopicPartitionLogInfo> topics = new ArrayList<>(topicCount);
        for (int t = 0; t < topicCount; t++) {
            Uuid topicId = in.readUuid("TopicId");
            int partitionCount = in.readCompactArrayCount("PartitionLogInfo", MIN_PARTITION_BYTES, false);
            List<PartitionLogInfo> partitions = new ArrayList<>(partitionCount);
            for (int p = 0; p < partitionCount; p++) {
                int partition = in.readInt32("Partition");
                int lastWrittenLeaderEpoch = in.readInt32("LastWrittenLeaderEpoch");
                int currentLeaderEpoch = in.readInt32("CurrentLeaderEpoch");
                long logEndOffset = in.readInt64("LogEndOffset");
                short errorCode = in.readInt16("ErrorCode");
                List<UnknownTaggedField> tags = in.readTaggedFields("PartitionLogInfo");
                partitions.add(new PartitionLogInfo(partition, lastWrittenLeaderEpoch, currentLeaderEpoch,
                        logEndOffset, errorCode, tags));
            }
            List<UnknownTaggedField> tags = in.readTaggedFields("TopicPartitionLogInfoList");
            topics.add(new TopicPartitionLogInfo(topicId, partitions, tags));
        }
        List<UnknownTaggedField> tags = in.readTaggedFields(MESSAGE);
        return new GetReplicaLogInfoResponse(throttleTimeMs, brokerEpoch, hasMoreData, topics, tags);
    }
}
