// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.probe;

import dev.uncleanrecovery.connect.BrokerConnections;
import dev.uncleanrecovery.connect.BrokerRequestException;
import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.evidence.ReplicaEvidence;
import dev.uncleanrecovery.support.PartitionMap;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.stream.IntStream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsPartition;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsTopic;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
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
 *   <li><b>a second look</b> at a replica a plan saw ({@link PartitionToProbe#asPlanned()}): one Fetch with
 *       LastFetchedEpoch = the planned epoch shows whether the log still holds what the plan counted on;
 *       only a replica it does not confirm is asked the full way.</li>
 * </ul>
 * The first Fetch round goes out together with ListOffsets. Both are kafka-clients' requests
 * ({@link ListOffsetsRequest.Builder}, {@link FetchRequest.Builder}) over {@link BrokerConnections}, in the highest
 * version both sides know.
 */
public final class StockLogInfoSource implements ReplicaLogInfoSource {

    /** ReplicaId -2 (DEBUGGING): a follower, or a replica of a partition without a leader, answers it. */
    static final int DEBUGGING_REPLICA_ID = ListOffsetsRequest.DEBUGGING_REPLICA_ID;
    /** ListOffsets v6 and Fetch v12: the first with flexible fields and, for Fetch, LastFetchedEpoch. */
    static final short LIST_OFFSETS_MIN_VERSION = 6;
    static final short FETCH_MIN_VERSION = 12;
    /** Fetch v13 and later name topics by id. */
    static final short FETCH_LAST_VERSION_WITH_TOPIC_NAMES = 12;
    /** Timestamp -1: the offset after the last record (with IsolationLevel 0 and ReplicaId -2: the log end offset). */
    private static final long LATEST_TIMESTAMP = ListOffsetsRequest.LATEST_TIMESTAMP;
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

    /** Each broker's ApiVersions, which picks the versions of every request: asked before any batch is built. */
    @Override
    public void prepare(Collection<Integer> brokerIds, Duration timeout) {
        brokerIds.forEach(broker -> connections.apiVersions(broker, timeout));
    }

    @Override
    public CompletableFuture<ProbeBatchAnswer> probe(ProbeBatch batch) {
        List<PartitionToProbe> seenByPlan = batch.partitions().stream().filter(p -> p.asPlanned() != null).toList();
        if (seenByPlan.isEmpty()) {
            return findOut(batch);
        }
        return confirm(batch, seenByPlan).thenCompose(confirmed -> {
            List<PartitionToProbe> rest = batch.partitions().stream()
                    .filter(p -> !confirmed.containsKey(p.topicPartition())).map(PartitionToProbe::withoutPlan).toList();
            if (rest.isEmpty()) {
                return CompletableFuture.completedFuture(new ProbeBatchAnswer(confirmed, Map.of()));
            }
            return findOut(batch.only(rest)).thenApply(found -> {
                Map<TopicPartition, ReplicaEvidence> settled = new HashMap<>(found.settled());
                settled.putAll(confirmed);
                return new ProbeBatchAnswer(settled, found.retry());
            });
        });
    }

    /**
     * The second look at replicas a plan saw: one Fetch with LastFetchedEpoch = the epoch the plan saw as the
     * replica's latest, a third of the requests of finding out. On a partition without a leader nothing can be
     * appended: the log either still holds the planned records or lost some (a broker that restarted and truncated
     * an unflushed tail). DivergingEpoch (that epoch, an end offset at least the planned log end offset) shows the
     * former; that end offset is then the log end offset (a later epoch would have needed a leader), and it is
     * reported as the replica's evidence. A replica for which the one Fetch shows anything else is asked the full
     * way (ListOffsets and the whole search), which tells how its log changed.
     *
     * @return the evidence of every replica the Fetch confirmed; those missing need the full probe
     */
    private CompletableFuture<Map<TopicPartition, ReplicaEvidence>> confirm(ProbeBatch batch,
                                                                           List<PartitionToProbe> seenByPlan) {
        BatchPositions positions = new BatchPositions(seenByPlan);
        LatestEpochSearch[] searches = new LatestEpochSearch[positions.size()];
        for (int i = 0; i < searches.length; i++) {
            PartitionToProbe p = seenByPlan.get(i);
            int planned = p.asPlanned().lastWrittenLeaderEpoch();
            if (planned >= 0) {
                searches[i] = new LatestEpochSearch(Math.max(planned, p.metadataLeaderEpoch()), planned);
            }
        }
        EpochOutcome[] stopped = new EpochOutcome[positions.size()];
        int[] searching = stillSearching(searches, stopped);
        if (searching.length == 0) {
            return CompletableFuture.completedFuture(Map.of());
        }
        return oneRound(batch, positions, searches, stopped, searching).thenApply(asked -> {
            Instant now = Instant.now();
            Map<TopicPartition, ReplicaEvidence> confirmed = new HashMap<>(seenByPlan.size() * 4 / 3 + 1);
            for (int i = 0; i < searches.length; i++) {
                PartitionToProbe.AsPlanned planned = seenByPlan.get(i).asPlanned();
                if (searches[i] != null && stopped[i] == null
                        && searches[i].holdsAtLeast(planned.lastWrittenLeaderEpoch(), planned.logEndOffset())) {
                    TopicPartition tp = seenByPlan.get(i).topicPartition();
                    confirmed.put(tp, ReplicaEvidence.answered(tp, batch.brokerId(), EvidenceSource.STOCK,
                            searches[i].logEndOffset(), planned.lastWrittenLeaderEpoch(), -1, -1L, now)
                            .withHighWatermark(searches[i].highWatermark()));
                }
            }
            return confirmed;
        });
    }

    /** ListOffsets for the log end offset, the Fetch search for the latest epoch: what the replica's log holds. */
    private CompletableFuture<ProbeBatchAnswer> findOut(ProbeBatch batch) {
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
        private Map<PartitionMap.Key, Integer> index;

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
            Integer position = index().get(new PartitionMap.Key(topic, partition));
            return position == null ? -1 : position;
        }

        private synchronized Map<PartitionMap.Key, Integer> index() {
            if (index == null) {
                index = new HashMap<>();
                for (int i = 0; i < partitions.size(); i++) {
                    index.put(PartitionMap.Key.of(partitions.get(i).topicPartition()), i);
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

        /** ListOffsets' topics for the positions in {@code order}, grouped by topic (see {@link #groupByTopic}). */
        List<ListOffsetsTopic> listOffsetsTopics(int[] order, long timestamp) {
            List<ListOffsetsTopic> topics = new ArrayList<>();
            ListOffsetsTopic current = null;
            for (int position : order) {
                TopicPartition tp = partitions.get(position).topicPartition();
                if (current == null || !current.name().equals(tp.topic())) {
                    current = new ListOffsetsTopic().setName(tp.topic());
                    topics.add(current);
                }
                // CurrentLeaderEpoch -1: no fencing check, so a broker with other metadata still answers (and we compare).
                current.partitions().add(new ListOffsetsPartition().setPartitionIndex(tp.partition())
                        .setCurrentLeaderEpoch(-1).setTimestamp(timestamp));
            }
            return topics;
        }

        /**
         * The DivergingEpoch question for the positions in {@code order} (grouped by topic: the builder starts a topic
         * entry wherever the topic changes), LastFetchedEpoch {@code lastFetchedEpochs[k]} for {@code order[k]}.
         */
        Map<TopicPartition, FetchRequest.PartitionData> divergenceQuestions(int[] order, int[] lastFetchedEpochs) {
            Map<TopicPartition, FetchRequest.PartitionData> questions = new LinkedHashMap<>(order.length * 4 / 3 + 1);
            for (int k = 0; k < order.length; k++) {
                PartitionToProbe p = partitions.get(order[k]);
                questions.put(p.topicPartition(), divergenceQuestion(p.topicId(), lastFetchedEpochs[k]));
            }
            return questions;
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
        ListOffsetsRequest.Builder request = ListOffsetsRequest.Builder
                .forReplica(ApiKeys.LIST_OFFSETS.latestVersion(), DEBUGGING_REPLICA_ID)
                .setTargetTimes(positions.listOffsetsTopics(order, LATEST_TIMESTAMP))
                .setTimeoutMs((int) batch.requestTimeout().toMillis());
        batch.countRequest(ApiKeys.LIST_OFFSETS.name);
        return exchange(batch, ApiKeys.LIST_OFFSETS, LIST_OFFSETS_MIN_VERSION, ApiKeys.LIST_OFFSETS.latestVersion(),
                request, ListOffsetsResponse.class, response -> {
                    LogEnd[] ends = new LogEnd[positions.size()];
                    int k = 0;
                    for (ListOffsetsResponseData.ListOffsetsTopicResponse topic : response.topics()) {
                        for (ListOffsetsResponseData.ListOffsetsPartitionResponse p : topic.partitions()) {
                            int position = positions.find(topic.name(), p.partitionIndex(), k < order.length ? order[k] : -1);
                            k++;
                            if (position >= 0) {
                                ends[position] = new LogEnd(errorOf(p.errorCode()), p.offset(), p.leaderEpoch());
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
        int[] searching = stillSearching(searches, stopped);
        if (searching.length == 0) {
            EpochOutcome[] outcomes = stopped.clone();
            for (int i = 0; i < outcomes.length; i++) {
                if (outcomes[i] == null && searches[i] != null) {
                    outcomes[i] = new EpochOutcome(searches[i], Errors.NONE, null);
                }
            }
            return CompletableFuture.completedFuture(outcomes);
        }
        return oneRound(batch, positions, searches, stopped, searching)
                .thenCompose(recorded -> nextRound(batch, positions, searches, stopped));
    }

    /** The positions whose search goes on: started, not done, not stopped by an error. */
    private static int[] stillSearching(LatestEpochSearch[] searches, EpochOutcome[] stopped) {
        return IntStream.range(0, searches.length)
                .filter(i -> searches[i] != null && !searches[i].isDone() && stopped[i] == null).toArray();
    }

    /** One Fetch for the {@code searching} positions; its answers recorded in {@code searches} and {@code stopped}. */
    private CompletableFuture<Void> oneRound(ProbeBatch batch, BatchPositions positions, LatestEpochSearch[] searches,
                                             EpochOutcome[] stopped, int[] searching) {
        DivergenceFetch request = new DivergenceFetch(positions, searching, searches);
        batch.countRequest(ApiKeys.FETCH.name);
        return exchange(batch, ApiKeys.FETCH, FETCH_MIN_VERSION, request.latestAllowedVersion(),
                divergenceFetch(request.latestAllowedVersion(), positions.divergenceQuestions(request.order, request.probes)),
                FetchResponse.class, response -> {
                    record(batch, response, request, positions, searches, stopped);
                    return null;
                });
    }

    /**
     * One round of the DivergingEpoch search: for every partition still searching, LastFetchedEpoch = the probe
     * ({@link #divergenceQuestion}), the partitions grouped by topic. Topics go by name up to v12 and by id from
     * v13, so a batch with a topic of unknown id is asked in v12.
     */
    static final class DivergenceFetch {
        final int[] order;
        final int[] probes;
        /** The answer names topics by id from v13. */
        final Map<Uuid, String> topicNames = new HashMap<>();
        private final boolean everyTopicIdKnown;

        DivergenceFetch(BatchPositions positions, int[] searching, LatestEpochSearch[] searches) {
            this.order = positions.groupByTopic(searching);
            this.probes = new int[order.length];
            boolean idsKnown = true;
            for (int k = 0; k < order.length; k++) {
                PartitionToProbe p = positions.partitions.get(order[k]);
                probes[k] = searches[order[k]].nextProbe();
                idsKnown &= !Uuid.ZERO_UUID.equals(p.topicId());
                topicNames.putIfAbsent(p.topicId(), p.topicPartition().topic());
            }
            this.everyTopicIdKnown = idsKnown;
        }

        short latestAllowedVersion() {
            return everyTopicIdKnown ? ApiKeys.FETCH.latestVersion() : FETCH_LAST_VERSION_WITH_TOPIC_NAMES;
        }

        @Override
        public String toString() {
            return "Fetch(DivergingEpoch search of " + order.length + " partitions)";
        }
    }

    /**
     * LastFetchedEpoch {@code lastFetchedEpoch} for one partition: FetchOffset past any log end (so the broker runs
     * the divergence check and returns no records), CurrentLeaderEpoch and LogStartOffset unset, no records wanted.
     */
    static FetchRequest.PartitionData divergenceQuestion(Uuid topicId, int lastFetchedEpoch) {
        return new FetchRequest.PartitionData(topicId, Long.MAX_VALUE, FetchRequest.INVALID_LOG_START_OFFSET, 0,
                Optional.empty(), Optional.of(lastFetchedEpoch));
    }

    /**
     * The Fetch of {@code questions} as ReplicaId -2 (DEBUGGING: a follower, or a replica of a partition without a
     * leader, serves it), MaxWaitMs 0 and MinBytes 0 (answer at once), no session (the broker creates none).
     */
    static FetchRequest.Builder divergenceFetch(short maxVersion, Map<TopicPartition, FetchRequest.PartitionData> questions) {
        return new FetchRequest.Builder(FETCH_MIN_VERSION, maxVersion, DEBUGGING_REPLICA_ID, -1L, 0, 0, questions);
    }

    private void record(ProbeBatch batch, FetchResponse response, DivergenceFetch request, BatchPositions positions,
                        LatestEpochSearch[] searches, EpochOutcome[] stopped) {
        int[] probeAt = new int[positions.size()];
        Arrays.fill(probeAt, NOT_ASKED);
        for (int k = 0; k < request.order.length; k++) {
            probeAt[request.order[k]] = request.probes[k];
        }
        int k = 0;
        for (FetchResponseData.FetchableTopicResponse topic : response.data().responses()) {
            String name = topic.topic().isEmpty() ? request.topicNames.get(topic.topicId()) : topic.topic();
            for (FetchResponseData.PartitionData p : topic.partitions()) {
                int expected = k < request.order.length ? request.order[k] : -1;
                k++;
                int position = name == null ? -1 : positions.find(name, p.partitionIndex(), expected);
                if (position < 0 || probeAt[position] == NOT_ASKED) {
                    continue;
                }
                int probedEpoch = probeAt[position];
                probeAt[position] = NOT_ASKED;
                Errors error = errorOf(p.errorCode());
                if (error == Errors.NONE) {
                    // an error answer (OFFSET_OUT_OF_RANGE for an epoch above the latest) carries -1
                    searches[position].highWatermark(p.highWatermark());
                }
                // DivergingEpoch's Epoch is -1 when the broker sent none; the log diverges only when it is 0 or more.
                FetchResponseData.EpochEndOffset diverging = p.divergingEpoch();
                if (error == Errors.OFFSET_OUT_OF_RANGE) {
                    searches[position].outOfRange(probedEpoch);
                } else if (error != Errors.NONE) {
                    stopped[position] = new EpochOutcome(null, error, null);
                } else if (diverging.epoch() >= 0) {
                    searches[position].diverged(probedEpoch, diverging.epoch(), diverging.endOffset());
                } else {
                    stopped[position] = new EpochOutcome(null, Errors.NONE, "answered Fetch without a DivergingEpoch for"
                            + " LastFetchedEpoch " + probedEpoch + " (is it older than Kafka 2.7?)");
                }
            }
        }
        if (response.error() != Errors.NONE) {
            Errors error = response.error();
            throw new BrokerRequestException(batch.brokerId(), true, connections.describe(batch.brokerId())
                    + " answered Fetch with " + error.name() + ": " + error.message());
        }
        for (int position : request.order) {
            if (probeAt[position] != NOT_ASKED) {
                stopped[position] = new EpochOutcome(null, Errors.NONE, "left the partition out of its Fetch answer");
            }
        }
    }

    /** {@link Errors#forCode}, without its map lookup for the usual 0. */
    private static Errors errorOf(short code) {
        return code == 0 ? Errors.NONE : Errors.forCode(code);
    }

    // ---- Sending -----------------------------------------------------------------------------------

    private <R extends AbstractResponse, T> CompletableFuture<T> exchange(ProbeBatch batch, ApiKeys api, short min,
                                                                          short max, AbstractRequest.Builder<?> request,
                                                                          Class<R> responseType, Function<R, T> reader) {
        return exchange(connections, batch.brokerId(), batch.requestTimeout(), api, min, max, request, responseType,
                reader);
    }

    /**
     * Sends one request to one broker once its ApiVersions shows a version of [{@code min}, {@code max}]; the
     * network client picks the highest one both sides know.
     */
    static <R extends AbstractResponse, T> CompletableFuture<T> exchange(BrokerConnections connections, int broker,
                                                                         Duration timeout, ApiKeys api, short min,
                                                                         short max, AbstractRequest.Builder<?> request,
                                                                         Class<R> responseType, Function<R, T> reader) {
        return connections.apiVersions(broker, timeout).thenCompose(versions -> {
            if (versions.highestVersion(api.id, min, max).isEmpty()) {
                return CompletableFuture.failedFuture(new BrokerRequestException(broker, false,
                        connections.describe(broker) + " does not offer " + api.name + " v" + min + "–v" + max
                                + ", which the stock probe needs (every Kafka since 2.7 offers it)"));
            }
            return connections.send(broker, request, responseType, timeout).thenApply(reader);
        });
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
                    end.brokerLeaderEpoch(), -1L, now).withHighWatermark(search.highWatermark()));
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
