// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.probe;

import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.connect.BrokerConnections;
import dev.uncleanrecovery.connect.BrokerRequestException;
import dev.uncleanrecovery.evidence.BatchHead;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;

/**
 * The headers of the first batches of one replica's log from an offset: one Fetch with ReplicaId -3 (the id of a
 * broker's own future replica, which any replica serves up to its log end offset, leader or not, with topic READ),
 * at most {@link #MAX_BYTES} of them. Enough for the batches a producer had in flight when a leader failed (five by
 * default, and Kafka returns the first whole batch whatever its size).
 */
final class LeadingBatches {

    /** Kafka's {@code FetchRequest.FUTURE_LOCAL_REPLICA_ID}. */
    private static final int FUTURE_REPLICA_ID = -3;
    /** v11 is the first a non-leader serves to a replica id of its own (KIP-392); v13 the first with topic ids. */
    private static final short FIRST_VERSION = 11;
    private static final short LAST_VERSION_WITH_NAMES = 12;
    static final int MAX_BYTES = 256 << 10;

    private LeadingBatches() {
    }

    /** An empty list when the replica holds nothing at or past {@code offset}. */
    static CompletableFuture<List<BatchHead>> read(BrokerConnections connections,
                                                                    TopicPartitionState p, int broker, long offset,
                                                                    Duration timeout) {
        Uuid topicId = p.topicId() == null ? Uuid.ZERO_UUID : p.topicId();
        Map<TopicPartition, FetchRequest.PartitionData> data = new LinkedHashMap<>();
        data.put(p.topicPartition(), new FetchRequest.PartitionData(topicId, offset, -1L, MAX_BYTES, Optional.empty(),
                Optional.empty()));
        short last = Uuid.ZERO_UUID.equals(topicId) ? LAST_VERSION_WITH_NAMES : ApiKeys.FETCH.latestVersion();
        FetchRequest.Builder request = new FetchRequest.Builder(FIRST_VERSION, last, FUTURE_REPLICA_ID, -1L, 0, 1, data)
                .setMaxBytes(MAX_BYTES);
        return connections.send(broker, request, FetchResponse.class, timeout)
                .thenApply(response -> heads(connections, broker, p, offset, response));
    }

    private static List<BatchHead> heads(BrokerConnections connections, int broker,
                                                          TopicPartitionState p, long offset, FetchResponse response) {
        Errors error = response.error();
        for (FetchResponseData.FetchableTopicResponse topic : response.data().responses()) {
            for (FetchResponseData.PartitionData answer : topic.partitions()) {
                if (answer.partitionIndex() != p.partition()) {
                    continue;
                }
                Errors partitionError = Errors.forCode(answer.errorCode());
                if (partitionError == Errors.OFFSET_OUT_OF_RANGE) {
                    return List.of(); // past its log end: it holds nothing there
                }
                if (partitionError != Errors.NONE) {
                    error = partitionError;
                    break;
                }
                List<BatchHead> heads = new ArrayList<>();
                MemoryRecords records = (MemoryRecords) FetchResponse.recordsOrFail(answer);
                for (MutableRecordBatch batch : records.batches()) {
                    if (batch.lastOffset() >= offset) {
                        heads.add(new BatchHead(batch.baseOffset(), batch.lastOffset(),
                                batch.checksum()));
                    }
                }
                return heads;
            }
        }
        throw new BrokerRequestException(broker, true, connections.describe(broker) + " answered the Fetch of "
                + p.topicPartition() + " at offset " + offset + " (ReplicaId -3) with " + error.name());
    }
}
