// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.probe;

import dev.uncleanrecovery.connect.BrokerConnections;
import dev.uncleanrecovery.connect.BrokerRequestException;
import dev.uncleanrecovery.protocol.FetchWire;
import dev.uncleanrecovery.protocol.PartitionList;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * One Fetch asking one broker, for each of many partitions, its {@code endOffsetFor(E)}: the probe's DivergingEpoch
 * Fetch (ReplicaId -2, FetchOffset past the end, {@link FetchWire}) with LastFetchedEpoch = E per partition. The
 * DivergingEpoch answered is the floor entry of E in the replica's epoch cache and where that entry ends;
 * OFFSET_OUT_OF_RANGE means E is above its latest epoch.
 */
final class EpochEndFetch {

    /** One partition's look-up on one broker, and who waits for its answer. */
    record Read(PartitionToProbe partition, int broker, int epoch,
                CompletableFuture<Optional<TruncationPoints.EpochEnd>> answer) {
    }

    private EpochEndFetch() {
    }

    /** The reads (of one broker, each partition once) in one Fetch; topics go by name up to v12, by id from v13. */
    static CompletableFuture<BrokerLookUps.Answered> send(BrokerConnections connections, int broker, List<Read> reads,
                                                          Duration timeout) {
        StockLogInfoSource.BatchPositions positions = new StockLogInfoSource.BatchPositions(
                reads.stream().map(Read::partition).toList());
        int[] order = positions.groupByTopic(positions.all());
        PartitionList asked = positions.inOrder(order);
        int[] epochs = new int[order.length];
        Map<Uuid, String> topicNames = new HashMap<>();
        boolean idsKnown = true;
        for (int k = 0; k < order.length; k++) {
            Read read = reads.get(order[k]);
            epochs[k] = read.epoch();
            idsKnown &= !Uuid.ZERO_UUID.equals(read.partition().topicId());
            topicNames.put(read.partition().topicId(), read.partition().topicPartition().topic());
        }
        short max = idsKnown ? FetchWire.MAX_VERSION : FetchWire.LAST_VERSION_WITH_TOPIC_NAMES;
        return StockLogInfoSource.exchange(connections, broker, timeout, ApiKeys.FETCH, FetchWire.MIN_VERSION, max,
                version -> FetchWire.divergenceRequest(version, StockLogInfoSource.DEBUGGING_REPLICA_ID, asked, epochs),
                (version, body) -> answered(connections, broker, reads, positions, order, topicNames, version, body));
    }

    private static BrokerLookUps.Answered answered(BrokerConnections connections, int broker, List<Read> reads,
                                                   StockLogInfoSource.BatchPositions positions, int[] order,
                                                   Map<Uuid, String> topicNames, short version, ByteBuffer body) {
        Errors[] errors = new Errors[reads.size()];
        TruncationPoints.EpochEnd[] found = new TruncationPoints.EpochEnd[reads.size()];
        int[] k = {0};
        short topLevel = FetchWire.readResponse(body, version, (topic, topicId, partition, errorCode, highWatermark,
                                                                divergingEpoch, divergingEndOffset) -> {
            String name = topicId == null ? topic : topicNames.get(topicId);
            int position = name == null ? -1 : positions.find(name, partition, k[0] < order.length ? order[k[0]] : -1);
            k[0]++;
            if (position >= 0 && errors[position] == null) {
                errors[position] = Errors.forCode(errorCode);
                if (divergingEpoch >= 0) {
                    found[position] = new TruncationPoints.EpochEnd(divergingEpoch, divergingEndOffset);
                }
            }
        });
        if (topLevel != Errors.NONE.code()) {
            Errors error = Errors.forCode(topLevel);
            throw new BrokerRequestException(broker, true, connections.describe(broker) + " answered Fetch with "
                    + error.name() + ": " + error.message());
        }
        return BrokerLookUps.Answered.settling(() -> {
            for (int i = 0; i < reads.size(); i++) {
                Read read = reads.get(i);
                if (errors[i] == Errors.OFFSET_OUT_OF_RANGE) {
                    read.answer().complete(Optional.empty());
                } else if (errors[i] == Errors.NONE && found[i] != null) {
                    read.answer().complete(Optional.of(found[i]));
                } else {
                    String asked = read.partition().topicPartition() + " (LastFetchedEpoch " + read.epoch() + ")";
                    read.answer().completeExceptionally(new BrokerRequestException(broker, true,
                            connections.describe(broker) + (errors[i] == null
                                    ? " left " + asked + " out of its Fetch answer"
                                    : " answered Fetch of " + asked + " with " + errors[i].name()
                                            + (found[i] == null ? " and no DivergingEpoch" : ""))));
                }
            }
        });
    }
}
