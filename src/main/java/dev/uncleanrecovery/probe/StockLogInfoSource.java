// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.probe;

import dev.uncleanrecovery.cluster.BrokerConnections;
import dev.uncleanrecovery.cluster.BrokerRequestException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsPartition;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsTopic;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
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
    /** In a round's table of probes: a position not asked about in that round, or already answered. */
    private static final int NOT_ASKED = Integer.MIN_VALUE;

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
        BatchPositions positions = new BatchPositions(batch.partitions());
        CompletableFuture<LogEnd[]> logEnds = listLogEndOffsets(batch, positions);
        boolean epochsKnown = batch.partitions().stream().allMatch(p -> p.metadataLeaderEpoch() >= 0);
        CompletableFuture<EpochOutcome[]> epochs = epochsKnown
                ? searchLatestEpochs(batch, positions, null)
                // Without the caller's epoch the search ceiling comes from the broker's ListOffsets answer.
                : logEnds.thenCompose(ends -> searchLatestEpochs(batch, positions, ends));
        return logEnds.thenCombine(epochs, (ends, found) -> answer(batch, ends, found));
    }

    /**
     * Where each partition sits in its batch. Per-partition state lives in arrays indexed by that position
     * rather than in maps keyed by partition: a broker answers in the order it was asked, so matching an answer
     * to its partition is a comparison, not a hash lookup (a map is built only for an answer out of order).
     * With hundreds of batches of 1,000 partitions in flight at once, this keeps the probe's memory and CPU low.
     */
    static final class BatchPositions {
        final List<PartitionToProbe> partitions;
        private Map<TopicPartition, Integer> index;

        BatchPositions(List<PartitionToProbe> partitions) {
            this.partitions = partitions;
        }

        int size() {
            return partitions.size();
        }

        /** The position of (topic, partition); {@code expected} is tried first. -1 when not in the batch. */
        int find(String topic, int partition, int expected) {
            if (expected >= 0 && expected < partitions.size()) {
                TopicPartition tp = partitions.get(expected).topicPartition();
                if (tp.partition() == partition && tp.topic().equals(topic)) {
                    return expected;
                }
            }
            Integer position = index().get(new TopicPartition(topic, partition));
            return position == null ? -1 : position;
        }

        private synchronized Map<TopicPartition, Integer> index() {
            if (index == null) {
                index = new HashMap<>();
                for (int i = 0; i < partitions.size(); i++) {
                    index.put(partitions.get(i).topicPartition(), i);
                }
            }
            return index;
        }

        /** The positions to ask about grouped by topic (topics in order of first appearance): a request's order. */
        int[] groupByTopic(int[] positions) {
            // Topics ranked by first appearance; when no topic comes back after another one (callers usually list
            // partitions topic by topic) the order already is the grouped one.
            Map<String, Integer> rank = new HashMap<>();
            boolean alreadyGrouped = true;
            String current = null;
            for (int position : positions) {
                String topic = partitions.get(position).topicPartition().topic();
                if (!topic.equals(current)) {
                    alreadyGrouped &= rank.putIfAbsent(topic, rank.size()) == null;
                    current = topic;
                }
            }
            if (alreadyGrouped) {
                return positions.clone();
            }
            // A stable counting sort by the topic's first appearance.
            int[] topicOf = new int[positions.length];
            int[] start = new int[rank.size() + 1];
            for (int k = 0; k < positions.length; k++) {
                topicOf[k] = rank.get(partitions.get(positions[k]).topicPartition().topic());
                start[topicOf[k] + 1]++;
            }
            for (int t = 1; t < start.length; t++) {
                start[t] += start[t - 1];
            }
            int[] grouped = new int[positions.length];
            for (int k = 0; k < positions.length; k++) {
                grouped[start[topicOf[k]]++] = positions[k];
            }
            return grouped;
        }

        int[] all() {
            int[] all = new int[partitions.size()];
            Arrays.setAll(all, i -> i);
            return all;
        }
    }

    // ---- ListOffsets -----------------------------------------------------------------------------

    private record LogEnd(Errors error, long logEndOffset, int brokerLeaderEpoch) {
    }

    private CompletableFuture<LogEnd[]> listLogEndOffsets(ProbeBatch batch, BatchPositions positions) {
        int[] order = positions.groupByTopic(positions.all());
        List<ListOffsetsTopic> topics = new ArrayList<>();
        ListOffsetsTopic topic = null;
        for (int position : order) {
            TopicPartition tp = positions.partitions.get(position).topicPartition();
            if (topic == null || !topic.name().equals(tp.topic())) {
                topic = new ListOffsetsTopic().setName(tp.topic());
                topics.add(topic);
            }
            topic.partitions().add(new ListOffsetsPartition()
                    .setPartitionIndex(tp.partition())
                    .setTimestamp(ListOffsetsRequest.LATEST_TIMESTAMP)
                    // -1: no fencing check, so a broker with other metadata still answers (and we compare).
                    .setCurrentLeaderEpoch(-1));
        }
        int timeoutMs = (int) batch.requestTimeout().toMillis();
        ListOffsetsRequest.Builder request = ListOffsetsRequest.Builder
                .forReplica(ApiKeys.LIST_OFFSETS.latestVersion(), ListOffsetsRequest.DEBUGGING_REPLICA_ID)
                .setTargetTimes(topics)
                .setTimeoutMs(timeoutMs);
        batch.countRequest(ApiKeys.LIST_OFFSETS.name);
        return connections.send(batch.brokerId(), request, ListOffsetsResponse.class, batch.requestTimeout())
                .thenApply(response -> {
                    LogEnd[] ends = new LogEnd[positions.size()];
                    int k = 0;
                    for (ListOffsetsResponseData.ListOffsetsTopicResponse answered : response.data().topics()) {
                        for (ListOffsetsResponseData.ListOffsetsPartitionResponse partition : answered.partitions()) {
                            int position = positions.find(answered.name(), partition.partitionIndex(),
                                    k < order.length ? order[k] : -1);
                            k++;
                            if (position >= 0) {
                                ends[position] = new LogEnd(Errors.forCode(partition.errorCode()), partition.offset(),
                                        partition.leaderEpoch());
                            }
                        }
                    }
                    return ends;
                });
    }

    // ---- Fetch DivergingEpoch search -------------------------------------------------------------

    /** Where one partition's epoch search ended: a finished search, or the error that stopped it. */
    private record EpochOutcome(LatestEpochSearch search, Errors error, String problem) {
    }

    /** @param logEnds the ListOffsets answer when some metadata epoch is unknown, else null */
    private CompletableFuture<EpochOutcome[]> searchLatestEpochs(ProbeBatch batch, BatchPositions positions,
                                                                 LogEnd[] logEnds) {
        LatestEpochSearch[] searches = new LatestEpochSearch[positions.size()];
        EpochOutcome[] stopped = new EpochOutcome[positions.size()];
        for (int i = 0; i < positions.size(); i++) {
            int ceiling = positions.partitions.get(i).metadataLeaderEpoch();
            if (ceiling < 0) {
                LogEnd end = logEnds[i];
                if (end == null || end.error() != Errors.NONE) {
                    continue; // ListOffsets already failed for it; that error is reported.
                }
                ceiling = end.brokerLeaderEpoch() >= 0 ? end.brokerLeaderEpoch() : UNKNOWN_EPOCH_CEILING;
            }
            searches[i] = new LatestEpochSearch(ceiling);
        }
        return nextRound(batch, positions, searches, stopped);
    }

    private CompletableFuture<EpochOutcome[]> nextRound(ProbeBatch batch, BatchPositions positions,
                                                        LatestEpochSearch[] searches, EpochOutcome[] stopped) {
        int[] searching = IntStream.range(0, searches.length)
                .filter(i -> searches[i] != null && !searches[i].isDone() && stopped[i] == null).toArray();
        if (searching.length == 0) {
            EpochOutcome[] outcomes = stopped.clone();
            for (int i = 0; i < outcomes.length; i++) {
                if (outcomes[i] == null && searches[i] != null) {
                    outcomes[i] = new EpochOutcome(searches[i], Errors.NONE, null);
                }
            }
            return CompletableFuture.completedFuture(outcomes);
        }
        DivergenceFetch request = new DivergenceFetch(positions, searching, searches);
        batch.countRequest(ApiKeys.FETCH.name);
        return connections.send(batch.brokerId(), request, FetchResponse.class, batch.requestTimeout())
                .thenCompose(response -> {
                    record(batch, response, request, positions, searches, stopped);
                    return nextRound(batch, positions, searches, stopped);
                });
    }

    /**
     * One round of the DivergingEpoch search: for every partition still searching, FetchOffset past any log end
     * (the broker runs the divergence check and returns no records) with LastFetchedEpoch = the probe. Written
     * from the Fetch request schema: ReplicaId -2 (v11+: a follower or a leaderless replica serves it; in
     * ReplicaState from v15), MaxWait 0 and MinBytes 0 (answer at once), no session (SessionId 0, SessionEpoch
     * -1, so the broker creates none), topics by name up to v12 and by id from v13.
     */
    static final class DivergenceFetch extends AbstractRequest.Builder<FetchRequest> {
        final int[] order;
        final int[] probes;
        final Map<Uuid, String> topicNames = new HashMap<>();
        private final BatchPositions positions;

        DivergenceFetch(BatchPositions positions, int[] searching, LatestEpochSearch[] searches) {
            super(ApiKeys.FETCH, MIN_FETCH_VERSION, everyTopicIdKnown(positions, searching)
                    ? ApiKeys.FETCH.latestVersion() : LAST_FETCH_VERSION_WITH_TOPIC_NAMES);
            this.positions = positions;
            this.order = positions.groupByTopic(searching);
            this.probes = new int[order.length];
            for (int k = 0; k < order.length; k++) {
                PartitionToProbe p = positions.partitions.get(order[k]);
                probes[k] = searches[order[k]].nextProbe();
                if (k == 0 || p.topicPartition().topic() != positions.partitions.get(order[k - 1]).topicPartition().topic()) {
                    topicNames.put(p.topicId(), p.topicPartition().topic());
                }
            }
        }

        private static boolean everyTopicIdKnown(BatchPositions positions, int[] searching) {
            return Arrays.stream(searching).noneMatch(i -> Uuid.ZERO_UUID.equals(positions.partitions.get(i).topicId()));
        }

        @Override
        public FetchRequest build(short version) {
            FetchRequestData data = new FetchRequestData().setMaxWaitMs(0).setMinBytes(0)
                    .setSessionId(0).setSessionEpoch(-1);
            if (version >= 15) {
                data.setReplicaState(new FetchRequestData.ReplicaState().setReplicaId(ListOffsetsRequest.DEBUGGING_REPLICA_ID));
            } else {
                data.setReplicaId(ListOffsetsRequest.DEBUGGING_REPLICA_ID);
            }
            FetchRequestData.FetchTopic topic = null;
            String topicName = null;
            for (int k = 0; k < order.length; k++) {
                PartitionToProbe p = positions.partitions.get(order[k]);
                if (!p.topicPartition().topic().equals(topicName)) {
                    topicName = p.topicPartition().topic();
                    topic = version >= 13 ? new FetchRequestData.FetchTopic().setTopicId(p.topicId())
                            : new FetchRequestData.FetchTopic().setTopic(p.topicPartition().topic());
                    data.topics().add(topic);
                }
                topic.partitions().add(new FetchRequestData.FetchPartition()
                        .setPartition(p.topicPartition().partition())
                        .setCurrentLeaderEpoch(-1)
                        .setFetchOffset(Long.MAX_VALUE)
                        .setLastFetchedEpoch(probes[k])
                        .setLogStartOffset(FetchRequest.INVALID_LOG_START_OFFSET)
                        .setPartitionMaxBytes(0));
            }
            return new FetchRequest(data, version);
        }

        @Override
        public String toString() {
            return "Fetch(DivergingEpoch search of " + order.length + " partitions)";
        }
    }

    private void record(ProbeBatch batch, FetchResponse response, DivergenceFetch request, BatchPositions positions,
                        LatestEpochSearch[] searches, EpochOutcome[] stopped) {
        Errors topLevel = response.error();
        if (topLevel != Errors.NONE) {
            throw new BrokerRequestException(batch.brokerId(), true, connections.describe(batch.brokerId())
                    + " answered Fetch with " + topLevel.name() + ": " + topLevel.message());
        }
        int[] probeAt = new int[positions.size()];
        Arrays.fill(probeAt, NOT_ASKED);
        for (int k = 0; k < request.order.length; k++) {
            probeAt[request.order[k]] = request.probes[k];
        }
        int k = 0;
        for (FetchResponseData.FetchableTopicResponse topic : response.data().responses()) {
            String name = Uuid.ZERO_UUID.equals(topic.topicId()) ? topic.topic() : request.topicNames.get(topic.topicId());
            for (FetchResponseData.PartitionData partition : topic.partitions()) {
                int expected = k < request.order.length ? request.order[k] : -1;
                k++;
                int position = name == null ? -1 : positions.find(name, partition.partitionIndex(), expected);
                if (position < 0 || probeAt[position] == NOT_ASKED) {
                    continue;
                }
                int probedEpoch = probeAt[position];
                probeAt[position] = NOT_ASKED;
                Errors error = Errors.forCode(partition.errorCode());
                if (error == Errors.OFFSET_OUT_OF_RANGE) {
                    searches[position].outOfRange(probedEpoch);
                } else if (error != Errors.NONE) {
                    stopped[position] = new EpochOutcome(null, error, null);
                } else if (FetchResponse.isDivergingEpoch(partition)) {
                    searches[position].diverged(probedEpoch, partition.divergingEpoch().endOffset());
                } else {
                    stopped[position] = new EpochOutcome(null, Errors.NONE, "answered Fetch without a DivergingEpoch for"
                            + " LastFetchedEpoch " + probedEpoch + " (is it older than Kafka 2.7?)");
                }
            }
        }
        for (int position : request.order) {
            if (probeAt[position] != NOT_ASKED) {
                stopped[position] = new EpochOutcome(null, Errors.NONE, "left the partition out of its Fetch answer");
            }
        }
    }

    // ---- Combining both answers ------------------------------------------------------------------

    private ProbeBatchAnswer answer(ProbeBatch batch, LogEnd[] logEnds, EpochOutcome[] epochs) {
        int broker = batch.brokerId();
        String who = connections.describe(broker);
        Instant now = Instant.now();
        Map<TopicPartition, ReplicaEvidence> settled = new HashMap<>(batch.partitions().size() * 4 / 3 + 1);
        Map<TopicPartition, ProbeBatchAnswer.PartitionRetry> retry = new HashMap<>();
        for (int i = 0; i < batch.partitions().size(); i++) {
            PartitionToProbe p = batch.partitions().get(i);
            TopicPartition tp = p.topicPartition();
            LogEnd end = logEnds[i];
            EpochOutcome epoch = epochs[i];
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
