// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.wire;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.kafka.common.protocol.Errors;

/**
 * ElectLeaders response, v2 and v3 (v3 did not change the response):
 * <pre>
 * ElectLeadersResponse v2-v3 =&gt; ThrottleTimeMs:INT32 ErrorCode:INT16 [ReplicaElectionResults] TAG_BUFFER
 *   ReplicaElectionResults =&gt; Topic:COMPACT_STRING [PartitionResult] TAG_BUFFER
 *     PartitionResult =&gt; PartitionId:INT32 ErrorCode:INT16 ErrorMessage:COMPACT_NULLABLE_STRING TAG_BUFFER
 * </pre>
 * Arrays are compact and never null.
 *
 * @param throttleTimeMs         how long the broker asks the client to wait before the next request
 * @param errorCode              a request-wide error (for example CLUSTER_AUTHORIZATION_FAILED), 0 if none
 * @param replicaElectionResults the outcome per partition, grouped by topic
 * @param unknownTaggedFields    tags from a newer sender, written back unchanged
 */
public record ElectLeadersResponse(
        int throttleTimeMs,
        short errorCode,
        List<ReplicaElectionResult> replicaElectionResults,
        List<UnknownTaggedField> unknownTaggedFields) implements NativeResponse {

    /** Smallest ReplicaElectionResults entry: empty topic string, empty array, empty tag section. */
    private static final int MIN_TOPIC_BYTES = 1 + 1 + 1;

    /** Smallest PartitionResult entry: 4 + 2 fixed bytes, a null message and an empty tag section. */
    private static final int MIN_PARTITION_BYTES = 4 + 2 + 1 + 1;

    /**
     * @param topic               the topic name
     * @param partitionResult     one outcome per partition asked for
     * @param unknownTaggedFields tags from a newer sender, written back unchanged
     */
    public record ReplicaElectionResult(
            String topic,
            List<PartitionResult> partitionResult,
            List<UnknownTaggedField> unknownTaggedFields) {

        public ReplicaElectionResult {
            Objects.requireNonNull(topic, "topic");
            partitionResult = List.copyOf(partitionResult);
            unknownTaggedFields = List.copyOf(unknownTaggedFields);
        }

        public ReplicaElectionResult(String topic, List<PartitionResult> partitionResult) {
            this(topic, partitionResult, List.of());
        }
    }

    /**
     * @param partitionId         the partition index
     * @param errorCode           0 when the election happened (or, for a designated election, the
     *                            designated replica now leads); otherwise why not
     * @param errorMessage        the controller's explanation, or null
     * @param unknownTaggedFields tags from a newer sender, written back unchanged
     */
    public record PartitionResult(
            int partitionId,
            short errorCode,
            String errorMessage,
            List<UnknownTaggedField> unknownTaggedFields) {

        public PartitionResult {
            unknownTaggedFields = List.copyOf(unknownTaggedFields);
        }

        public PartitionResult(int partitionId, short errorCode, String errorMessage) {
            this(partitionId, errorCode, errorMessage, List.of());
        }

        /** The error code as Kafka's enum; unknown codes map to {@link Errors#UNKNOWN_SERVER_ERROR}. */
        public Errors error() {
            return Errors.forCode(errorCode);
        }
    }

    public ElectLeadersResponse {
        replicaElectionResults = List.copyOf(replicaElectionResults);
        unknownTaggedFields = List.copyOf(unknownTaggedFields);
    }

    public ElectLeadersResponse(int throttleTimeMs, short errorCode, List<ReplicaElectionResult> replicaElectionResults) {
        this(throttleTimeMs, errorCode, replicaElectionResults, List.of());
    }

    /** The request-wide error code as Kafka's enum. */
    public Errors error() {
        return Errors.forCode(errorCode);
    }

    @Override
    public ByteBuffer serialize(short version) {
        ElectLeaders.checkSupported(version, "response");
        WireWriter out = new WireWriter(message(version));
        write(out);
        return out.toByteBuffer();
    }

    /**
     * Decodes a response body of {@code version} (2 or 3): from {@code body}'s position to its
     * limit, which must hold exactly one response. On success the position moves to the limit.
     *
     * @throws ProtocolException if the bytes are not a valid response of that version
     */
    public static ElectLeadersResponse parse(ByteBuffer body, short version) {
        ElectLeaders.checkSupported(version, "response");
        WireReader in = WireReader.of(body, message(version));
        ElectLeadersResponse response = read(in);
        in.expectEnd();
        in.consumedTo(body);
        return response;
    }

    public static String message(short version) {
        return "ElectLeaders v" + version + " response";
    }

    void write(WireWriter out) {
        out.writeInt32(throttleTimeMs);
        out.writeInt16(errorCode);
        out.writeCompactArrayCount(replicaElectionResults.size());
        for (ReplicaElectionResult topic : replicaElectionResults) {
            out.writeCompactString("Topic", topic.topic());
            out.writeCompactArrayCount(topic.partitionResult().size());
            for (PartitionResult partition : topic.partitionResult()) {
                out.writeInt32(partition.partitionId());
                out.writeInt16(partition.errorCode());
                out.writeCompactNullableString("ErrorMessage", partition.errorMessage());
                out.writeTaggedFields(partition.unknownTaggedFields());
            }
            out.writeTaggedFields(topic.unknownTaggedFields());
        }
        out.writeTaggedFields(unknownTaggedFields);
    }

    public static ElectLeadersResponse read(WireReader in) {
        int throttleTimeMs = in.readInt32("ThrottleTimeMs");
        short errorCode = in.readInt16("ErrorCode");
        int topicCount = in.readCompactArrayCount("ReplicaElectionResults", MIN_TOPIC_BYTES, false);
        List<ReplicaElectionResult> topics = new ArrayList<>(topicCount);
        for (int t = 0; t < topicCount; t++) {
            String topic = in.readCompactString("Topic");
            int partitionCount = in.readCompactArrayCount("PartitionResult", MIN_PARTITION_BYTES, false);
            List<PartitionResult> partitions = new ArrayList<>(partitionCount);
            for (int p = 0; p < partitionCount; p++) {
                int partitionId = in.readInt32("PartitionId");
                short partitionError = in.readInt16("ErrorCode");
                String errorMessage = in.readCompactNullableString("ErrorMessage");
                List<UnknownTaggedField> tags = in.readTaggedFields("PartitionResult");
                partitions.add(new PartitionResult(partitionId, partitionError, errorMessage, tags));
            }
            List<UnknownTaggedField> tags = in.readTaggedFields("ReplicaElectionResults");
            topics.add(new ReplicaElectionResult(topic, partitions, tags));
        }
        List<UnknownTaggedField> tags = in.readTaggedFields(in.message());
        return new ElectLeadersResponse(throttleTimeMs, errorCode, topics, tags);
    }
}
