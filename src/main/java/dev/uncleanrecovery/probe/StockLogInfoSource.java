// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.probe;

import dev.uncleanrecovery.cluster.BrokerConnections;
import dev.uncleanrecovery.cluster.BrokerRequestException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsPartition;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsTopic;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.ListOffsetsResponse;

/**
 * Evidence from a stock broker (no patch), asked directly, replica by replica's own broker:
 * <ul>
 *   <li><b>log end offset</b>: ListOffsets with ReplicaId -2 (DEBUGGING), Timestamp LATEST,
 *       CurrentLeaderEpoch -1. A non-leader serves it ({@code fetchOnlyFromLeader = replicaId != -2})
 *       and, with no isolation level, answers its log end offset, not its high watermark. The
 *       LeaderEpoch it returns is the broker's metadata epoch: used to spot stale metadata, never
 *       as the log's epoch.</li>
 *   <li><b>last written leader epoch</b>: the Fetch DivergingEpoch search of
 *       {@link LatestEpochSearch}, every partition of the batch in the same Fetch, round by round:
 *       about log2(leader epoch + 3) Fetch requests per batch, whatever the batch size.</li>
 * </ul>
 * The first Fetch round goes out together with ListOffsets.
 */
public final class StockLogInfoSource implements ReplicaLogInfoSource {

    /** LastFetchedEpoch, hence the divergence check, arrived in Fetch v12 (v11 already lets a non-leader serve -2). */
    static final short MIN_FETCH_VERSION = 12;
    /** Fetch v13 replaced topic names by topic ids. */
    private static final short LAST_FETCH_VERSION_WITH_TOPIC_NAMES = 12;
    /** The epoch ceiling when neither the caller nor ListOffsets (v4+) told the leader epoch. */
    private static final int UNKNOWN_EPOCH_CEILING = 1 << 20;

    private final BrokerConnections connections;

    public StockLogInfoSource(BrokerConnections connections) {
        this.connections = connections;
    }

    @Override
    public EvidenceSource kindFor(int brokerId) {
        return EvidenceSource.STOCK;
    }

    @Override
    public CompletableFuture<ProbeBatchAnswer> probe(ProbeBatch batch) {
        CompletableFuture<Map<TopicPartition, LogEnd>> logEnds = listLogEndOffsets(batch);
        boolean epochsKnown = batch.partitions().stream().allMatch(p -> p.metadataLeaderEpoch() >= 0);
        CompletableFuture<Map<TopicPartition, EpochOutcome>> epochs = epochsKnown
                ? searchLatestEpochs(batch, Map.of())
                // Without the caller's epoch the search ceiling comes from the broker's ListOffsets answer.
                : logEnds.thenCompose(ends -> searchLatestEpochs(batch, ends));
        return logEnds.thenCombine(epochs, (ends, found) -> answer(batch, ends, found));
    }

    // ---- ListOffsets -----------------------------------------------------------------------------

    private record LogEnd(Errors error, long logEndOffset, int brokerLeaderEpoch) {
    }

    private CompletableFuture<Map<TopicPartition, LogEnd>> listLogEndOffsets(ProbeBatch batch) {
        Map<String, ListOffsetsTopic> topics = new LinkedHashMap<>();
        for (PartitionToProbe p : batch.partitions()) {
            topics.computeIfAbsent(p.topicPartition().topic(), name -> new ListOffsetsTopic().setName(name))
                    .partitions().add(new ListOffsetsPartition()
                            .setPartitionIndex(p.topicPartition().partition())
                            .setTimestamp(ListOffsetsRequest.LATEST_TIMESTAMP)
                            // -1: no fencing check, so a broker with other metadata still answers (and we compare).
                            .setCurrentLeaderEpoch(-1));
        }
        int timeoutMs = (int) batch.requestTimeout().toMillis();
        ListOffsetsRequest.Builder request = ListOffsetsRequest.Builder
                .forReplica(ApiKeys.LIST_OFFSETS.latestVersion(), ListOffsetsRequest.DEBUGGING_REPLICA_ID)
                .setTargetTimes(new ArrayList<>(topics.values()))
                .setTimeoutMs(timeoutMs);
        batch.countRequest(ApiKeys.LIST_OFFSETS.name);
        return connections.send(batch.brokerId(), request, ListOffsetsResponse.class, batch.requestTimeout())
                .thenApply(response -> {
                    Map<TopicPartition, LogEnd> ends = new HashMap<>();
                    for (ListOffsetsResponseData.ListOffsetsTopicResponse topic : response.data().topics()) {
                        for (ListOffsetsResponseData.ListOffsetsPartitionResponse partition : topic.partitions()) {
                            ends.put(new TopicPartition(topic.name(), partition.partitionIndex()),
                                    new LogEnd(Errors.forCode(partition.errorCode()), partition.offset(), partition.leaderEpoch()));
                        }
                    }
                    return ends;
                });
    }

    // ---- Fetch DivergingEpoch search -------------------------------------------------------------

    /** Where one partition's epoch search ended: a finished search, or the error that stopped it. */
    private record EpochOutcome(LatestEpochSearch search, Errors error, String problem) {
    }

    private CompletableFuture<Map<TopicPartition, EpochOutcome>> searchLatestEpochs(ProbeBatch batch,
                                                                                     Map<TopicPartition, LogEnd> logEnds) {
        Map<TopicPartition, PartitionToProbe> partitions = new LinkedHashMap<>();
        Map<TopicPartition, LatestEpochSearch> searches = new LinkedHashMap<>();
        Map<TopicPartition, EpochOutcome> stopped = new HashMap<>();
        for (PartitionToProbe p : batch.partitions()) {
            TopicPartition tp = p.topicPartition();
            partitions.put(tp, p);
            int ceiling = p.metadataLeaderEpoch();
            if (ceiling < 0) {
                LogEnd end = logEnds.get(tp);
                if (end == null || end.error() != Errors.NONE) {
                    continue; // ListOffsets already failed for it; that error is reported.
                }
                ceiling = end.brokerLeaderEpoch() >= 0 ? end.brokerLeaderEpoch() : UNKNOWN_EPOCH_CEILING;
            }
            searches.put(tp, new LatestEpochSearch(ceiling));
        }
        return nextRound(batch, partitions, searches, stopped);
    }

    private CompletableFuture<Map<TopicPartition, EpochOutcome>> nextRound(ProbeBatch batch,
                                                                           Map<TopicPartition, PartitionToProbe> partitions,
                                                                           Map<TopicPartition, LatestEpochSearch> searches,
                                                                           Map<TopicPartition, EpochOutcome> stopped) {
        Map<TopicPartition, Integer> probes = new LinkedHashMap<>();
        searches.forEach((tp, search) -> {
            if (!search.isDone() && !stopped.containsKey(tp)) {
                probes.put(tp, search.nextProbe());
            }
        });
        if (probes.isEmpty()) {
            Map<TopicPartition, EpochOutcome> outcomes = new HashMap<>(stopped);
            searches.forEach((tp, search) -> outcomes.putIfAbsent(tp, new EpochOutcome(search, Errors.NONE, null)));
            return CompletableFuture.completedFuture(outcomes);
        }
        Map<TopicPartition, FetchRequest.PartitionData> fetchData = new LinkedHashMap<>();
        Map<Uuid, String> topicNames = new HashMap<>();
        boolean everyTopicIdKnown = true;
        for (Map.Entry<TopicPartition, Integer> probe : probes.entrySet()) {
            PartitionToProbe p = partitions.get(probe.getKey());
            everyTopicIdKnown &= !Uuid.ZERO_UUID.equals(p.topicId());
            topicNames.put(p.topicId(), p.topicPartition().topic());
            // FetchOffset past any log end: the broker runs the divergence check and returns no records.
            fetchData.put(probe.getKey(), new FetchRequest.PartitionData(p.topicId(), Long.MAX_VALUE,
                    FetchRequest.INVALID_LOG_START_OFFSET, 0, Optional.empty(), Optional.of(probe.getValue())));
        }
        short maxVersion = everyTopicIdKnown ? ApiKeys.FETCH.latestVersion() : LAST_FETCH_VERSION_WITH_TOPIC_NAMES;
        // ReplicaId -2 at v11+: a follower or a leaderless replica serves it. MaxWait 0, MinBytes 0:
        // answer at once. The default FetchMetadata is sessionless, so no broker fetch session is created.
        FetchRequest.Builder request = new FetchRequest.Builder(MIN_FETCH_VERSION, maxVersion,
                ListOffsetsRequest.DEBUGGING_REPLICA_ID, -1L, 0, 0, fetchData);
        batch.countRequest(ApiKeys.FETCH.name);
        return connections.send(batch.brokerId(), request, FetchResponse.class, batch.requestTimeout())
                .thenCompose(response -> {
                    record(batch, response, probes, topicNames, searches, stopped);
                    return nextRound(batch, partitions, searches, stopped);
                });
    }

    private void record(ProbeBatch batch, FetchResponse response, Map<TopicPartition, Integer> probes,
                        Map<Uuid, String> topicNames, Map<TopicPartition, LatestEpochSearch> searches,
                        Map<TopicPartition, EpochOutcome> stopped) {
        Errors topLevel = response.error();
        if (topLevel != Errors.NONE) {
            throw new BrokerRequestException(batch.brokerId(), true, connections.describe(batch.brokerId())
                    + " answered Fetch with " + topLevel.name() + ": " + topLevel.message());
        }
        Map<TopicPartition, Integer> unanswered = new HashMap<>(probes);
        for (FetchResponseData.FetchableTopicResponse topic : response.data().responses()) {
            String name = Uuid.ZERO_UUID.equals(topic.topicId()) ? topic.topic() : topicNames.get(topic.topicId());
            if (name == null) {
                continue;
            }
            for (FetchResponseData.PartitionData partition : topic.partitions()) {
                TopicPartition tp = new TopicPartition(name, partition.partitionIndex());
                Integer probedEpoch = unanswered.remove(tp);
                if (probedEpoch == null) {
                    continue;
                }
                Errors error = Errors.forCode(partition.errorCode());
                if (error == Errors.OFFSET_OUT_OF_RANGE) {
                    searches.get(tp).outOfRange(probedEpoch);
                } else if (error != Errors.NONE) {
                    stopped.put(tp, new EpochOutcome(null, error, null));
                } else if (FetchResponse.isDivergingEpoch(partition)) {
                    searches.get(tp).diverged(probedEpoch, partition.divergingEpoch().endOffset());
                } else {
                    stopped.put(tp, new EpochOutcome(null, Errors.NONE, "answered Fetch without a DivergingEpoch for"
                            + " LastFetchedEpoch " + probedEpoch + " (is it older than Kafka 2.7?)"));
                }
            }
        }
        unanswered.keySet().forEach(tp -> stopped.put(tp, new EpochOutcome(null, Errors.NONE,
                "left the partition out of its Fetch answer")));
    }

    // ---- Combining both answers ------------------------------------------------------------------

    private ProbeBatchAnswer answer(ProbeBatch batch, Map<TopicPartition, LogEnd> logEnds,
                                    Map<TopicPartition, EpochOutcome> epochs) {
        int broker = batch.brokerId();
        String who = connections.describe(broker);
        Instant now = Instant.now();
        Map<TopicPartition, ReplicaEvidence> settled = new HashMap<>();
        Map<TopicPartition, ProbeBatchAnswer.PartitionRetry> retry = new HashMap<>();
        for (PartitionToProbe p : batch.partitions()) {
            TopicPartition tp = p.topicPartition();
            LogEnd end = logEnds.get(tp);
            EpochOutcome epoch = epochs.get(tp);
            if (end == null) {
                String reason = who + " left " + tp + " out of its ListOffsets answer";
                retry.put(tp, new ProbeBatchAnswer.PartitionRetry(reason, error(tp, broker, reason, now)));
            } else if (end.error() != Errors.NONE) {
                partitionError(tp, broker, who, "ListOffsets", end.error(), now, settled, retry);
            } else if (epoch == null) {
                String reason = who + " was not asked about the epoch of " + tp;
                retry.put(tp, new ProbeBatchAnswer.PartitionRetry(reason, error(tp, broker, reason, now)));
            } else if (epoch.error() != Errors.NONE) {
                partitionError(tp, broker, who, "Fetch", epoch.error(), now, settled, retry);
            } else if (epoch.problem() != null) {
                String reason = who + " " + epoch.problem() + " " + tp;
                retry.put(tp, new ProbeBatchAnswer.PartitionRetry(reason, error(tp, broker, reason, now)));
            } else {
                judge(p, broker, who, end, epoch.search(), now, settled, retry);
            }
        }
        return new ProbeBatchAnswer(settled, retry);
    }

    /** Both answers arrived without error: accept them, or ask again when they disagree with the metadata. */
    private static void judge(PartitionToProbe p, int broker, String who, LogEnd end, LatestEpochSearch search,
                              Instant now, Map<TopicPartition, ReplicaEvidence> settled,
                              Map<TopicPartition, ProbeBatchAnswer.PartitionRetry> retry) {
        TopicPartition tp = p.topicPartition();
        int latestEpoch = search.latestEpoch();
        if (search.isAheadOfMetadata()) {
            String reason = who + " holds leader epoch " + latestEpoch + " or later in the log of " + tp
                    + ", newer than the metadata's leader epoch " + p.metadataLeaderEpoch()
                    + ": the partition changed since it was described; describe it again";
            retry.put(tp, new ProbeBatchAnswer.PartitionRetry(reason, stale(tp, broker, end, latestEpoch, reason, now)));
        } else if (p.metadataLeaderEpoch() >= 0 && end.brokerLeaderEpoch() >= 0
                && end.brokerLeaderEpoch() != p.metadataLeaderEpoch()) {
            String reason = who + " knows leader epoch " + end.brokerLeaderEpoch() + " for " + tp
                    + " but the controller's metadata says " + p.metadataLeaderEpoch()
                    + ": that broker's metadata lags, or the partition changed since it was described";
            retry.put(tp, new ProbeBatchAnswer.PartitionRetry(reason, stale(tp, broker, end, latestEpoch, reason, now)));
        } else if (latestEpoch >= 0 && search.logEndOffset() != end.logEndOffset()) {
            // The two requests read the log at different moments: something still writes to it.
            String reason = who + " reported log end offset " + end.logEndOffset() + " (ListOffsets) and "
                    + search.logEndOffset() + " (Fetch) for " + tp + ": the log is still changing";
            retry.put(tp, new ProbeBatchAnswer.PartitionRetry(reason, stale(tp, broker, end, latestEpoch, reason, now)));
        } else {
            settled.put(tp, ReplicaEvidence.answered(tp, broker, EvidenceSource.STOCK, end.logEndOffset(), latestEpoch,
                    end.brokerLeaderEpoch(), -1L, now));
        }
    }

    private static void partitionError(TopicPartition tp, int broker, String who, String api, Errors error, Instant now,
                                       Map<TopicPartition, ReplicaEvidence> settled,
                                       Map<TopicPartition, ProbeBatchAnswer.PartitionRetry> retry) {
        String text = who + " answered " + api + " for " + tp + " with " + error.name() + ": " + explain(error);
        ReplicaEvidence evidence = error(tp, broker, text, now);
        if (error.exception() instanceof RetriableException) {
            retry.put(tp, new ProbeBatchAnswer.PartitionRetry(text, evidence));
        } else {
            settled.put(tp, evidence);
        }
    }

    /** What the error means for a probe, and what to do about it. */
    static String explain(Errors error) {
        return switch (error) {
            case NOT_LEADER_OR_FOLLOWER -> "that broker does not host this replica (yet); it may still be loading its logs";
            case KAFKA_STORAGE_ERROR -> "the log directory holding this replica is offline on that broker";
            case UNKNOWN_TOPIC_OR_PARTITION, UNKNOWN_TOPIC_ID ->
                    "that broker's metadata does not know the partition (yet), or the topic was deleted";
            case TOPIC_AUTHORIZATION_FAILED ->
                    "the tool's principal needs DESCRIBE (ListOffsets) and READ (Fetch) on the topic";
            case CLUSTER_AUTHORIZATION_FAILED -> "the tool's principal is not authorized on the cluster";
            default -> error.message();
        };
    }

    private static ReplicaEvidence error(TopicPartition tp, int broker, String text, Instant now) {
        return ReplicaEvidence.failed(tp, broker, EvidenceSource.STOCK, EvidenceStatus.ERROR, text, now);
    }

    private static ReplicaEvidence stale(TopicPartition tp, int broker, LogEnd end, int latestEpoch, String text,
                                         Instant now) {
        return new ReplicaEvidence(tp, broker, EvidenceSource.STOCK, EvidenceStatus.STALE, end.logEndOffset(),
                latestEpoch, end.brokerLeaderEpoch(), -1L, text, now);
    }
}
