// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.probe;

import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.connect.BrokerConnections;
import dev.uncleanrecovery.evidence.BatchHead;
import dev.uncleanrecovery.support.Futures;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;

/**
 * The reads of single partitions' logs that follow the probe — a replica's {@code endOffsetFor(E)} for
 * {@link TruncationPoints} ({@link EpochEndFetch}) and the headers of its batches from an offset
 * ({@link LeadingBatches}) — gathered from every partition asked about and sent to each broker as the probe sends its
 * own: one Fetch carries up to {@value ProbeSettings#MAX_PARTITIONS_PER_REQUEST} partitions, so a broker gets a few
 * Fetches per thousand partitions instead of one per partition.
 *
 * <p>They go in rounds. A read is queued when asked; {@link #settle} sends every queued read and, once the round's
 * answers are in, completes their futures on its own thread: a look-up that leads to another (the follower's next
 * epoch, its batches where it cuts) queues it before the next round goes out. It stops when nothing is queued.
 */
public final class BrokerLookUps {

    private final BrokerConnections connections;
    private final Duration requestTimeout;
    private final int maxPartitionsPerRequest;
    /** Asked since the last round went out; guarded by {@code this}. */
    private final List<EpochEndFetch.Read> epochReads = new ArrayList<>();
    private final List<LeadingBatches.Read> batchReads = new ArrayList<>();
    /** Reads a response had no room for: first in the next round, so each request's first one is answered whole. */
    private final List<LeadingBatches.Read> batchReadsAgain = new ArrayList<>();

    /** @param requestTimeout how long one Fetch may wait for its answer */
    public BrokerLookUps(BrokerConnections connections, Duration requestTimeout) {
        this(connections, requestTimeout, ProbeSettings.MAX_PARTITIONS_PER_REQUEST);
    }

    BrokerLookUps(BrokerConnections connections, Duration requestTimeout, int maxPartitionsPerRequest) {
        this.connections = connections;
        this.requestTimeout = requestTimeout;
        this.maxPartitionsPerRequest = maxPartitionsPerRequest;
    }

    /**
     * {@code broker}'s {@code endOffsetFor(epoch)} for the partition, answered in the next round {@link #settle} sends:
     * the floor entry of the epoch in its cache and where that entry ends (its log end for its latest); empty when the
     * epoch is above its latest.
     */
    public CompletableFuture<Optional<TruncationPoints.EpochEnd>> endOffsetFor(TopicPartitionState partition,
                                                                              int broker, int epoch) {
        EpochEndFetch.Read read = new EpochEndFetch.Read(PartitionToProbe.of(partition), broker, epoch,
                new CompletableFuture<>());
        synchronized (this) {
            epochReads.add(read);
        }
        return read.answer();
    }

    /**
     * The headers of the batches {@code broker}'s replica of the partition holds from the one holding {@code offset},
     * as far as {@value LeadingBatches#MAX_BYTES} bytes of them go, answered in a round {@link #settle} sends; empty
     * when it holds nothing there.
     */
    public CompletableFuture<List<BatchHead>> batchesFrom(TopicPartitionState partition, int broker, long offset) {
        LeadingBatches.Read read = new LeadingBatches.Read(PartitionToProbe.of(partition), broker, offset,
                new CompletableFuture<>());
        synchronized (this) {
            batchReads.add(read);
        }
        return read.answer();
    }

    /**
     * Sends what is queued, round after round, until nothing is; a read not answered within {@code timeout} (or whose
     * Fetch failed) fails, and its caller keeps what it knew without it.
     */
    public void settle(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            List<EpochEndFetch.Read> epochs;
            List<LeadingBatches.Read> batches;
            synchronized (this) {
                epochs = new ArrayList<>(epochReads);
                batches = new ArrayList<>(batchReadsAgain);
                batches.addAll(batchReads);
                epochReads.clear();
                batchReadsAgain.clear();
                batchReads.clear();
            }
            if (epochs.isEmpty() && batches.isEmpty()) {
                return;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                TimeoutException late = new TimeoutException("not asked: the look-ups' " + timeout.toMillis()
                        + " ms were up");
                epochs.forEach(read -> read.answer().completeExceptionally(late));
                batches.forEach(read -> read.answer().completeExceptionally(late));
                continue; // what a failed read leads to (the caller's fallback) fails the same way next turn
            }
            AtomicBoolean over = new AtomicBoolean();
            List<Sent> round = new ArrayList<>();
            sendEpochReads(epochs, round);
            sendBatchReads(batches, round, over);
            Futures.awaitAll(round.stream().map(Sent::answered).toList(), Duration.ofNanos(left));
            over.set(true); // a broker's later requests of this round, not sent yet, are not sent at all
            for (Sent sent : round) {
                CompletableFuture<Answered> answered = sent.answered();
                if (answered.isDone() && !answered.isCompletedExceptionally()) {
                    Answered a = answered.join();
                    synchronized (this) {
                        batchReadsAgain.addAll(a.askAgain());
                    }
                    a.complete().run();
                } else {
                    sent.failEach().accept(answered.isDone() ? cause(answered)
                            : new TimeoutException("no answer within the look-ups' " + timeout.toMillis() + " ms"));
                }
            }
        }
    }

    /** What one Fetch answered: the reads it settled (completed on the settling thread), and those to ask again. */
    record Answered(Runnable complete, List<LeadingBatches.Read> askAgain) {

        static Answered settling(Runnable complete) {
            return new Answered(complete, List.of());
        }
    }

    /** One request of a round: its answer, and how to fail every read it carries. */
    private record Sent(CompletableFuture<Answered> answered, Consumer<Throwable> failEach) {
    }

    private void sendEpochReads(List<EpochEndFetch.Read> reads, List<Sent> round) {
        byBroker(reads, EpochEndFetch.Read::broker).forEach((broker, ofBroker) -> {
            List<EpochEndFetch.Read> distinct = distinct(ofBroker,
                    r -> List.of(r.partition().topicPartition(), r.epoch()),
                    (first, same) -> forward(first.answer(), same.answer()));
            for (List<EpochEndFetch.Read> request : requests(distinct, r -> r.partition().topicPartition())) {
                round.add(new Sent(EpochEndFetch.send(connections, broker, request, requestTimeout),
                        failure -> request.forEach(r -> r.answer().completeExceptionally(failure))));
            }
        });
    }

    /**
     * A broker's batch reads go one request after the other: an answer can hold megabytes of records, and a broker
     * serves the requests of one connection in turn anyway.
     */
    private void sendBatchReads(List<LeadingBatches.Read> reads, List<Sent> round, AtomicBoolean over) {
        byBroker(reads, LeadingBatches.Read::broker).forEach((broker, ofBroker) -> {
            List<LeadingBatches.Read> distinct = distinct(ofBroker,
                    r -> List.of(r.partition().topicPartition(), r.offset()),
                    (first, same) -> forward(first.answer(), same.answer()));
            CompletableFuture<?> previous = CompletableFuture.completedFuture(null);
            for (List<LeadingBatches.Read> request : requests(distinct, r -> r.partition().topicPartition())) {
                CompletableFuture<Answered> answered = previous.handle((ignored, failure) -> null)
                        .thenCompose(ignored -> over.get()
                                ? CompletableFuture.failedFuture(new TimeoutException("not sent: the round was over"))
                                : LeadingBatches.send(connections, broker, request, requestTimeout));
                round.add(new Sent(answered,
                        failure -> request.forEach(r -> r.answer().completeExceptionally(failure))));
                previous = answered;
            }
        });
    }

    private static <R> Map<Integer, List<R>> byBroker(List<R> reads, Function<R, Integer> broker) {
        Map<Integer, List<R>> byBroker = new LinkedHashMap<>();
        reads.forEach(r -> byBroker.computeIfAbsent(broker.apply(r), b -> new ArrayList<>()).add(r));
        return byBroker;
    }

    /** The reads with one of each key, in order; {@code same} is told each later read of a key already there. */
    private static <R> List<R> distinct(List<R> reads, Function<R, Object> key, SameRead<R> same) {
        Map<Object, R> first = new LinkedHashMap<>();
        for (R read : reads) {
            R earlier = first.putIfAbsent(key.apply(read), read);
            if (earlier != null) {
                same.of(earlier, read);
            }
        }
        return new ArrayList<>(first.values());
    }

    @FunctionalInterface
    private interface SameRead<R> {
        void of(R first, R same);
    }

    /**
     * The reads of one broker as requests: a partition at most once a request (a Fetch names each partition once), at
     * most {@code maxPartitionsPerRequest} each, in the order asked.
     */
    private <R> List<List<R>> requests(List<R> reads, Function<R, TopicPartition> partition) {
        List<List<R>> layers = new ArrayList<>();
        Map<TopicPartition, Integer> seen = new HashMap<>();
        for (R read : reads) {
            int layer = seen.merge(partition.apply(read), 1, Integer::sum) - 1;
            if (layer == layers.size()) {
                layers.add(new ArrayList<>());
            }
            layers.get(layer).add(read);
        }
        List<List<R>> requests = new ArrayList<>();
        for (List<R> layer : layers) {
            for (int from = 0; from < layer.size(); from += maxPartitionsPerRequest) {
                requests.add(layer.subList(from, Math.min(layer.size(), from + maxPartitionsPerRequest)));
            }
        }
        return requests;
    }

    private static <T> void forward(CompletableFuture<T> from, CompletableFuture<T> to) {
        from.whenComplete((value, failure) -> {
            if (failure != null) {
                to.completeExceptionally(failure);
            } else {
                to.complete(value);
            }
        });
    }

    private static Throwable cause(CompletableFuture<?> failed) {
        try {
            failed.join();
            throw new IllegalStateException("not failed");
        } catch (CompletionException e) {
            return e.getCause() == null ? e : e.getCause();
        } catch (java.util.concurrent.CancellationException e) {
            return e;
        }
    }
}
