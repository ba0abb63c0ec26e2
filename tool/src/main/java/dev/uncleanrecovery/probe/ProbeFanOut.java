// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.probe;

import dev.uncleanrecovery.connect.BrokerRequestException;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.evidence.ReplicaEvidence;
import dev.uncleanrecovery.support.Durations;
import dev.uncleanrecovery.support.PartitionMap;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import java.util.random.RandomGenerator;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one fan-out engine: asks every broker about its replicas, all brokers in parallel, until
 * every replica is known or the deadline passes. Whatever the evidence source (stock RPCs or
 * GetReplicaLogInfo), the scheduling is this class:
 *
 * <ul>
 *   <li>at most {@link ProbeSettings#maxPartitionsPerRequest()} partitions per batch and
 *       {@link ProbeSettings#maxInFlightBatchesPerBroker()} batches in flight per broker;</li>
 *   <li>a broker that fails (connection, timeout) is asked again after an exponential backoff with
 *       jitter, for the partitions still missing only; a broker that can never answer
 *       (authentication, not registered) is given up at once;</li>
 *   <li>a partition with a retriable error is asked again up to
 *       {@link ProbeSettings#maxAttemptsPerPartition()} times, then its error is final;</li>
 *   <li>at the deadline every replica not yet known is UNREACHABLE, with the broker's last error.</li>
 * </ul>
 *
 * All scheduling state lives on one thread per run; sources complete their futures on any thread.
 */
public final class ProbeFanOut {

    private static final Logger LOG = LoggerFactory.getLogger(ProbeFanOut.class);

    /**
     * A retry that would start this close to the deadline cannot finish a round trip; it would only
     * replace the broker's real last error (say, connection refused) by a timeout.
     */
    private static final long LAST_USEFUL_RETRY_MS = 100;

    private final ReplicaLogInfoSource source;
    private final ProbeSettings settings;
    private final IntFunction<String> describeBroker;
    private final RandomGenerator random;

    /**
     * @param describeBroker names a broker in messages, e.g. {@code BrokerConnections::describe}
     */
    public ProbeFanOut(ReplicaLogInfoSource source, ProbeSettings settings, IntFunction<String> describeBroker) {
        this(source, settings, describeBroker, RandomGenerator.getDefault());
    }

    ProbeFanOut(ReplicaLogInfoSource source, ProbeSettings settings, IntFunction<String> describeBroker,
                RandomGenerator random) {
        this.source = Objects.requireNonNull(source);
        this.settings = Objects.requireNonNull(settings);
        this.describeBroker = Objects.requireNonNull(describeBroker);
        this.random = random;
    }

    /**
     * Probes and waits. Returns by the deadline (plus scheduling slack) at the latest.
     *
     * @param partitionsByBroker per broker, the partitions whose replica on that broker to probe
     * @param progress           called on the engine thread after each change; must be quick
     */
    public ProbeResult run(Map<Integer, List<PartitionToProbe>> partitionsByBroker, Consumer<ProbeProgress> progress) {
        return run(partitionsByBroker, Map.of(), progress);
    }

    /**
     * @param fencedBrokers brokers the controller has fenced, with the time each may take: a fenced broker serves
     *                      no request until it is unfenced, so it gets less than the run's timeout, and a refused
     *                      connection settles it at once (nothing listens there, and a broker that starts now is
     *                      not unfenced for many seconds). Their unanswered replicas become UNREACHABLE, so the
     *                      run ends as soon as the rest is known
     */
    public ProbeResult run(Map<Integer, List<PartitionToProbe>> partitionsByBroker, Map<Integer, Duration> fencedBrokers,
                           Consumer<ProbeProgress> progress) {
        try {
            return start(partitionsByBroker, fencedBrokers, progress).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while probing replicas", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("the probe failed: " + e.getCause().getMessage(), e.getCause());
        }
    }

    public CompletableFuture<ProbeResult> start(Map<Integer, List<PartitionToProbe>> partitionsByBroker,
                                                Consumer<ProbeProgress> progress) {
        return start(partitionsByBroker, Map.of(), progress);
    }

    public CompletableFuture<ProbeResult> start(Map<Integer, List<PartitionToProbe>> partitionsByBroker,
                                                Map<Integer, Duration> fencedBrokers, Consumer<ProbeProgress> progress) {
        try {
            // First: the round trips it starts overlap with setting up the run and building the first batches.
            source.prepare(partitionsByBroker.entrySet().stream().filter(e -> !e.getValue().isEmpty())
                    .map(Map.Entry::getKey).toList(), settings.requestTimeout());
        } catch (RuntimeException e) {
            LOG.debug("preparing the source failed; the batches ask again", e);
        }
        Run run = new Run(partitionsByBroker, progress == null ? p -> { } : progress);
        fencedBrokers.forEach((brokerId, timeout) -> {
            BrokerRun broker = run.brokers.get(brokerId);
            if (broker != null) {
                broker.fenced = true;
                if (timeout.compareTo(settings.timeout()) < 0) {
                    broker.timeout = timeout;
                    broker.deadlineNanos = run.startNanos + timeout.toNanos();
                }
            }
        });
        run.begin();
        return run.result;
    }

    /** Scheduling state of one fan-out. Every field is touched on the run's single thread only. */
    private final class Run {
        final ScheduledThreadPoolExecutor thread;
        final Executor onThread;
        final long startNanos = System.nanoTime();
        final long deadlineNanos = startNanos + settings.timeout().toNanos();
        final Map<Integer, BrokerRun> brokers = new TreeMap<>();
        /** Every partition's evidence, in the order the callers listed them: nearly sorted, so it sorts fast. */
        final List<PartitionEvidence> firstSeen;
        /** {@link #firstSeen} in topic/partition order, sorted once while the first answers are on their way. */
        PartitionMap<PartitionEvidence> ordered;
        final RequestCounts requests = new RequestCounts();
        final CompletableFuture<ProbeResult> result = new CompletableFuture<>();
        final Consumer<ProbeProgress> progress;
        ScheduledFuture<?> deadlineTask;
        int replicasTotal;
        int replicasSettled;
        int replicasKnown;
        int partitionsKnown;
        boolean finished;

        Run(Map<Integer, List<PartitionToProbe>> partitionsByBroker, Consumer<ProbeProgress> progress) {
            this.progress = progress;
            this.thread = new ScheduledThreadPoolExecutor(1, r -> {
                Thread t = new Thread(r, "unclean-recovery-probe");
                t.setDaemon(true);
                return t;
            });
            this.thread.setRemoveOnCancelPolicy(true);
            // A late answer after the run ended must not throw on the thread that delivers it
            // (a network I/O thread), so rejected work is dropped quietly.
            this.onThread = task -> {
                try {
                    thread.execute(task);
                } catch (RejectedExecutionException e) {
                    LOG.debug("dropping work that arrived after the probe ended");
                }
            };
            // Sized once (a partition per replica at most): rehashing 100,000 entries again and again costs.
            int replicas = partitionsByBroker.values().stream().mapToInt(List::size).sum();
            // Only to find a partition listed under several brokers: each replica then goes straight to its evidence.
            Map<PartitionMap.Key, PartitionEvidence> evidence = new HashMap<>(Math.max(16, replicas));
            this.firstSeen = new ArrayList<>(replicas);
            partitionsByBroker.forEach((brokerId, partitions) -> {
                BrokerRun broker = new BrokerRun(brokerId, partitions.size());
                for (PartitionToProbe p : partitions) {
                    if (!broker.unsettled.containsKey(p.topicPartition())) {
                        PartitionEvidence partition = evidence.computeIfAbsent(PartitionMap.Key.of(p.topicPartition()), k -> {
                            PartitionEvidence first = new PartitionEvidence(p.topicPartition());
                            firstSeen.add(first);
                            return first;
                        });
                        partition.replicas++;
                        broker.unsettled.put(p.topicPartition(), new Unsettled(p, partition));
                        broker.ready.add(p);
                        replicasTotal++;
                    }
                }
                broker.replicas = broker.unsettled.size();
                if (!broker.unsettled.isEmpty()) {
                    brokers.put(brokerId, broker);
                }
            });
        }

        void begin() {
            onThread.execute(() -> {
                deadlineTask = thread.schedule(this::expire, Math.max(0, deadlineNanos - System.nanoTime()),
                        TimeUnit.NANOSECONDS);
                for (BrokerRun broker : brokers.values()) {
                    if (broker.deadlineNanos != 0) {
                        Runnable expireBroker = () -> expireBroker(broker);
                        thread.schedule(expireBroker, Math.max(0, broker.deadlineNanos - System.nanoTime()),
                                TimeUnit.NANOSECONDS);
                    }
                }
                reportProgress();
                brokers.values().forEach(this::pump);
                finishIfComplete();
                // While the first answers are on their way: the result's partition order, so that the end of the
                // run only fills it in.
                onThread.execute(this::orderEvidence);
            });
        }

        /** Hands the broker as many batches as its in-flight limit allows. */
        void pump(BrokerRun broker) {
            while (!finished && broker.inFlight < settings.maxInFlightBatchesPerBroker() && !broker.ready.isEmpty()) {
                List<PartitionToProbe> batch = new ArrayList<>();
                Set<TopicPartition> inBatch = new HashSet<>();
                while (batch.size() < settings.maxPartitionsPerRequest() && !broker.ready.isEmpty()) {
                    PartitionToProbe p = broker.ready.poll();
                    if (broker.unsettled.containsKey(p.topicPartition()) && inBatch.add(p.topicPartition())) {
                        batch.add(p);
                    }
                }
                if (batch.isEmpty()) {
                    return;
                }
                broker.inFlight++;
                CompletableFuture<ProbeBatchAnswer> answer;
                try {
                    answer = source.probe(new ProbeBatch(broker.id, batch, deadlineOf(broker), settings.requestTimeout(), requests));
                } catch (RuntimeException e) {
                    answer = CompletableFuture.failedFuture(e);
                }
                answer.whenCompleteAsync((a, error) -> onAnswer(broker, batch, a, error), onThread);
            }
        }

        void onAnswer(BrokerRun broker, List<PartitionToProbe> batch, ProbeBatchAnswer answer, Throwable error) {
            if (finished) {
                return;
            }
            broker.inFlight--;
            if (error != null) {
                onBrokerFailure(broker, batch, unwrap(error));
            } else {
                onBrokerAnswer(broker, batch, answer);
            }
            pump(broker);
            reportProgress();
            finishIfComplete();
        }

        void onBrokerFailure(BrokerRun broker, List<PartitionToProbe> batch, Throwable cause) {
            broker.lastError = cause.getMessage() == null ? cause.toString() : cause.getMessage();
            boolean fencedAndDown = broker.fenced && cause instanceof BrokerRequestException refused
                    && refused.isConnectionRefused();
            if (fencedAndDown) {
                broker.lastError = broker.lastError + " (fenced by the controller and not listening: not waiting for it)";
            }
            if (fencedAndDown || cause instanceof BrokerRequestException failure && !failure.isRetriable()) {
                // Asking again cannot help (authentication, unregistered broker, no usable version, fenced and down).
                broker.givenUpBecause = broker.lastError;
                for (PartitionToProbe p : broker.unsettledPartitions()) {
                    settle(broker, p.topicPartition(), ReplicaEvidence.failed(p.topicPartition(), broker.id,
                            source.kindFor(broker.id), EvidenceStatus.UNREACHABLE, broker.lastError, Instant.now()));
                }
                return;
            }
            broker.consecutiveFailures++;
            LOG.debug("{} failed (attempt {}): {}", describeBroker.apply(broker.id), broker.consecutiveFailures,
                    broker.lastError);
            askAgainLater(broker, batch, backoffMs(broker.consecutiveFailures));
        }

        void onBrokerAnswer(BrokerRun broker, List<PartitionToProbe> batch, ProbeBatchAnswer answer) {
            broker.consecutiveFailures = 0;
            List<PartitionToProbe> retry = new ArrayList<>();
            List<PartitionToProbe> unanswered = new ArrayList<>();
            int highestAttempt = 0;
            for (PartitionToProbe p : batch) {
                TopicPartition tp = p.topicPartition();
                if (!broker.unsettled.containsKey(tp)) {
                    continue;
                }
                ReplicaEvidence settled = answer.settled().get(tp);
                ProbeBatchAnswer.PartitionRetry again = answer.retry().get(tp);
                if (settled != null) {
                    settle(broker, tp, settled);
                } else if (again != null) {
                    int attempts = broker.attempts.merge(tp, 1, Integer::sum);
                    broker.lastRetry.put(tp, again);
                    broker.lastError = again.reason();
                    if (attempts >= settings.maxAttemptsPerPartition()) {
                        settle(broker, tp, again.ifRetriesRunOut() != null ? again.ifRetriesRunOut()
                                : ReplicaEvidence.failed(tp, broker.id, source.kindFor(broker.id), EvidenceStatus.ERROR,
                                        again.reason() + " (still so after " + attempts + " attempts)", Instant.now()));
                    } else {
                        retry.add(p);
                        highestAttempt = Math.max(highestAttempt, attempts);
                    }
                } else {
                    unanswered.add(p);
                }
            }
            if (!retry.isEmpty()) {
                askAgainLater(broker, retry, backoffMs(highestAttempt));
            }
            if (!unanswered.isEmpty()) {
                if (unanswered.size() < batch.size()) {
                    // A paged answer: the rest is asked at once, ahead of the queue, in the same order.
                    for (int i = unanswered.size() - 1; i >= 0; i--) {
                        broker.ready.addFirst(unanswered.get(i));
                    }
                } else {
                    // An answer that answered nothing would otherwise be asked again in a tight loop.
                    broker.consecutiveFailures++;
                    broker.lastError = describeBroker.apply(broker.id) + " answered none of the " + batch.size()
                            + " partitions it was asked about";
                    askAgainLater(broker, unanswered, backoffMs(broker.consecutiveFailures));
                }
            }
        }

        long deadlineOf(BrokerRun broker) {
            return broker.deadlineNanos != 0 ? broker.deadlineNanos : deadlineNanos;
        }

        /** A broker's own, shorter deadline passed: what it has not answered is UNREACHABLE. */
        void expireBroker(BrokerRun broker) {
            if (finished) {
                return;
            }
            timeOut(broker);
            reportProgress();
            finishIfComplete();
        }

        void askAgainLater(BrokerRun broker, List<PartitionToProbe> partitions, long delayMs) {
            long leftMs = (deadlineOf(broker) - System.nanoTime()) / 1_000_000;
            if (delayMs > leftMs - LAST_USEFUL_RETRY_MS) {
                return; // the deadline settles them, with the last error seen
            }
            thread.schedule(() -> {
                if (finished) {
                    return;
                }
                for (PartitionToProbe p : partitions) {
                    if (broker.unsettled.containsKey(p.topicPartition())) {
                        broker.ready.add(p);
                    }
                }
                pump(broker);
            }, delayMs, TimeUnit.MILLISECONDS);
        }

        long backoffMs(int failures) {
            double base = settings.initialBackoff().toMillis() * Math.pow(2, Math.max(0, failures - 1));
            double capped = Math.min(base, settings.maxBackoff().toMillis());
            double factor = 1 + settings.jitter() * (2 * random.nextDouble() - 1);
            return Math.max(0, Math.round(capped * factor));
        }

        void settle(BrokerRun broker, TopicPartition tp, ReplicaEvidence replicaEvidence) {
            Unsettled unsettled = broker.unsettled.remove(tp);
            if (unsettled == null) {
                return;
            }
            PartitionEvidence partition = unsettled.evidence();
            partition.byBroker.add(replicaEvidence);
            replicasSettled++;
            if (replicaEvidence.status() == EvidenceStatus.UNREACHABLE) {
                broker.replicasUnknown++;
            } else {
                replicasKnown++;
            }
            if (partition.byBroker.size() == partition.replicas) {
                partitionsKnown++;
            }
        }

        /** The broker's deadline passed: what it has not answered is UNREACHABLE, and the broker did not answer in time. */
        void timeOut(BrokerRun broker) {
            if (broker.unsettled.isEmpty()) {
                return;
            }
            broker.timedOut = true;
            broker.givenUpBecause = notInTime(broker, broker.lastError);
            for (PartitionToProbe p : broker.unsettledPartitions()) {
                settle(broker, p.topicPartition(), unknownAtDeadline(broker, p));
            }
        }

        ReplicaEvidence unknownAtDeadline(BrokerRun broker, PartitionToProbe p) {
            ProbeBatchAnswer.PartitionRetry retry = broker.lastRetry.get(p.topicPartition());
            if (retry != null && retry.ifRetriesRunOut() != null) {
                return retry.ifRetriesRunOut();
            }
            String why = retry != null ? notInTime(broker, retry.reason()) : broker.givenUpBecause;
            return ReplicaEvidence.failed(p.topicPartition(), broker.id, source.kindFor(broker.id), EvidenceStatus.UNREACHABLE,
                    why, Instant.now());
        }

        /**
         * "broker 2 (127.0.0.1:9093) did not answer ListOffsets within 3 s" when the last request timed out with the
         * deadline (it already says what and how long), else the deadline and the last error seen.
         */
        String notInTime(BrokerRun broker, String last) {
            String who = describeBroker.apply(broker.id);
            String within = "within " + Durations.human(broker.timeout != null ? broker.timeout : settings.timeout());
            if (last != null && last.startsWith(who + " ")) {
                last = last.substring(who.length() + 1);
            }
            if (last == null) {
                return who + " did not answer " + within + ": no answer yet (still connecting or waiting for the broker)";
            }
            if (last.startsWith("did not answer ") && last.endsWith(" " + within)) {
                return who + " " + last;
            }
            return who + " did not answer " + within + ": " + last;
        }

        void expire() {
            if (finished) {
                return;
            }
            for (BrokerRun broker : brokers.values()) {
                timeOut(broker);
            }
            reportProgress();
            finish();
        }

        void finishIfComplete() {
            if (!finished && replicasSettled == replicasTotal) {
                finish();
            }
        }

        void finish() {
            finished = true;
            if (deadlineTask != null) {
                deadlineTask.cancel(false);
            }
            orderEvidence();
            PartitionMap<List<ReplicaEvidence>> out = ordered.mapValues(e -> {
                if (e.byBroker.size() > 1) {
                    e.byBroker.sort(Comparator.comparingInt(ReplicaEvidence::broker));
                }
                return List.copyOf(e.byBroker);
            });
            result.complete(new ProbeResult(out, requests.copy(), Duration.ofNanos(System.nanoTime() - startNanos),
                    unansweredBrokers()));
            thread.shutdownNow();
        }

        /** Sorts the partitions once into the result's order; the evidence objects fill up in place. */
        void orderEvidence() {
            if (ordered == null) {
                PartitionMap.Builder<PartitionEvidence> builder = new PartitionMap.Builder<>(firstSeen.size());
                firstSeen.forEach(e -> builder.put(e.topicPartition, e));
                ordered = builder.build();
            }
        }

        /** Brokers with UNREACHABLE replicas, in broker id order (the map is sorted). */
        List<UnansweredBroker> unansweredBrokers() {
            List<UnansweredBroker> unanswered = new ArrayList<>();
            for (BrokerRun b : brokers.values()) {
                if (b.replicasUnknown > 0) {
                    unanswered.add(new UnansweredBroker(b.id, describeBroker.apply(b.id),
                            b.givenUpBecause != null ? b.givenUpBecause : describeBroker.apply(b.id) + " did not answer",
                            b.timedOut, b.replicasUnknown, b.replicas));
                }
            }
            return unanswered;
        }

        void reportProgress() {
            // Answered means answered in time: a broker whose replicas were all given up is settled, not answered.
            int brokersAnswered = (int) brokers.values().stream()
                    .filter(b -> b.unsettled.isEmpty() && b.replicasUnknown == 0).count();
            try {
                progress.accept(new ProbeProgress(brokersAnswered, brokers.size(), replicasKnown, replicasSettled,
                        replicasTotal, partitionsKnown, firstSeen.size(), Duration.ofNanos(System.nanoTime() - startNanos),
                        unansweredBrokers()));
            } catch (RuntimeException e) {
                LOG.debug("progress callback failed", e);
            }
        }
    }

    private static Throwable unwrap(Throwable error) {
        Throwable cause = error;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    /** What the brokers said about one partition so far, and how many of its replicas are asked. */
    private static final class PartitionEvidence {
        final TopicPartition topicPartition;
        /** At most one per broker (a replica is settled once); sorted by broker id when the run ends. */
        final List<ReplicaEvidence> byBroker = new ArrayList<>(3);
        int replicas;

        PartitionEvidence(TopicPartition topicPartition) {
            this.topicPartition = topicPartition;
        }
    }

    /** A replica not known yet, and where its evidence goes (no run-wide lookup per answer). */
    private record Unsettled(PartitionToProbe partition, PartitionEvidence evidence) {
    }

    /** One broker's part of a run. */
    private static final class BrokerRun {
        final int id;
        final ArrayDeque<PartitionToProbe> ready = new ArrayDeque<>();
        final Map<TopicPartition, Unsettled> unsettled;
        final Map<TopicPartition, Integer> attempts = new HashMap<>();
        final Map<TopicPartition, ProbeBatchAnswer.PartitionRetry> lastRetry = new HashMap<>();
        int inFlight;
        int consecutiveFailures;
        String lastError;
        /** Fenced by the controller: a refused connection settles it at once. */
        boolean fenced;
        /** Set when this broker has a shorter deadline than the run's; 0 / null otherwise. */
        long deadlineNanos;
        Duration timeout;
        /** Replicas asked, and those left UNREACHABLE (given up or not answered by the deadline). */
        int replicas;
        int replicasUnknown;
        /** Why its replicas were given up, naming the broker; set when that happens. */
        String givenUpBecause;
        boolean timedOut;

        BrokerRun(int id, int partitions) {
            this.id = id;
            this.unsettled = new LinkedHashMap<>(Math.max(16, partitions * 4 / 3));
        }

        /** A copy: settling removes from {@link #unsettled}. */
        List<PartitionToProbe> unsettledPartitions() {
            return unsettled.values().stream().map(Unsettled::partition).toList();
        }
    }
}
