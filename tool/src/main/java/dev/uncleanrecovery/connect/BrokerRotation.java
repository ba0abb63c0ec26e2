// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.connect;

import dev.uncleanrecovery.UserInputException;
import dev.uncleanrecovery.support.Pause;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.errors.UnsupportedVersionException;

/**
 * Sends a cluster-wide read (one any broker can answer) to one broker at a time until one answers.
 *
 * <p>During an outage some brokers are down and some hang: a SIGSTOPped or GC-bound broker still
 * accepts TCP connections and never answers. Admin picks a broker at random for each call and waits
 * a whole request timeout on a hung one, each time it picks it. Here a broker that did not answer
 * moves to the back of the order for the rest of the run, so it costs one request timeout, once.
 */
public final class BrokerRotation {

    /** Pause between two rounds in which no broker answered (all refused, say), so a round is not a busy loop. */
    private static final long PAUSE_BETWEEN_ROUNDS_MS = 200;
    /** Rounds in which every address refused the connection before the first contact gives up. */
    private static final int REFUSED_ROUNDS_BEFORE_GIVING_UP = 2;

    private final Duration requestTimeout;
    private final Duration callTimeout;
    private final String bootstrapServers;
    /**
     * Addresses that failed to answer, oldest failure first; tried after all others. By address, so a
     * --bootstrap-server entry that hung is also tried last once DescribeCluster names its broker.
     */
    private final Set<String> unanswering = new LinkedHashSet<>();
    /** The address that answered last: asked first next time, as Admin prefers a connection that is ready. */
    private String preferred;

    /**
     * @param requestTimeout   how long one broker may take to answer
     * @param callTimeout      how long the whole call may take, over all brokers
     * @param bootstrapServers as the user gave them, for the message when nobody answers
     */
    public BrokerRotation(Duration requestTimeout, Duration callTimeout, String bootstrapServers) {
        this.requestTimeout = requestTimeout;
        this.callTimeout = callTimeout;
        this.bootstrapServers = bootstrapServers;
    }

    /**
     * Asks {@code candidates} in order (brokers that failed before last) until one answers.
     *
     * @param what    what the call does, for messages ("describe the cluster")
     * @param request asks one broker, waiting at most the given timeout; throws a
     *                {@link BrokerRequestException} when the broker did not answer, or any other
     *                exception when the answer itself says no (that ends the call)
     * @throws UnsupportedVersionException when a broker supports no version of the request
     * @throws BrokerRequestException      when a broker refused us for good (authentication failed)
     * @throws ClusterUnreachableException when no broker answered within the call timeout
     */
    public <R> R ask(List<BrokerState> candidates, String what, RequestToOne<R> request) {
        return ask(candidates, what, request, false);
    }

    /**
     * {@link #ask}, but the brokers that have answered are asked in the order given, not the one that answered last
     * first: for a request only one of them applies (the controller broker of a ZooKeeper-mode cluster).
     */
    public <R> R askInGivenOrder(List<BrokerState> candidates, String what, RequestToOne<R> request) {
        return ask(candidates, what, request, true);
    }

    private <R> R ask(List<BrokerState> candidates, String what, RequestToOne<R> request, boolean givenOrder) {
        if (candidates.isEmpty()) {
            throw new ClusterUnreachableException("could not " + what + ": no live broker to ask", null);
        }
        long deadline = System.nanoTime() + callTimeout.toNanos();
        BrokerRequestException last = null;
        while (true) {
            for (BrokerState broker : inOrder(candidates, givenOrder)) {
                long remainingMs = remainingMs(deadline);
                if (remainingMs <= 0) {
                    throw noAnswer(what, last);
                }
                try {
                    R answer = request.send(broker, Duration.ofMillis(Math.min(remainingMs, requestTimeout.toMillis())));
                    answered(broker);
                    return answer;
                } catch (BrokerRequestException e) {
                    if (e.getCause() instanceof UnsupportedVersionException unsupported) {
                        throw unsupported;
                    }
                    if (!e.isRetriable()) {
                        throw e;
                    }
                    failed(broker);
                    last = e;
                }
            }
            long remainingMs = remainingMs(deadline);
            if (remainingMs <= 0) {
                throw noAnswer(what, last);
            }
            Pause.millis(Math.min(PAUSE_BETWEEN_ROUNDS_MS, remainingMs), "an answer to " + what);
        }
    }

    /**
     * Sends the request to every candidate at once and returns the first answer: for the first contact,
     * when nothing is known yet about which --bootstrap-server address answers. A candidate that fails
     * later, after another answered, is still tried last from then on.
     *
     * @param request sends to one broker; its future fails with a {@link BrokerRequestException} when
     *                the broker did not answer, or with any other exception when the answer says no
     */
    public <R> R race(List<BrokerState> candidates, String what, AsyncRequestToOne<R> request) {
        if (candidates.isEmpty()) {
            throw new UserInputException("could not " + what + ": no address to ask");
        }
        long deadline = System.nanoTime() + callTimeout.toNanos();
        BrokerRequestException last = null;
        int refusedRounds = 0;
        while (true) {
            long remainingMs = remainingMs(deadline);
            if (remainingMs <= 0) {
                throw noAnswer(what, last);
            }
            Duration timeout = Duration.ofMillis(Math.min(remainingMs, requestTimeout.toMillis()));
            CompletableFuture<R> first = new CompletableFuture<>();
            List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
            List<BrokerState> order = inOrder(candidates);
            AtomicInteger pending = new AtomicInteger(order.size());
            for (BrokerState broker : order) {
                request.send(broker, timeout).whenComplete((answer, error) -> {
                    if (error == null) {
                        synchronized (first) {
                            // Remembered before the caller wakes up, so its next call asks this broker first.
                            if (!first.isDone()) {
                                answered(broker);
                                first.complete(answer);
                            }
                        }
                    } else {
                        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
                        if (cause instanceof BrokerRequestException b && b.isRetriable()) {
                            failed(broker);
                        }
                        failures.add(cause);
                    }
                    if (pending.decrementAndGet() == 0) {
                        first.completeExceptionally(new IllegalStateException("no candidate answered"));
                    }
                });
            }
            try {
                return first.get(remainingMs, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                throw noAnswer(what, last);
            } catch (ExecutionException e) {
                // Every candidate failed this round: a refusal ends the call, silence is asked again.
                List<Throwable> failed = List.copyOf(failures);
                for (Throwable failure : failed) {
                    if (failure instanceof BrokerRequestException b && b.getCause() instanceof UnsupportedVersionException unsupported) {
                        throw unsupported;
                    }
                    if (failure instanceof BrokerRequestException b && b.isRetriable()) {
                        last = b;
                    } else if (failure instanceof RuntimeException runtime) {
                        throw runtime;
                    }
                }
                // Nothing listens at any address: a second round tells a broker that was just restarting from a
                // wrong address, and waiting out the whole timeout would tell nothing more.
                boolean allRefused = !failed.isEmpty() && failed.stream()
                        .allMatch(f -> f instanceof BrokerRequestException b && b.isConnectionRefused());
                refusedRounds = allRefused ? refusedRounds + 1 : 0;
                if (refusedRounds >= REFUSED_ROUNDS_BEFORE_GIVING_UP) {
                    throw new ClusterUnreachableException("could not " + what + ": every --bootstrap-server address refused the"
                            + " connection or closed it before it was set up (" + bootstrapServers + "): is a broker"
                            + " listening there, and is security.protocol in --command-config that listener's?", last);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
            Pause.millis(Math.min(PAUSE_BETWEEN_ROUNDS_MS, Math.max(0, remainingMs(deadline))), "an answer to " + what);
        }
    }

    /** How long one broker may take to answer. */
    public Duration requestTimeout() {
        return requestTimeout;
    }

    /** The candidates that have not failed to answer, in the given order. */
    public synchronized List<BrokerState> answering(List<BrokerState> candidates) {
        return candidates.stream().filter(b -> !unanswering.contains(b.address())).toList();
    }

    private synchronized List<BrokerState> inOrder(List<BrokerState> candidates) {
        return inOrder(candidates, false);
    }

    private synchronized List<BrokerState> inOrder(List<BrokerState> candidates, boolean givenOrder) {
        List<BrokerState> order = new ArrayList<>();
        if (!givenOrder) {
            candidates.stream().filter(b -> b.address().equals(preferred)).findFirst().ifPresent(order::add);
        }
        answering(candidates).stream().filter(b -> !order.contains(b)).forEach(order::add);
        for (String address : unanswering) {
            candidates.stream().filter(b -> b.address().equals(address)).forEach(order::add);
        }
        return order;
    }

    private synchronized void answered(BrokerState broker) {
        unanswering.remove(broker.address());
        preferred = broker.address();
    }

    private synchronized void failed(BrokerState broker) {
        // Re-inserting moves it behind addresses that failed earlier: they may have recovered since.
        unanswering.remove(broker.address());
        unanswering.add(broker.address());
    }

    private ClusterUnreachableException noAnswer(String what, BrokerRequestException last) {
        return ClusterUnreachableException.noAnswer(what, bootstrapServers, callTimeout, last);
    }

    private static long remainingMs(long deadlineNanos) {
        return Duration.ofNanos(deadlineNanos - System.nanoTime()).toMillis();
    }

    /** The answer of one request, or the exception it failed with, unwrapped. */
    public static <R> R await(CompletableFuture<R> future) {
        try {
            return future.get();
        } catch (ExecutionException | CompletionException e) {
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** One attempt at one broker, asynchronous. */
    @FunctionalInterface
    public interface AsyncRequestToOne<R> {
        CompletableFuture<R> send(BrokerState broker, Duration timeout);
    }

    /** One attempt at one broker. */
    @FunctionalInterface
    public interface RequestToOne<R> {
        R send(BrokerState broker, Duration timeout);
    }
}
