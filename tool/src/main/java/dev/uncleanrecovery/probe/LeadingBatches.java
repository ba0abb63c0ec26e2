// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.probe;

import dev.uncleanrecovery.connect.BrokerConnections;
import dev.uncleanrecovery.connect.BrokerRequestException;
import dev.uncleanrecovery.evidence.BatchHead;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
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
 * The headers of the first batches of many replicas' logs on one broker, each from an offset: one Fetch with ReplicaId
 * -3 (the id of a broker's own future replica, which any replica serves up to its log end offset, leader or not, with
 * topic READ), at most {@link #MAX_BYTES} a partition. Enough for the batches a producer had in flight when a leader
 * failed (five by default, and Kafka returns the first whole batch whatever its size).
 *
 * <p>Kafka fills a Fetch response partition by partition in request order, each with at most its PartitionMaxBytes
 * and what the response's MaxBytes has left, and only the first partition with records gets a batch larger than that
 * (ReplicaManager.readFromLog). So a partition's answer is the one it gets on its own when it comes first, or when
 * what came before it left room for its whole {@link #MAX_BYTES}; any other is asked again, first in the next request.
 * A broker whose {@code fetch.max.bytes} is below {@link #MAX_RESPONSE_BYTES} cuts earlier: an answer that ends
 * inside a batch before its own limit, or an empty one after the last with records, is asked again too.
 */
final class LeadingBatches {

    /** Kafka's {@code FetchRequest.FUTURE_LOCAL_REPLICA_ID}. */
    private static final int FUTURE_REPLICA_ID = -3;
    /** v11 is the first a non-leader serves to a replica id of its own (KIP-392); v13 the first with topic ids. */
    private static final short FIRST_VERSION = 11;
    private static final short LAST_VERSION_WITH_NAMES = 12;
    static final int MAX_BYTES = 256 << 10;
    /** A response's MaxBytes: a thousand partitions of a few batches each fit, and one answer stays small. */
    static final int MAX_RESPONSE_BYTES = 8 << 20;

    /** One replica's batches to read from an offset, and who waits for them. */
    record Read(PartitionToProbe partition, int broker, long offset, CompletableFuture<List<BatchHead>> answer) {
    }

    private LeadingBatches() {
    }

    /** The reads (of one broker, each partition once) in one Fetch, their partitions grouped by topic. */
    static CompletableFuture<BrokerLookUps.Answered> send(BrokerConnections connections, int broker, List<Read> reads,
                                                          Duration timeout) {
        Map<String, Integer> firstSeen = new HashMap<>();
        reads.forEach(r -> firstSeen.putIfAbsent(r.partition().topicPartition().topic(), firstSeen.size()));
        List<Read> ordered = reads.stream()
                .sorted(Comparator.comparingInt(r -> firstSeen.get(r.partition().topicPartition().topic()))).toList();
        Map<TopicPartition, FetchRequest.PartitionData> data = new LinkedHashMap<>();
        Map<Uuid, String> topicNames = new HashMap<>();
        boolean idsKnown = true;
        for (Read read : ordered) {
            Uuid topicId = read.partition().topicId();
            idsKnown &= !Uuid.ZERO_UUID.equals(topicId);
            topicNames.put(topicId, read.partition().topicPartition().topic());
            data.put(read.partition().topicPartition(), new FetchRequest.PartitionData(topicId, read.offset(), -1L,
                    MAX_BYTES, Optional.empty(), Optional.empty()));
        }
        short last = idsKnown ? ApiKeys.FETCH.latestVersion() : LAST_VERSION_WITH_NAMES;
        FetchRequest.Builder request = new FetchRequest.Builder(FIRST_VERSION, last, FUTURE_REPLICA_ID, -1L, 0, 1, data)
                .setMaxBytes(ordered.size() == 1 ? MAX_BYTES : MAX_RESPONSE_BYTES);
        return connections.send(broker, request, FetchResponse.class, timeout)
                .thenApply(response -> answered(connections, broker, ordered, topicNames, response));
    }

    /** One partition's answer as the response has it. */
    private record Answer(Read read, Errors error, int bytes, int wholeBatchBytes, List<BatchHead> heads) {
    }

    private static BrokerLookUps.Answered answered(BrokerConnections connections, int broker, List<Read> reads,
                                                   Map<Uuid, String> topicNames, FetchResponse response) {
        if (response.error() != Errors.NONE) {
            throw new BrokerRequestException(broker, true, connections.describe(broker) + " answered the Fetch of "
                    + reads.size() + " partition(s) (ReplicaId -3) with " + response.error().name());
        }
        Map<TopicPartition, Read> asked = new HashMap<>();
        reads.forEach(r -> asked.put(r.partition().topicPartition(), r));
        List<Answer> answers = new ArrayList<>(); // in the order the broker read them
        for (FetchResponseData.FetchableTopicResponse topic : response.data().responses()) {
            String name = topic.topic() != null && !topic.topic().isEmpty() ? topic.topic()
                    : topicNames.get(topic.topicId());
            for (FetchResponseData.PartitionData answer : topic.partitions()) {
                Read read = asked.remove(new TopicPartition(name == null ? "" : name, answer.partitionIndex()));
                if (read != null) {
                    answers.add(answerOf(read, answer));
                }
            }
        }
        int[] bytes = answers.stream().mapToInt(Answer::bytes).toArray();
        boolean[] whole = asOnItsOwn(bytes, answers.stream().mapToInt(Answer::wholeBatchBytes).toArray());
        List<Answer> settled = new ArrayList<>();
        List<Read> askAgain = new ArrayList<>();
        for (int k = 0; k < answers.size(); k++) {
            Answer a = answers.get(k);
            if (a.error() == Errors.NONE && !whole[k]) {
                askAgain.add(a.read());
            } else {
                settled.add(a); // an error is the partition's own, wherever it stands
            }
        }
        List<Read> leftOut = new ArrayList<>(asked.values());
        return new BrokerLookUps.Answered(() -> {
            for (Answer a : settled) {
                if (a.error() == Errors.NONE) {
                    a.read().answer().complete(a.heads());
                } else if (a.error() == Errors.OFFSET_OUT_OF_RANGE) {
                    a.read().answer().complete(List.of()); // past its log end: it holds nothing there
                } else {
                    a.read().answer().completeExceptionally(failure(connections, broker, a.read(), a.error().name()));
                }
            }
            leftOut.forEach(read -> read.answer().completeExceptionally(failure(connections, broker, read,
                    "no answer for it")));
        }, askAgain);
    }

    /**
     * Which answers of one response, in the order the broker read them, are the ones their partitions would get on
     * their own (see the class comment); the others must be asked again.
     *
     * @param bytes      each partition's records bytes (0 for an error)
     * @param wholeBytes the bytes of the whole batches among them
     */
    static boolean[] asOnItsOwn(int[] bytes, int[] wholeBytes) {
        int lastWithRecords = -1;
        for (int k = 0; k < bytes.length; k++) {
            if (bytes[k] > 0) {
                lastWithRecords = k;
            }
        }
        boolean[] whole = new boolean[bytes.length];
        long before = 0; // the records bytes of the partitions read before this one
        for (int k = 0; k < bytes.length; k++) {
            boolean roomForAll = before + MAX_BYTES <= MAX_RESPONSE_BYTES;
            boolean cutInsideABatch = bytes[k] > wholeBytes[k] && bytes[k] < MAX_BYTES;
            boolean emptyAfterTheLast = bytes[k] == 0 && lastWithRecords >= 0 && k > lastWithRecords;
            whole[k] = k == 0 || roomForAll && !cutInsideABatch && !emptyAfterTheLast;
            before += bytes[k];
        }
        return whole;
    }

    private static Answer answerOf(Read read, FetchResponseData.PartitionData answer) {
        Errors error = Errors.forCode(answer.errorCode());
        if (error != Errors.NONE) {
            return new Answer(read, error, 0, 0, List.of());
        }
        MemoryRecords records = (MemoryRecords) FetchResponse.recordsOrFail(answer);
        List<BatchHead> heads = new ArrayList<>();
        int whole = 0;
        for (MutableRecordBatch batch : records.batches()) {
            whole += batch.sizeInBytes();
            if (batch.lastOffset() >= read.offset()) {
                heads.add(new BatchHead(batch.baseOffset(), batch.lastOffset(), batch.checksum()));
            }
        }
        return new Answer(read, error, records.sizeInBytes(), whole, heads);
    }

    private static BrokerRequestException failure(BrokerConnections connections, int broker, Read read, String what) {
        return new BrokerRequestException(broker, true, connections.describe(broker) + " answered the Fetch of "
                + read.partition().topicPartition() + " at offset " + read.offset() + " (ReplicaId -3) with " + what);
    }
}
