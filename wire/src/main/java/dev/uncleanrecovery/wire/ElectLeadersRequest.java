// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.wire;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.kafka.common.ElectionType;

/**
 * ElectLeaders request, v2 (Kafka's) and v3 (v2 plus DesignatedLeaders):
 * <pre>
 * ElectLeadersRequest v2-v3 =&gt; ElectionType:INT8 [TopicPartitions]? TimeoutMs:INT32 TAG_BUFFER
 *   TopicPartitions =&gt; Topic:COMPACT_STRING [Partitions:INT32] [DesignatedLeaders:INT32]? (v3+) TAG_BUFFER
 * </pre>
 * {@code []?} is a compact nullable array. A null TopicPartitions asks for every partition
 * (preferred elections only, in Kafka).
 *
 * @param electionType        Kafka's {@link ElectionType} byte (0 preferred, 1 unclean), kept raw
 *                            so that a value this codec does not know survives decoding
 * @param topicPartitions     the partitions to elect, or null for all partitions
 * @param timeoutMs           how long the controller may take before answering
 * @param unknownTaggedFields tags from a newer sender, written back unchanged
 */
public record ElectLeadersRequest(
        byte electionType,
        List<TopicPartitions> topicPartitions,
        int timeoutMs,
        List<UnknownTaggedField> unknownTaggedFields) implements NativeRequest {

    /** Smallest TopicPartitions entry in v2: empty topic string, empty array, empty tag section. */
    private static final int MIN_TOPIC_PARTITIONS_BYTES_V2 = 1 + 1 + 1;

    /**
     * @param topic               the topic name
     * @param partitions          partition indexes to elect
     * @param designatedLeaders   v3 only, null when not designating: the broker that must become
     *                            leader of {@code partitions.get(i)} is {@code designatedLeaders.get(i)}.
     *                            The codec does not check the two lists have the same length; the
     *                            controller refuses the topic when they do not.
     * @param unknownTaggedFields tags from a newer sender, written back unchanged
     */
    public record TopicPartitions(
            String topic,
            List<Integer> partitions,
            List<Integer> designatedLeaders,
            List<UnknownTaggedField> unknownTaggedFields) {

        public TopicPartitions {
            Objects.requireNonNull(topic, "topic");
            partitions = List.copyOf(partitions);
            designatedLeaders = designatedLeaders == null ? null : List.copyOf(designatedLeaders);
            unknownTaggedFields = List.copyOf(unknownTaggedFields);
        }

        /** Partitions to elect without designating anyone (all v2 requests). */
        public TopicPartitions(String topic, List<Integer> partitions) {
            this(topic, partitions, null, List.of());
        }

        /** Partitions to elect, each led afterwards by the replica at the same index of {@code designatedLeaders}. */
        public TopicPartitions(String topic, List<Integer> partitions, List<Integer> designatedLeaders) {
            this(topic, partitions, designatedLeaders, List.of());
        }
    }

    public ElectLeadersRequest {
        topicPartitions = topicPartitions == null ? null : List.copyOf(topicPartitions);
        unknownTaggedFields = List.copyOf(unknownTaggedFields);
    }

    public ElectLeadersRequest(ElectionType electionType, List<TopicPartitions> topicPartitions, int timeoutMs) {
        this(electionType.value, topicPartitions, timeoutMs, List.of());
    }

    /** True when some entry designates leaders, which only v3 can carry. */
    public boolean hasDesignatedLeaders() {
        return topicPartitions != null
                && topicPartitions.stream().anyMatch(topic -> topic.designatedLeaders() != null);
    }

    @Override
    public short apiKey() {
        return ElectLeaders.API_KEY;
    }

    /**
     * @throws ProtocolException for a version other than 2 or 3, or for v2 with designated leaders:
     *                           silently dropping them would turn a designated election into a
     *                           plain unclean one that may pick another replica
     */
    @Override
    public ByteBuffer serialize(short version) {
        ElectLeaders.checkSupported(version, "request");
        if (version < ElectLeaders.DESIGNATED_LEADERS_VERSION && hasDesignatedLeaders()) {
            throw new ProtocolException("ElectLeaders request v" + version + " cannot carry DesignatedLeaders (topic "
                    + firstDesignatingTopic() + "); they need v" + ElectLeaders.DESIGNATED_LEADERS_VERSION);
        }
        WireWriter out = new WireWriter(message(version));
        write(out, version);
        return out.toByteBuffer();
    }

    /**
     * Decodes a request body of {@code version} (2 or 3): from {@code body}'s position to its limit,
     * which must hold exactly one request. On success the position moves to the limit.
     *
     * @throws ProtocolException if the bytes are not a valid request of that version
     */
    public static ElectLeadersRequest parse(ByteBuffer body, short version) {
        ElectLeaders.checkSupported(version, "request");
        WireReader in = WireReader.of(body, message(version));
        ElectLeadersRequest request = read(in, version);
        in.expectEnd();
        in.consumedTo(body);
        return request;
    }

    public static String message(short version) {
        return "ElectLeaders v" + version + " request";
    }

    private String firstDesignatingTopic() {
        return topicPartitions.stream()
                .filter(topic -> topic.designatedLeaders() != null)
                .map(TopicPartitions::topic)
                .findFirst()
                .orElse("?");
    }

    void write(WireWriter out, short version) {
        out.writeInt8(electionType);
        if (topicPartitions == null) {
            out.writeCompactNullArray();
        } else {
            out.writeCompactArrayCount(topicPartitions.size());
            for (TopicPartitions topic : topicPartitions) {
                out.writeCompactString("Topic", topic.topic());
                out.writeCompactInt32Array("Partitions", topic.partitions());
                if (version >= ElectLeaders.DESIGNATED_LEADERS_VERSION) {
                    out.writeCompactNullableInt32Array(topic.designatedLeaders());
                }
                out.writeTaggedFields(topic.unknownTaggedFields());
            }
        }
        out.writeInt32(timeoutMs);
        out.writeTaggedFields(unknownTaggedFields);
    }

    public static ElectLeadersRequest read(WireReader in, short version) {
        boolean designating = version >= ElectLeaders.DESIGNATED_LEADERS_VERSION;
        byte electionType = in.readInt8("ElectionType");
        int minEntryBytes = MIN_TOPIC_PARTITIONS_BYTES_V2 + (designating ? 1 : 0);
        int topicCount = in.readCompactArrayCount("TopicPartitions", minEntryBytes, true);
        List<TopicPartitions> topics = null;
        if (topicCount >= 0) {
            topics = new ArrayList<>(topicCount);
            for (int i = 0; i < topicCount; i++) {
                String topic = in.readCompactString("Topic");
                List<Integer> partitions = in.readCompactInt32Array("Partitions");
                List<Integer> designatedLeaders = designating ? in.readCompactNullableInt32Array("DesignatedLeaders") : null;
                List<UnknownTaggedField> tags = in.readTaggedFields("TopicPartitions");
                topics.add(new TopicPartitions(topic, partitions, designatedLeaders, tags));
            }
        }
        int timeoutMs = in.readInt32("TimeoutMs");
        List<UnknownTaggedField> tags = in.readTaggedFields(in.message());
        return new ElectLeadersRequest(electionType, topics, timeoutMs, tags);
    }
}
