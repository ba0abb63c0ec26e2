// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import static dev.uncleanrecovery.execute.ElectionVerification.outcome;

import dev.uncleanrecovery.cluster.ClusterSnapshot;
import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.connect.BrokerConnections;
import dev.uncleanrecovery.connect.BrokerRequestException;
import dev.uncleanrecovery.wire.Frames;
import dev.uncleanrecovery.wire.ElectLeaders;
import dev.uncleanrecovery.wire.ElectLeadersRequest;
import dev.uncleanrecovery.wire.ElectLeadersResponse;
import dev.uncleanrecovery.wire.ProtocolException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;

/**
 * Designated elections with the companion patch: ElectLeaders v3 with DesignatedLeaders, election
 * type UNCLEAN, split by {@link ControllerCalls#requests} like every controller write (under the controller's cap),
 * sent to a live broker that advertises v3 (brokers forward ElectLeaders to the controller).
 * The controller elects the designated replica or refuses the partition — never another replica —
 * so, unlike the stock elector, nothing is reordered. Every partition is still re-checked just before
 * and verified just after (leader == designated, leader epoch == planned + 1), like the stock elector.
 */
public final class NativeElector implements DesignatedElector {

    /** One ElectLeaders v3 round trip through one broker. */
    @FunctionalInterface
    interface Exchange {
        /** Completes with the decoded answer, or exceptionally (normally a {@link BrokerRequestException}). */
        CompletableFuture<ElectLeadersResponse> send(int brokerId, ElectLeadersRequest request, Duration timeout);
    }

    private static final String CLIENT_ID = "kafka-unclean-recovery";
    /** How long the controller may take per request (the request's TimeoutMs). */
    private static final Duration CONTROLLER_TIMEOUT = Duration.ofSeconds(30);
    /** Extra wait for the answer beyond the controller's TimeoutMs: forwarding and the network. */
    private static final Duration ANSWER_SLACK = Duration.ofSeconds(5);

    private final List<Integer> viaBrokers;
    private final Exchange exchange;
    private final IntFunction<String> describeBroker;
    private final PartitionStateReader reader;
    private final Duration verifyTimeout;
    private final Consumer<String> progress;
    private volatile Duration leadersShownAfter;
    private volatile List<MetadataLag> metadataLag = List.of();

    /**
     * @param viaBrokers live brokers that advertise ElectLeaders v3: request k goes through the k-th (modulo their
     *                   number; each broker forwards one request at a time to the controller), and without an answer
     *                   through the next ones
     */
    NativeElector(List<Integer> viaBrokers, Exchange exchange, IntFunction<String> describeBroker,
                  PartitionStateReader reader, Duration verifyTimeout, Consumer<String> progress) {
        if (viaBrokers.isEmpty()) {
            throw new IllegalArgumentException("the native elector needs a broker that advertises ElectLeaders v3");
        }
        this.viaBrokers = List.copyOf(viaBrokers);
        this.exchange = exchange;
        this.describeBroker = describeBroker;
        this.reader = reader;
        this.verifyTimeout = verifyTimeout;
        this.progress = progress;
    }

    public static NativeElector of(BrokerConnections connections, List<Integer> viaBrokers, PartitionStateReader reader,
                                   Duration verifyTimeout, Consumer<String> progress) {
        short v3 = ElectLeaders.DESIGNATED_LEADERS_VERSION;
        Exchange exchange = (broker, request, timeout) -> connections.sendRawFrame(broker, ElectLeaders.API_KEY, v3,
                        correlationId -> Frames.request(request, v3, correlationId, CLIENT_ID), timeout)
                .thenApply(frame -> {
                    try {
                        return Frames.parseElectLeadersResponse(frame, v3).body();
                    } catch (ProtocolException e) {
                        throw new BrokerRequestException(broker, false, connections.describe(broker)
                                + " answered ElectLeaders v3 with bytes this tool cannot read (" + e.getMessage()
                                + "); run the same release of the tool and the kafka-patch agent", e);
                    }
                });
        return new NativeElector(viaBrokers, exchange, connections::describe, reader, verifyTimeout, progress);
    }

    @Override
    public Duration leadersShownAfter() {
        return leadersShownAfter;
    }

    @Override
    public List<MetadataLag> metadataLag() {
        return metadataLag;
    }

    @Override
    public String describe() {
        return "native: ElectLeaders v3 with DesignatedLeaders (UNCLEAN), through " + describeBroker.apply(viaBrokers.get(0))
                + (viaBrokers.size() == 1 ? "" : " and " + (viaBrokers.size() - 1) + " other broker(s) offering it, a request"
                        + " of up to " + ControllerCalls.MAX_PARTITIONS_PER_REQUEST + " partitions through each in turn")
                + "; the controller elects the designated replica or refuses, never another";
    }

    /** @param validated not used: the partitions are read again right before the election, which nothing undoes */
    @Override
    public List<PartitionOutcome> elect(List<ElectionTarget> targets, ClusterSnapshot validated,
                                        Runnable beforeFirstChange) {
        beforeFirstChange.run();
        Map<TopicPartition, ElectionTarget> byPartition = new LinkedHashMap<>();
        targets.forEach(t -> byPartition.put(t.topicPartition(), t));
        Map<TopicPartition, PartitionOutcome> outcomes = new LinkedHashMap<>();

        // 1. Re-check right before electing: still leaderless, same epoch, designated broker unfenced.
        ClusterSnapshot ready = reader.readOrders(byPartition.keySet());
        Map<TopicPartition, TopicPartitionState> before = new HashMap<>();
        ready.partitions().forEach(p -> before.put(p.topicPartition(), p));
        List<ElectionTarget> toElect = new ArrayList<>();
        for (ElectionTarget t : byPartition.values()) {
            Optional<String> problem = ElectionVerification.notReady(t, ready, false);
            if (problem.isPresent()) {
                outcomes.put(t.topicPartition(), outcome(t, Outcome.REFUSED, problem.get(), before.get(t.topicPartition()),
                        before.get(t.topicPartition())));
            } else {
                toElect.add(t);
            }
        }

        // 2. Elect, a request per batch; every batch is sent before any answer is awaited, and the batches are
        //    spread over the brokers: each broker forwards one request at a time to the controller.
        progress.accept("electing " + toElect.size() + " partition(s) (ElectLeaders v3 with DesignatedLeaders)");
        List<CompletableFuture<Map<TopicPartition, ControllerAnswer>>> sent = new ArrayList<>();
        for (List<ElectionTarget> batch : ControllerCalls.requests(toElect)) {
            sent.add(electBatch(sent.size(), batch));
        }
        Map<TopicPartition, ControllerAnswer> answers = new HashMap<>();
        for (CompletableFuture<Map<TopicPartition, ControllerAnswer>> batch : sent) {
            try {
                answers.putAll(batch.get());
            } catch (ExecutionException e) {
                throw new IllegalStateException("ElectLeaders v3 failed: " + e.getCause().getMessage(), e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted during ElectLeaders", e);
            }
        }

        // 3. Verify. Only partitions the controller accepted are waited for; the others are read once.
        List<TopicPartition> accepted = toElect.stream().map(ElectionTarget::topicPartition)
                .filter(tp -> answers.get(tp).accepted()).toList();
        List<TopicPartition> notAccepted = toElect.stream().map(ElectionTarget::topicPartition)
                .filter(tp -> !answers.get(tp).accepted()).toList();
        Map<TopicPartition, TopicPartitionState> after = new HashMap<>();
        ElectionVerification.Shown shown = new ElectionVerification.Shown(Map.of(), null, Map.of(), List.of());
        if (!accepted.isEmpty()) {
            shown = ElectionVerification.awaitLeaders(reader, accepted, verifyTimeout);
            leadersShownAfter = shown.after();
            metadataLag = shown.lags();
            after.putAll(shown.states());
        }
        if (!notAccepted.isEmpty()) {
            reader.read(java.util.Set.copyOf(notAccepted)).partitions().forEach(p -> after.put(p.topicPartition(), p));
        }
        for (ElectionTarget t : toElect) {
            TopicPartition tp = t.topicPartition();
            outcomes.put(tp, shown.withLag(judge(t, answers.get(tp), after.get(tp), before.get(tp))));
        }
        return byPartition.keySet().stream().map(outcomes::get).toList();
    }

    /** What the controller said about one partition: nothing wrong, a refusal, or no usable answer at all. */
    record ControllerAnswer(boolean accepted, boolean refused, String text) {

        static final ControllerAnswer ACCEPTED = new ControllerAnswer(true, false, null);

        static ControllerAnswer refused(String text) {
            return new ControllerAnswer(false, true, text);
        }

        static ControllerAnswer failed(String text) {
            return new ControllerAnswer(false, false, text);
        }
    }

    /** The outcome of one partition from the controller's answer and the state read afterwards. */
    static PartitionOutcome judge(ElectionTarget t, ControllerAnswer answer, TopicPartitionState now,
                                  TopicPartitionState before) {
        if (answer.accepted() || (now != null && !now.isOffline())) {
            // Accepted, or it got a leader whatever the answer said (an answer lost after the election): verify.
            PartitionOutcome verified = ElectionVerification.verify(t, now, answer.text(), before);
            if (answer.accepted() || verified.outcome() != Outcome.ELECTED) {
                return verified;
            }
            return outcome(t, Outcome.ELECTED, verified.detail() + " (although the request reported: " + answer.text() + ")",
                    before, now);
        }
        if (answer.refused()) {
            return outcome(t, Outcome.REFUSED, "the controller refused the designated election: " + answer.text()
                    + "; nothing changed", before, now);
        }
        return outcome(t, Outcome.FAILED, answer.text() + "; the partition is "
                + (now == null ? "in an unknown state (could not read it)" : "still offline"), before, now);
    }

    /** @param number the batch's number: batch k goes through {@code viaBrokers[k mod n]} first */
    private CompletableFuture<Map<TopicPartition, ControllerAnswer>> electBatch(int number, List<ElectionTarget> batch) {
        Map<String, List<ElectionTarget>> byTopic = new LinkedHashMap<>();
        batch.forEach(t -> byTopic.computeIfAbsent(t.topicPartition().topic(), k -> new ArrayList<>()).add(t));
        List<ElectLeadersRequest.TopicPartitions> topics = new ArrayList<>();
        byTopic.forEach((topic, list) -> topics.add(new ElectLeadersRequest.TopicPartitions(topic,
                list.stream().map(t -> t.topicPartition().partition()).toList(),
                list.stream().map(ElectionTarget::designatedLeader).toList())));
        // UNCLEAN: the designated replica may be outside the ISR and ELR, which is the whole point.
        ElectLeadersRequest request = new ElectLeadersRequest(ElectionType.UNCLEAN, topics,
                (int) CONTROLLER_TIMEOUT.toMillis());
        List<TopicPartition> partitions = batch.stream().map(ElectionTarget::topicPartition).toList();
        return through(number % viaBrokers.size(), 0, request, partitions, new ArrayList<>());
    }

    /**
     * Sends the request through {@code viaBrokers[first]}; without an answer, through the next one, round the list
     * once. Asking twice is harmless: a partition elected the first time is refused the second time and verified
     * anyway.
     *
     * @param tried how many brokers of the list were tried already
     */
    private CompletableFuture<Map<TopicPartition, ControllerAnswer>> through(int first, int tried, ElectLeadersRequest request,
                                                                             List<TopicPartition> partitions,
                                                                             List<String> failures) {
        if (tried == viaBrokers.size()) {
            return CompletableFuture.completedFuture(noAnswer(partitions, failures));
        }
        CompletableFuture<ElectLeadersResponse> answer;
        try {
            answer = exchange.send(viaBrokers.get((first + tried) % viaBrokers.size()), request,
                    CONTROLLER_TIMEOUT.plus(ANSWER_SLACK));
        } catch (RuntimeException e) {
            answer = CompletableFuture.failedFuture(e);
        }
        return answer.thenApply(response -> answers(partitions, response))
                .exceptionallyCompose(error -> {
                    Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
                    failures.add(cause.getMessage() == null ? cause.toString() : cause.getMessage());
                    return cause instanceof BrokerRequestException
                            ? through(first, tried + 1, request, partitions, failures)
                            : CompletableFuture.completedFuture(noAnswer(partitions, failures));
                });
    }

    private static Map<TopicPartition, ControllerAnswer> noAnswer(List<TopicPartition> partitions, List<String> failures) {
        ControllerAnswer failed = ControllerAnswer.failed("ElectLeaders v3 got no answer (" + String.join("; ", failures)
                + "); check the brokers, then run execute again (it re-checks every partition)");
        Map<TopicPartition, ControllerAnswer> result = new HashMap<>();
        partitions.forEach(tp -> result.put(tp, failed));
        return result;
    }

    /** Per partition, what the controller's answer says. */
    static Map<TopicPartition, ControllerAnswer> answers(List<TopicPartition> asked, ElectLeadersResponse response) {
        Map<TopicPartition, ControllerAnswer> result = new HashMap<>();
        if (response.error() != Errors.NONE) {
            ControllerAnswer failed = response.error() == Errors.CLUSTER_AUTHORIZATION_FAILED
                    ? ControllerAnswer.refused("CLUSTER_AUTHORIZATION_FAILED: the tool's principal needs ALTER on the cluster"
                            + " to elect leaders")
                    : ControllerAnswer.failed("ElectLeaders v3 failed as a whole with " + response.error().name() + ": "
                            + response.error().message());
            asked.forEach(tp -> result.put(tp, failed));
            return result;
        }
        for (ElectLeadersResponse.ReplicaElectionResult topic : response.replicaElectionResults()) {
            for (ElectLeadersResponse.PartitionResult partition : topic.partitionResult()) {
                Errors error = partition.error();
                String message = partition.errorMessage() == null || partition.errorMessage().isBlank()
                        ? error.message() : partition.errorMessage();
                result.put(new TopicPartition(topic.topic(), partition.partitionId()), error == Errors.NONE
                        ? ControllerAnswer.ACCEPTED
                        : ControllerAnswer.refused(error.name() + ": " + message));
            }
        }
        for (TopicPartition tp : asked) {
            result.putIfAbsent(tp, ControllerAnswer.failed("the controller's ElectLeaders v3 answer left " + tp + " out"));
        }
        result.keySet().retainAll(asked);
        return result;
    }
}
