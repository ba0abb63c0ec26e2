// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.probe;

import dev.uncleanrecovery.connect.BrokerApiVersions;
import dev.uncleanrecovery.connect.BrokerConnections;
import dev.uncleanrecovery.connect.BrokerRequestException;
import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.evidence.ReplicaEvidence;
import dev.uncleanrecovery.wire.Frames;
import dev.uncleanrecovery.wire.GetReplicaLogInfo;
import dev.uncleanrecovery.wire.GetReplicaLogInfoRequest;
import dev.uncleanrecovery.wire.GetReplicaLogInfoResponse.PartitionLogInfo;
import dev.uncleanrecovery.wire.GetReplicaLogInfoResponse;
import dev.uncleanrecovery.wire.ProtocolException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;

/**
 * Evidence from a broker that runs the companion patch: one GetReplicaLogInfo v0 per batch, which
 * answers LogEndOffset, LastWrittenLeaderEpoch, CurrentLeaderEpoch per partition and the broker's
 * BrokerEpoch. A broker answers at most {@link GetReplicaLogInfo#MAX_PARTITIONS_PER_REQUEST}
 * partitions and sets HasMoreData for the rest: those are left out of the answer, so the engine
 * asks for them again at once.
 *
 * <p>Never sends the private api key to a broker that did not advertise it (a stock broker closes
 * the connection on unknown keys): such a broker's replicas get ERROR evidence that says so.
 */
public final class NativeLogInfoSource implements ReplicaLogInfoSource {

    /** One GetReplicaLogInfo round trip to one broker. */
    @FunctionalInterface
    interface Exchange {
        /** Completes with the decoded answer, or exceptionally (normally a {@link BrokerRequestException}). */
        CompletableFuture<GetReplicaLogInfoResponse> send(int brokerId, GetReplicaLogInfoRequest request, Duration timeout);
    }

    static final String API_NAME = "GetReplicaLogInfo";
    private static final String CLIENT_ID = "kafka-unclean-recovery";

    private final IntFunction<CompletableFuture<BrokerApiVersions>> apiVersions;
    private final Exchange exchange;
    private final IntFunction<String> describeBroker;
    private final short apiKey;

    NativeLogInfoSource(IntFunction<CompletableFuture<BrokerApiVersions>> apiVersions, Exchange exchange,
                        IntFunction<String> describeBroker, short apiKey) {
        this.apiVersions = apiVersions;
        this.exchange = exchange;
        this.describeBroker = describeBroker;
        this.apiKey = apiKey;
    }

    /** GetReplicaLogInfo under the api key in force in this JVM ({@link GetReplicaLogInfo#apiKey()}). */
    public static NativeLogInfoSource of(BrokerConnections connections) {
        short key = GetReplicaLogInfo.apiKey();
        Exchange exchange = (broker, request, timeout) -> connections.sendRawFrame(broker, key, GetReplicaLogInfo.VERSION,
                        correlationId -> Frames.request(request, GetReplicaLogInfo.VERSION, correlationId, CLIENT_ID), timeout)
                .thenApply(frame -> {
                    try {
                        return Frames.parseGetReplicaLogInfoResponse(frame).body();
                    } catch (ProtocolException e) {
                        // Retrying cannot make the bytes readable: the agent and the tool disagree on the format.
                        throw new BrokerRequestException(broker, false, connections.describe(broker) + " answered "
                                + API_NAME + " with bytes this tool cannot read (" + e.getMessage() + "); run the same"
                                + " release of the tool and the kafka-patch agent, or use --probe-mode stock", e);
                    }
                });
        return new NativeLogInfoSource(connections::apiVersions, exchange, connections::describe, key);
    }

    @Override
    public EvidenceSource kindFor(int brokerId) {
        return EvidenceSource.NATIVE;
    }

    /** Each broker's ApiVersions, which decides what to ask it: asked before any batch is built. */
    @Override
    public void prepare(Collection<Integer> brokerIds, Duration timeout) {
        brokerIds.forEach(apiVersions::apply);
    }

    @Override
    public CompletableFuture<ProbeBatchAnswer> probe(ProbeBatch batch) {
        int broker = batch.brokerId();
        // A failed ApiVersions fails the batch like any unanswered request; the engine asks again.
        return apiVersions.apply(broker).thenCompose(versions -> {
            Instant now = Instant.now();
            if (!versions.advertises(apiKey, GetReplicaLogInfo.VERSION)) {
                return CompletableFuture.completedFuture(notOffered(batch.partitions(), broker, now));
            }
            Map<TopicPartition, ReplicaEvidence> withoutTopicId = new HashMap<>();
            Map<Uuid, List<Integer>> byTopicId = new LinkedHashMap<>();
            for (PartitionToProbe p : batch.partitions()) {
                if (Uuid.ZERO_UUID.equals(p.topicId())) {
                    withoutTopicId.put(p.topicPartition(), error(p.topicPartition(), broker, "the topic id of "
                            + p.topicPartition().topic() + " is unknown and " + API_NAME + " names topics by id;"
                            + " use --probe-mode stock", now));
                } else {
                    byTopicId.computeIfAbsent(p.topicId(), id -> new ArrayList<>()).add(p.topicPartition().partition());
                }
            }
            if (byTopicId.isEmpty()) {
                return CompletableFuture.completedFuture(new ProbeBatchAnswer(withoutTopicId, Map.of()));
            }
            List<GetReplicaLogInfoRequest.TopicPartitions> topics = new ArrayList<>();
            byTopicId.forEach((id, partitions) -> topics.add(new GetReplicaLogInfoRequest.TopicPartitions(id, partitions)));
            batch.countRequest(API_NAME);
            return exchange.send(broker, new GetReplicaLogInfoRequest(topics), batch.requestTimeout())
                    .thenApply(response -> {
                        ProbeBatchAnswer answer = answer(batch.partitions(), broker, response, Instant.now());
                        Map<TopicPartition, ReplicaEvidence> settled = new HashMap<>(answer.settled());
                        settled.putAll(withoutTopicId);
                        return new ProbeBatchAnswer(settled, answer.retry());
                    });
        });
    }

    /**
     * Turns one broker's answer into evidence. A partition the answer leaves out is left out of the
     * result when the broker said HasMoreData (the engine asks for it again at once), and asked again
     * otherwise.
     */
    ProbeBatchAnswer answer(List<PartitionToProbe> asked, int broker, GetReplicaLogInfoResponse response, Instant now) {
        String who = describeBroker.apply(broker);
        Map<Uuid, Map<Integer, PartitionLogInfo>> answered = new HashMap<>();
        for (GetReplicaLogInfoResponse.TopicPartitionLogInfo topic : response.topicPartitionLogInfoList()) {
            Map<Integer, PartitionLogInfo> partitions = answered.computeIfAbsent(topic.topicId(), id -> new HashMap<>());
            topic.partitionLogInfo().forEach(info -> partitions.putIfAbsent(info.partition(), info));
        }
        Map<TopicPartition, ReplicaEvidence> settled = new HashMap<>();
        Map<TopicPartition, ProbeBatchAnswer.PartitionRetry> retry = new HashMap<>();
        for (PartitionToProbe p : asked) {
            TopicPartition tp = p.topicPartition();
            PartitionLogInfo info = answered.getOrDefault(p.topicId(), Map.of()).get(tp.partition());
            if (info == null) {
                if (!response.hasMoreData()) {
                    String reason = who + " left " + tp + " out of its " + API_NAME + " answer";
                    retry.put(tp, new ProbeBatchAnswer.PartitionRetry(reason, error(tp, broker, reason, now)));
                }
                // With HasMoreData: not answered this time; the engine asks again at once.
            } else if (info.error() != Errors.NONE) {
                partitionError(tp, broker, who, info.error(), now, settled, retry);
            } else if (p.metadataLeaderEpoch() >= 0 && info.currentLeaderEpoch() != p.metadataLeaderEpoch()) {
                String reason = who + " knows leader epoch " + info.currentLeaderEpoch() + " for " + tp
                        + " but the controller's metadata says " + p.metadataLeaderEpoch()
                        + ": that broker's metadata lags, or the partition changed since it was described";
                retry.put(tp, new ProbeBatchAnswer.PartitionRetry(reason, new ReplicaEvidence(tp, broker,
                        EvidenceSource.NATIVE, EvidenceStatus.STALE, info.logEndOffset(), info.lastWrittenLeaderEpoch(),
                        info.currentLeaderEpoch(), response.brokerEpoch(), reason, now)));
            } else {
                settled.put(tp, ReplicaEvidence.answered(tp, broker, EvidenceSource.NATIVE, info.logEndOffset(),
                        info.lastWrittenLeaderEpoch(), info.currentLeaderEpoch(), response.brokerEpoch(), now));
            }
        }
        return new ProbeBatchAnswer(settled, retry);
    }

    /** Every replica on a broker without the patch: ERROR, saying what to do. */
    static ProbeBatchAnswer notOffered(List<PartitionToProbe> asked, int broker, Instant now) {
        String text = "broker " + broker + " does not offer " + API_NAME
                + " (run the kafka-patch agent or use --probe-mode stock)";
        Map<TopicPartition, ReplicaEvidence> settled = new HashMap<>();
        asked.forEach(p -> settled.put(p.topicPartition(), error(p.topicPartition(), broker, text, now)));
        return new ProbeBatchAnswer(settled, Map.of());
    }

    private static void partitionError(TopicPartition tp, int broker, String who, Errors error, Instant now,
                                       Map<TopicPartition, ReplicaEvidence> settled,
                                       Map<TopicPartition, ProbeBatchAnswer.PartitionRetry> retry) {
        String text = who + " answered " + API_NAME + " for " + tp + " with " + error.name() + ": " + explain(error, tp);
        StockLogInfoSource.settleOrRetry(ReplicaEvidence.failed(tp, broker, EvidenceSource.NATIVE,
                StockLogInfoSource.statusOf(error), text, now), error, settled, retry);
    }

    /** What the error means for a native probe, and what to do about it. */
    static String explain(Errors error, TopicPartition tp) {
        return switch (error) {
            // The agent lets a principal with DESCRIBE on the topic, or CLUSTER_ACTION (brokers), ask.
            case TOPIC_AUTHORIZATION_FAILED -> "not authorized: grant DESCRIBE on topic " + tp.topic()
                    + " or CLUSTER_ACTION on the cluster to the tool's principal";
            case CLUSTER_AUTHORIZATION_FAILED -> "not authorized: grant DESCRIBE on topic " + tp.topic()
                    + " or CLUSTER_ACTION on the cluster to the tool's principal";
            default -> StockLogInfoSource.explain(error);
        };
    }

    private static ReplicaEvidence error(TopicPartition tp, int broker, String text, Instant now) {
        return ReplicaEvidence.failed(tp, broker, EvidenceSource.NATIVE, EvidenceStatus.ERROR, text, now);
    }
}
