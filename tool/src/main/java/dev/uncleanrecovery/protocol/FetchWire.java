// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.protocol;

import dev.uncleanrecovery.wire.ProtocolException;
import dev.uncleanrecovery.wire.WireReader;
import dev.uncleanrecovery.wire.WireWriter;
import java.nio.ByteBuffer;
import org.apache.kafka.common.Uuid;

/**
 * The Fetch request of the stock probe's DivergingEpoch search, and the parts of the Fetch response that search
 * reads, in the flexible versions, written and read from the protocol's schema without an object per partition:
 * <pre>
 * FetchRequest v12–v18 =&gt; ReplicaId:INT32 (v12–v14) MaxWaitMs:INT32 MinBytes:INT32 MaxBytes:INT32
 *     IsolationLevel:INT8 SessionId:INT32 SessionEpoch:INT32 [Topics] [ForgottenTopicsData] RackId:COMPACT_STRING
 *     TAG_BUFFER (tag 0 ClusterId; tag 1 ReplicaState =&gt; ReplicaId:INT32 ReplicaEpoch:INT64 TAG_BUFFER, v15+)
 *   Topics =&gt; Topic:COMPACT_STRING (v12) | TopicId:UUID (v13+), [Partitions] TAG_BUFFER
 *     Partitions =&gt; Partition:INT32 CurrentLeaderEpoch:INT32 FetchOffset:INT64 LastFetchedEpoch:INT32
 *                   LogStartOffset:INT64 PartitionMaxBytes:INT32 TAG_BUFFER
 * FetchResponse v12–v18 =&gt; ThrottleTimeMs:INT32 ErrorCode:INT16 SessionId:INT32 [Responses] TAG_BUFFER
 *   Responses =&gt; Topic:COMPACT_STRING (v12) | TopicId:UUID (v13+), [Partitions] TAG_BUFFER
 *     Partitions =&gt; PartitionIndex:INT32 ErrorCode:INT16 HighWatermark:INT64 LastStableOffset:INT64
 *                   LogStartOffset:INT64 AbortedTransactions:COMPACT_NULLABLE_ARRAY PreferredReadReplica:INT32
 *                   Records:COMPACT_NULLABLE_RECORDS TAG_BUFFER
 *                   (tag 0 DivergingEpoch =&gt; Epoch:INT32 EndOffset:INT64 TAG_BUFFER; tags 1, 2 skipped)
 *       AbortedTransactions =&gt; ProducerId:INT64 FirstOffset:INT64 TAG_BUFFER
 * </pre>
 * v12 is the first version with LastFetchedEpoch, hence the divergence check; v13 names topics by id; v15 moved
 * ReplicaId into the ReplicaState tag. v18 is the newest kafka-clients 4.4 knows, so a newer broker is asked in v18.
 */
public final class FetchWire {

    public static final short API_KEY = 1;
    public static final short MIN_VERSION = 12;
    public static final short LAST_VERSION_WITH_TOPIC_NAMES = 12;
    public static final short MAX_VERSION = 18;

    private static final String REQUEST = "Fetch request";
    private static final String SUPPORTED = "flexible, with LastFetchedEpoch";
    private static final String RESPONSE = "Fetch response";
    private static final short FIRST_VERSION_WITH_REPLICA_STATE = 15;
    private static final int REPLICA_STATE_TAG = 1;
    private static final int DIVERGING_EPOCH_TAG = 0;
    /** The smallest Responses entry: a UUID (v13+) or a one-byte name, an empty array, an empty tag section. */
    private static final int MIN_TOPIC_BYTES = 3;
    /** The smallest Partitions entry: 4 + 2 + 8 + 8 + 8 fixed bytes, a null array, 4 bytes, null records, no tags. */
    private static final int MIN_PARTITION_BYTES = 37;
    /** An AbortedTransactions entry: two int64 and an empty tag section. */
    private static final int ABORTED_TRANSACTION_BYTES = 17;

    private FetchWire() {
    }

    /** What a response says about one partition, in the order the broker wrote them. */
    @FunctionalInterface
    public interface Answers {
        /**
         * @param topic           the topic's name (v12), else null
         * @param topicId         the topic's id (v13+), else null
         * @param highWatermark   the replica's local high watermark (a follower's lags its leader's)
         * @param divergingEpoch  the DivergingEpoch's Epoch, -1 when the broker sent none; the log diverges from
         *                        LastFetchedEpoch only when it is 0 or more (kafka-clients' isDivergingEpoch)
         * @param divergingEndOffset the DivergingEpoch's EndOffset, -1 when the broker sent none
         */
        void partition(String topic, Uuid topicId, int partition, short errorCode, long highWatermark,
                       int divergingEpoch, long divergingEndOffset);
    }

    /**
     * A request body that asks every partition of {@code partitions} whether its log diverges from
     * LastFetchedEpoch = {@code lastFetchedEpochs[k]}: FetchOffset past any log end (so the broker runs the
     * divergence check and returns no records), CurrentLeaderEpoch -1, LogStartOffset -1, PartitionMaxBytes 0,
     * MaxWaitMs 0 and MinBytes 0 (answer at once), MaxBytes as large as possible, no session (SessionId 0,
     * SessionEpoch -1: the broker creates none), no rack.
     *
     * @param replicaId -2 (DEBUGGING) lets a follower, or a replica of a partition without leader, serve it
     */
    public static ByteBuffer divergenceRequest(short version, int replicaId, PartitionList partitions,
                                               int[] lastFetchedEpochs) {
        ProtocolException.requireVersion(REQUEST, version, MIN_VERSION, MAX_VERSION, SUPPORTED);
        int[] starts = partitions.topicStarts();
        WireWriter out = new WireWriter(REQUEST + " v" + version, 64 + 64 * starts.length + 33 * partitions.size());
        if (version < FIRST_VERSION_WITH_REPLICA_STATE) {
            out.writeInt32(replicaId);
        }
        out.writeInt32(0);                  // MaxWaitMs
        out.writeInt32(0);                  // MinBytes
        out.writeInt32(Integer.MAX_VALUE);  // MaxBytes
        out.writeInt8((byte) 0);            // IsolationLevel
        out.writeInt32(0);                  // SessionId
        out.writeInt32(-1);                 // SessionEpoch
        out.writeCompactArrayCount(starts.length - 1);
        for (int t = 0; t + 1 < starts.length; t++) {
            int k = starts[t];
            if (version <= LAST_VERSION_WITH_TOPIC_NAMES) {
                out.writeCompactString("Topic", partitions.topic(k));
            } else {
                Uuid topicId = partitions.topicId(k);
                if (Uuid.ZERO_UUID.equals(topicId)) {
                    throw new ProtocolException(REQUEST + " v" + version + " cannot be written: the topic id of "
                            + partitions.topic(k) + " is unknown, and v13+ names topics by id; use v12");
                }
                out.writeUuid(topicId);
            }
            out.writeCompactArrayCount(starts[t + 1] - starts[t]);
            for (; k < starts[t + 1]; k++) {
                out.writeInt32(partitions.partition(k));
                out.writeInt32(-1);              // CurrentLeaderEpoch
                out.writeInt64(Long.MAX_VALUE);  // FetchOffset
                out.writeInt32(lastFetchedEpochs[k]);
                out.writeInt64(-1L);             // LogStartOffset
                out.writeInt32(0);               // PartitionMaxBytes
                out.writeUnsignedVarint(0);
            }
            out.writeUnsignedVarint(0);
        }
        out.writeCompactArrayCount(0);      // ForgottenTopicsData
        out.writeCompactString("RackId", "");
        if (version >= FIRST_VERSION_WITH_REPLICA_STATE) {
            out.writeUnsignedVarint(1);
            out.writeUnsignedVarint(REPLICA_STATE_TAG);
            out.writeUnsignedVarint(4 + 8 + 1);
            out.writeInt32(replicaId);
            out.writeInt64(-1L);            // ReplicaEpoch
            out.writeUnsignedVarint(0);
        } else {
            out.writeUnsignedVarint(0);
        }
        return out.toByteBuffer();
    }

    /**
     * Reads a response body of {@code version} from {@code body}'s position to its limit, telling {@code answers}
     * about every partition. Records, aborted transactions and every tag but DivergingEpoch are skipped.
     *
     * @return the top-level ErrorCode
     * @throws ProtocolException if the bytes are not such a response
     */
    public static short readResponse(ByteBuffer body, short version, Answers answers) {
        ProtocolException.requireVersion(RESPONSE, version, MIN_VERSION, MAX_VERSION, SUPPORTED);
        WireReader in = WireReader.of(body, RESPONSE + " v" + version);
        in.readInt32("ThrottleTimeMs");
        short errorCode = in.readInt16("ErrorCode");
        in.readInt32("SessionId");
        int topics = in.readCompactArrayCount("Responses", MIN_TOPIC_BYTES, false);
        for (int t = 0; t < topics; t++) {
            String name = null;
            Uuid topicId = null;
            if (version <= LAST_VERSION_WITH_TOPIC_NAMES) {
                name = in.readCompactString("Topic");
            } else {
                topicId = in.readUuid("TopicId");
            }
            int partitions = in.readCompactArrayCount("Partitions", MIN_PARTITION_BYTES, false);
            for (int p = 0; p < partitions; p++) {
                int index = in.readInt32("PartitionIndex");
                short partitionError = in.readInt16("ErrorCode");
                long highWatermark = in.readInt64("HighWatermark");
                in.skip(8 + 8, "LastStableOffset and LogStartOffset");
                int aborted = in.readCompactArrayCount("AbortedTransactions", ABORTED_TRANSACTION_BYTES, true);
                for (int a = 0; a < aborted; a++) {
                    in.skip(8 + 8, "AbortedTransactions");
                    in.skipTaggedFields("AbortedTransactions");
                }
                in.readInt32("PreferredReadReplica");
                long recordsLengthPlusOne = in.readUnsignedVarint("Records");
                if (recordsLengthPlusOne > 0) {
                    in.skip(recordsLengthPlusOne - 1, "Records");
                }
                int divergingEpoch = -1;
                long divergingEndOffset = -1L;
                long tags = in.readUnsignedVarint("tagged fields of Partitions");
                for (long i = 0; i < tags; i++) {
                    long tag = in.readUnsignedVarint("tag in Partitions");
                    long size = in.readUnsignedVarint("tag size in Partitions");
                    if (tag == DIVERGING_EPOCH_TAG) {
                        int start = in.position();
                        divergingEpoch = in.readInt32("DivergingEpoch.Epoch");
                        divergingEndOffset = in.readInt64("DivergingEpoch.EndOffset");
                        in.skipTaggedFields("DivergingEpoch");
                        if (in.position() - start != size) {
                            throw new ProtocolException(String.format("%s malformed: DivergingEpoch at position %d"
                                    + " claims %d bytes but holds %d", RESPONSE + " v" + version, start, size,
                                    in.position() - start));
                        }
                    } else {
                        in.skip(size, "tag " + tag + " in Partitions");
                    }
                }
                answers.partition(name, topicId, index, partitionError, highWatermark, divergingEpoch,
                        divergingEndOffset);
            }
            in.skipTaggedFields("Responses");
        }
        in.skipTaggedFields(RESPONSE);
        in.expectEnd();
        in.consumedTo(body);
        return errorCode;
    }
}
