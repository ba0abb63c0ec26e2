// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.wire;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.kafka.common.Uuid;

/**
 * GetReplicaLogInfo request v0: which partitions' logs the receiving broker should describe.
 * <pre>
 * GetReplicaLogInfoRequest v0 =&gt; [TopicPartitions] TAG_BUFFER
 *   TopicPartitions =&gt; TopicId:UUID [Partitions:INT32] TAG_BUFFER
 * </pre>
 * Arrays are compact (unsigned varint count + 1) and never null.
 *
 * @param topicPartitions     the partitions asked for, grouped by topic id, in the order the
 *                            broker answers them
 * @param unknownTaggedFields tags from a newer sender, written back unchanged
 */
public record GetReplicaLogInfoRequest(
        List<TopicPartitions> topicPartitions,
        List<UnknownTaggedField> unknownTaggedFields) implements NativeRequest {

    public static final String MESSAGE = "GetReplicaLogInfo request";

    /** Smallest TopicPartitions entry: a UUID, an empty array and an empty tag section. */
    private static final int MIN_TOPIC_PARTITIONS_BYTES = 16 + 1 + 1;

    /**
     * @param topicId             the topic, by id: names can be reused after a delete, ids cannot
     * @param partitions          partition indexes of that topic
     * @param unknownTaggedFields tags from a newer sender, written back unchanged
     */
    public record TopicPartitions(Uuid topicId, List<Integer> partitions, List<UnknownTaggedField> unknownTaggedFields) {

        public TopicPartitions {
            Objects.requireNonNull(topicId, "topicId");
            partitions = List.copyOf(partitions);
            unknownTaggedFields = List.copyOf(unknownTaggedFields);
        }

        public TopicPartitions(Uuid topicId, List<Integer> partitions) {
            this(topicId, partitions, List.of());
        }
    }

    public GetReplicaLogInfoRequest {
        topicPartitions = List.copyOf(topicPartitions);
        unknownTaggedFields = List.copyOf(unknownTaggedFields);
    }

    public GetReplicaLogInfoRequest(List<TopicPartitions> topicPartitions) {
        this(topicPartitions, List.of());
    }

    /** Number of partitions asked for, over all topics. */
    public int partitionCount() {
        int count = 0;
        for (TopicPartitions topic : topicPartitions) {
            count += topic.partitions().size();
        }
        return count;
    }

    /**
     * The first {@code maxPartitions} partitions in request order, which is what a broker answers
     * when asked for more than {@link GetReplicaLogInfo#MAX_PARTITIONS_PER_REQUEST}. A topic whose
     * partitions were all cut is dropped; tagged fields are kept.
     */
    public GetReplicaLogInfoRequest firstPartitions(int maxPartitions) {
        if (maxPartitions < 0) {
            throw new IllegalArgumentException("maxPartitions must be 0 or more, got " + maxPartitions);
        }
        if (partitionCount() <= maxPartitions) {
            return this;
        }
        List<TopicPartitions> kept = new ArrayList<>();
        int left = maxPartitions;
        for (TopicPartitions topic : topicPartitions) {
            List<Integer> partitions = topic.partitions();
            if (partitions.size() <= left) {
                kept.add(topic);
                left -= partitions.size();
            } else {
                if (left > 0) {
                    kept.add(new TopicPartitions(topic.topicId(), partitions.subList(0, left), topic.unknownTaggedFields()));
                }
                break;
            }
        }
        return new GetReplicaLogInfoRequest(kept, unknownTaggedFields);
    }

    /** {@link GetReplicaLogInfo#apiKey()}: private, and the same on tool and agent. */
    @Override
    public short apiKey() {
        return GetReplicaLogInfo.apiKey();
    }

    @Override
    public ByteBuffer serialize(short version) {
        checkSupported(version);
        WireWriter out = new WireWriter(MESSAGE);
        write(out);
        return out.toByteBuffer();
    }

    /**
     * Decodes a request body: from {@code body}'s position to its limit, which must hold exactly
     * one request. On success the position moves to the limit; on failure it stays put.
     *
     * @throws ProtocolException if the bytes are not a valid request of that version
     */
    public static GetReplicaLogInfoRequest parse(ByteBuffer body, short version) {
        checkSupported(version);
        WireReader in = WireReader.of(body, MESSAGE);
        GetReplicaLogInfoRequest request = read(in);
        in.expectEnd();
        in.consumedTo(body);
        return request;
    }

    public static void checkSupported(short version) {
        if (version != GetReplicaLogInfo.VERSION) {
            throw new ProtocolException("GetReplicaLogInfo request v" + version + " is not supported: only v0 exists");
        }
    }

    void write(WireWriter out) {
        out.writeCompactArrayCount(topicPartitions.size());
        for (TopicPartitions topic : topicPartitions) {
            out.writeUuid(topic.topicId());
            out.writeCompactInt32Array("Partitions", topic.partitions());
            out.writeTaggedFields(topic.unknownTaggedFields());
        }
        out.writeTaggedFields(unknownTaggedFields);
    }

    public static GetReplicaLogInfoRequest read(WireReader in) {
        int topicCount = in.readCompactArrayCount("TopicPartitions", MIN_TOPIC_PARTITIONS_BYTES, false);
        List<TopicPartitions> topics = new ArrayList<>(topicCount);
        for (int i = 0; i < topicCount; i++) {
            Uuid topicId = in.readUuid("TopicId");
            List<Integer> partitions = in.readCompactInt32Array("Partitions");
            List<UnknownTaggedField> tags = in.readTaggedFields("TopicPartitions");
            topics.add(new TopicPartitions(topicId, partitions, tags));
        }
        List<UnknownTaggedField> tags = in.readTaggedFields(MESSAGE);
        return new GetReplicaLogInfoRequest(topics, tags);
    }
}
