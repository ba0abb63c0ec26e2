// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.protocol;

import dev.uncleanrecovery.wire.ProtocolException;
import dev.uncleanrecovery.wire.WireReader;
import dev.uncleanrecovery.wire.WireWriter;
import java.nio.ByteBuffer;

/**
 * ListOffsets in its flexible versions, written and read from the protocol's schema without an object per
 * partition (the stock probe asks for thousands of partitions per request):
 * <pre>
 * ListOffsetsRequest v6–v11 =&gt; ReplicaId:INT32 IsolationLevel:INT8 [Topics] TimeoutMs:INT32 (v10+) TAG_BUFFER
 *   Topics =&gt; Name:COMPACT_STRING [Partitions] TAG_BUFFER
 *     Partitions =&gt; PartitionIndex:INT32 CurrentLeaderEpoch:INT32 Timestamp:INT64 TAG_BUFFER
 * ListOffsetsResponse v6–v11 =&gt; ThrottleTimeMs:INT32 [Topics] TAG_BUFFER
 *   Topics =&gt; Name:COMPACT_STRING [Partitions] TAG_BUFFER
 *     Partitions =&gt; PartitionIndex:INT32 ErrorCode:INT16 Timestamp:INT64 Offset:INT64 LeaderEpoch:INT32 TAG_BUFFER
 * </pre>
 * Arrays are compact and never null. v6 is the first flexible version (every KRaft broker offers it); v11 is the
 * newest kafka-clients 4.4 knows, so a newer broker is asked in v11.
 */
public final class ListOffsetsWire {

    public static final short API_KEY = 2;
    public static final short MIN_VERSION = 6;
    public static final short MAX_VERSION = 11;
    /** Timestamp -1: the offset after the last record (with IsolationLevel 0 and ReplicaId -2: the log end offset). */
    public static final long LATEST_TIMESTAMP = -1L;

    private static final String REQUEST = "ListOffsets request";
    private static final String SUPPORTED = "the flexible versions";
    private static final String RESPONSE = "ListOffsets response";
    private static final short FIRST_VERSION_WITH_TIMEOUT = 10;
    /** A Topics entry: an empty name, an empty array and an empty tag section. */
    private static final int MIN_TOPIC_BYTES = 3;
    /** A Partitions entry: 4 + 2 + 8 + 8 + 4 fixed bytes and an empty tag section. */
    private static final int MIN_PARTITION_BYTES = 27;

    private ListOffsetsWire() {
    }

    /** What a response says about one partition, in the order the broker wrote them. */
    @FunctionalInterface
    public interface Answers {
        void partition(String topic, int partition, short errorCode, long offset, int leaderEpoch);
    }

    /**
     * A request body asking every partition of {@code partitions} for the offset at {@code timestamp}, with
     * IsolationLevel 0 (READ_UNCOMMITTED) and CurrentLeaderEpoch -1 (no fencing check).
     */
    public static ByteBuffer request(short version, int replicaId, int timeoutMs, PartitionList partitions, long timestamp) {
        ProtocolException.requireVersion(REQUEST, version, MIN_VERSION, MAX_VERSION, SUPPORTED);
        int[] starts = partitions.topicStarts();
        WireWriter out = new WireWriter(REQUEST + " v" + version, 16 + 64 * starts.length + 17 * partitions.size());
        out.writeInt32(replicaId);
        out.writeInt8((byte) 0);
        out.writeCompactArrayCount(starts.length - 1);
        for (int t = 0; t + 1 < starts.length; t++) {
            out.writeCompactString("Name", partitions.topic(starts[t]));
            out.writeCompactArrayCount(starts[t + 1] - starts[t]);
            for (int k = starts[t]; k < starts[t + 1]; k++) {
                out.writeInt32(partitions.partition(k));
                out.writeInt32(-1);
                out.writeInt64(timestamp);
                out.writeUnsignedVarint(0);
            }
            out.writeUnsignedVarint(0);
        }
        if (version >= FIRST_VERSION_WITH_TIMEOUT) {
            out.writeInt32(timeoutMs);
        }
        out.writeUnsignedVarint(0);
        return out.toByteBuffer();
    }

    /**
     * Reads a response body of {@code version} from {@code body}'s position to its limit, telling {@code answers}
     * about every partition; tags are skipped.
     *
     * @throws ProtocolException if the bytes are not such a response
     */
    public static void readResponse(ByteBuffer body, short version, Answers answers) {
        ProtocolException.requireVersion(RESPONSE, version, MIN_VERSION, MAX_VERSION, SUPPORTED);
        WireReader in = WireReader.of(body, RESPONSE + " v" + version);
        in.readInt32("ThrottleTimeMs");
        int topics = in.readCompactArrayCount("Topics", MIN_TOPIC_BYTES, false);
        for (int t = 0; t < topics; t++) {
            String name = in.readCompactString("Name");
            int partitions = in.readCompactArrayCount("Partitions", MIN_PARTITION_BYTES, false);
            for (int p = 0; p < partitions; p++) {
                int index = in.readInt32("PartitionIndex");
                short errorCode = in.readInt16("ErrorCode");
                in.readInt64("Timestamp");
                long offset = in.readInt64("Offset");
                int leaderEpoch = in.readInt32("LeaderEpoch");
                in.skipTaggedFields("Partitions");
                answers.partition(name, index, errorCode, offset, leaderEpoch);
            }
            in.skipTaggedFields("Topics");
        }
        in.skipTaggedFields(RESPONSE);
        in.expectEnd();
        in.consumedTo(body);
    }
}
