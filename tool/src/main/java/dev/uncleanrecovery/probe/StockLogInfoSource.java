// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.probe;

import dev.uncleanrecovery.connect.BrokerConnections;
import dev.uncleanrecovery.connect.BrokerRequestException;
import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.evidence.ReplicaEvidence;
import dev.uncleanrecovery.protocol.FetchWire;
import dev.uncleanrecovery.protocol.ListOffsetsWire;
import dev.uncleanrecovery.protocol.PartitionList;
import dev.uncleanrecovery.wire.ProtocolException;
import dev.uncleanrecovery.support.PartitionMap;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.stream.IntStream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

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
 * The first Fetch round goes out together with ListOffsets. Both are written and read by the {@code protocol}
 * package ({@link ListOffsetsWire}, {@link FetchWire}: checked byte for byte against kafka-clients) and sent over
 * the raw channel, in the highest version both sides know: a probe of 300,000 replicas would otherwise build
 * millions of kafka-clients message objects.
 */
public final class StockLogInfoSource implements ReplicaLogInfoSource {

    /** ReplicaId -2 (DEBUGGING): a follower, or a replica of a partition without a leader, answers it. */
    /** ReplicaId -2 (DEBUGGING): a follower, or a replica of a partition without leader, serves the request. */
    static final int DEBUGGING_REPLICA_ID = -2;
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

        /** The partitions at {@code order}'s positions, in that order (grouped by topic: see {@link #groupByTopic}). */
        PartitionList inOrder(int[] order) {
            return new PartitionList() {
                /** Found once: the Fetch round needs it for its topic-name map and again to write the request. */
                private int[] topicStarts;

                @Override
                public int[] topicStarts() {
                    if (topicStarts == null) {
                        topicStarts = PartitionList.super.topicStarts();
                    }
                    return topicStarts;
                }

                @Override
                public int size() {
                    return order.length;
                }

                @Override
                public String topic(int k) {
                    return partitions.get(order[k]).topicPartition().topic();
                }

                @Override
                public Uuid topicId(int k) {
                    return partitions.get(order[k]).topicId();
                }

                @Override
                public int partition(int k) {
                    return partitions.get(order[k]).topicPartition().partition();
                }
            };
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
        PartitionList asked = positions.inOrder(order);
        int timeoutMs = (int) batch.requestTimeout().toMillis();
        batch.countRequest(ApiKeys.LIST_OFFSETS.name);
        return exchange(batch, ApiKeys.LIST_OFFSETS, ListOffsetsWire.MIN_VERSION, ListOffsetsWire.MAX_VERSION,
                // -1: no fencing check, so a broker with other metadata still answers (and we compare).
                version -> ListOffsetsWire.request(version, DEBUGGING_REPLICA_ID, timeoutMs, asked,
                        ListOffsetsWire.LATEST_TIMESTAMP),
                (version, body) -> {
                    LogEnd[] ends = new LogEnd[positions.size()];
                    int[] k = {0};
                    ListOffsetsWire.readResponse(body, version, (topic, partition, errorCode, offset, leaderEpoch) -> {
                        int position = positions.find(topic, partition, k[0] < order.length ? order[k[0]] : -1);
                        k[0]++;
                        if (position >= 0) {
                            ends[position] = new LogEnd(errorOf(errorCode), offset, leaderEpoch);
                        }
                    });
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
        return exchange(batch, ApiKeys.FETCH, FetchWire.MIN_VERSION, request.latestAllowedVersion(),
                version -> FetchWire.divergenceRequest(version, DEBUGGING_REPLICA_ID, request.asked, request.probes),
                (version, body) -> {
                    record(batch, version, body, request, positions, searches, stopped);
                    return null;
                });
    }

    /**
     * One round of the DivergingEpoch search: for every partition still searching, LastFetchedEpoch = the probe
     * ({@link FetchWire#divergenceRequest}), the partitions grouped by topic. Topics go by name up to v12 and by
     * id from v13, so a batch with a topic of unknown id is asked in v12.
     */
    static final class DivergenceFetch {
        final int[] order;
        final int[] probes;
        final PartitionList asked;
        final Map<Uuid, String> topicNames = new HashMap<>();
        private final boolean everyTopicIdKnown;

        DivergenceFetch(BatchPositions positions, int[] searching, LatestEpochSearch[] searches) {
            this.order = positions.groupByTopic(searching);
            this.asked = positions.inOrder(order);
            this.probes = new int[order.length];
            for (int k = 0; k < order.length; k++) {
                probes[k] = searches[order[k]].nextProbe();
            }
            boolean idsKnown = true;
            int[] starts = asked.topicStarts();
            for (int t = 0; t + 1 < starts.length; t++) {
                Uuid topicId = asked.topicId(starts[t]);
                idsKnown &= !Uuid.ZERO_UUID.equals(topicId);
                topicNames.put(topicId, asked.topic(starts[t]));
            }
            this.everyTopicIdKnown = idsKnown;
        }

        short latestAllowedVersion() {
            return everyTopicIdKnown ? FetchWire.MAX_VERSION : FetchWire.LAST_VERSION_WITH_TOPIC_NAMES;
        }

        @Override
        public String toString() {
            return "Fetch(DivergingEpoch search of " + order.length + " partitions)";
        }
    }

    private void record(ProbeBatch batch, short version, ByteBuffer body, DivergenceFetch request,
                        BatchPositions positions, LatestEpochSearch[] searches, EpochOutcome[] stopped) {
        int[] probeAt = new int[positions.size()];
        Arrays.fill(probeAt, NOT_ASKED);
        for (int k = 0; k < request.order.length; k++) {
            probeAt[request.order[k]] = request.probes[k];
        }
        int[] k = {0};
        short topLevel = FetchWire.readResponse(body, version, (topic, topicId, partition, errorCode, highWatermark,
                                                                divergingEpoch, divergingEndOffset) -> {
            String name = topicId == null ? topic : request.topicNames.get(topicId);
            int expected = k[0] < request.order.length ? request.order[k[0]] : -1;
            k[0]++;
            int position = name == null ? -1 : positions.find(name, partition, expected);
            if (position < 0 || probeAt[position] == NOT_ASKED) {
                return;
            }
            int probedEpoch = probeAt[position];
            probeAt[position] = NOT_ASKED;
            Errors error = errorOf(errorCode);
            if (error == Errors.NONE) {
                // an error answer (OFFSET_OUT_OF_RANGE for an epoch above the latest) carries -1
                searches[position].highWatermark(highWatermark);
            }
            if (error == Errors.OFFSET_OUT_OF_RANGE) {
                searches[position].outOfRange(probedEpoch);
            } else if (error != Errors.NONE) {
                stopped[position] = new EpochOutcome(null, error, null);
            } else if (divergingEpoch >= 0) {
                searches[position].diverged(probedEpoch, divergingEpoch, divergingEndOffset);
            } else {
                stopped[position] = new EpochOutcome(null, Errors.NONE, "answered Fetch without a DivergingEpoch for"
                        + " LastFetchedEpoch " + probedEpoch + " (is it older than Kafka 2.7?)");
            }
        });
        if (topLevel != Errors.NONE.code()) {
            Errors error = Errors.forCode(topLevel);
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

    /** Reads a response body of the version the request was sent in. */
    @FunctionalInterface
    interface BodyReader<T> {
        T read(short version, ByteBuffer body);
    }

    /**
     * Sends one request in the highest version of [{@code min}, {@code max}] the broker offers, framed and read by
     * the {@code protocol} package (no kafka-clients object per partition) over the raw channel, which has the same
     * TLS/SASL set-up as every other connection.
     */
    private <T> CompletableFuture<T> exchange(ProbeBatch batch, ApiKeys api, short min, short max,
                                              Function<Short, ByteBuffer> request, BodyReader<T> reader) {
        return exchange(connections, batch.brokerId(), batch.requestTimeout(), api, min, max, request, reader);
    }

    /** {@link #exchange(ProbeBatch, ApiKeys, short, short, Function, BodyReader)} with one broker and one timeout. */
    static <T> CompletableFuture<T> exchange(BrokerConnections connections, int broker, Duration timeout, ApiKeys api,
                                             short min, short max, Function<Short, ByteBuffer> request,
                                             BodyReader<T> reader) {
        return connections.apiVersions(broker, timeout).thenCompose(versions -> {
            Optional<Short> version = versions.highestVersion(api.id, min, max);
            if (version.isEmpty()) {
                return CompletableFuture.failedFuture(new BrokerRequestException(broker, false,
                        connections.describe(broker) + " does not offer " + api.name + " v" + min + "–v" + max
                                + ", which the stock probe needs (every Kafka since 2.7 offers it)"));
            }
            short v = version.get();
            return connections.sendRaw(broker, api.id, v, request.apply(v), timeout)
                    .thenApply(body -> {
                        try {
                            return reader.read(v, body);
                        } catch (ProtocolException e) {
                            throw new BrokerRequestException(broker, false, connections.describe(broker) + " answered "
                                    + api.name + " v" + v + " with bytes this tool cannot read: " + e.getMessage(), e);
                        }
                    });
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
        settleOrRetry(ReplicaEvidence.failed(tp, broker, EvidenceSource.STOCK, statusOf(error), text, now), error,
                settled, retry);
    }

    /**
     * Both probes' rule for a replica's error: a retriable one is asked again until the deadline, except a failed log
     * directory, which Kafka brings back only when its broker restarts (KafkaStorageException is retriable for
     * clients, which wait for the replica to move; here it does not move).
     */
    static void settleOrRetry(ReplicaEvidence evidence, Errors error, Map<TopicPartition, ReplicaEvidence> settled,
                              Map<TopicPartition, ProbeBatchAnswer.PartitionRetry> retry) {
        if (error.exception() instanceof RetriableException && error != Errors.KAFKA_STORAGE_ERROR) {
            retry.put(evidence.topicPartition(), new ProbeBatchAnswer.PartitionRetry(evidence.error(), evidence));
        } else {
            settled.put(evidence.topicPartition(), evidence);
        }
    }

    /** The evidence status of a replica its broker answered with {@code error}. */
    static EvidenceStatus statusOf(Errors error) {
        return error == Errors.KAFKA_STORAGE_ERROR ? EvidenceStatus.LOG_DIR_OFFLINE : EvidenceStatus.ERROR;
    }

    /** What the error means for a probe, and what to do about it. */
    static String explain(Errors error) {
        return switch (error) {
            case NOT_LEADER_OR_FOLLOWER -> "that broker does not host this replica (yet); it may still be loading its logs";
            case KAFKA_STORAGE_ERROR -> "the log directory holding this replica has failed on that broker; 'inspect"
                    + " --log-dir' on that directory, if it can still be read, gives the replica's log";
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
