// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import dev.uncleanrecovery.cluster.ClusterSnapshot;
import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.support.Pause;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.common.TopicPartition;

/**
 * What both electors check right before an election and verify right after it, so that native and
 * stock elections are judged by the same rule: the designated replica leads at leader epoch + 1.
 */
final class ElectionVerification {

    private ElectionVerification() {
    }

    /**
     * Why the partition must not be elected now, or empty when it is ready: still leaderless, same
     * leader epoch as the plan, designated broker registered and unfenced.
     *
     * @param designatedFirst also require the designated replica to be the first live replica in assignment
     *                        order (the stock elector relies on UNCLEAN taking the first acceptable replica)
     */
    static Optional<String> notReady(ElectionTarget t, ClusterSnapshot ready, boolean designatedFirst) {
        Optional<TopicPartitionState> state = ready.partition(t.topicPartition());
        if (state.isEmpty()) {
            return Optional.of("partition disappeared from the metadata");
        }
        TopicPartitionState p = state.get();
        if (ready.reassigning().contains(t.topicPartition())) {
            return Optional.of("a reassignment this tool did not start is in progress (replicas now " + p.replicas()
                    + "); left alone: finish or cancel it (kafka-reassign-partitions.sh --list), then plan again");
        }
        if (!p.isOffline()) {
            return Optional.of("got a leader before the election (" + p.leader() + ", epoch " + p.leaderEpoch()
                    + "); not touched");
        }
        if (p.leaderEpoch() >= 0 && p.leaderEpoch() != t.expectedLeaderEpoch()) {
            return Optional.of("leader epoch moved to " + p.leaderEpoch() + " (plan " + t.expectedLeaderEpoch() + ")");
        }
        if (!new java.util.HashSet<>(p.replicas()).equals(new java.util.HashSet<>(t.expectedReplicas()))) {
            return Optional.of("replica set changed to " + p.replicas() + " (plan " + t.expectedReplicas()
                    + "): someone else reassigned it; left alone");
        }
        Set<Integer> live = ready.liveBrokers();
        if (!live.contains(t.designatedLeader())) {
            return Optional.of("designated broker " + t.designatedLeader() + " is fenced or gone");
        }
        if (designatedFirst) {
            Optional<Integer> firstLive = p.replicas().stream().filter(live::contains).findFirst();
            if (firstLive.isEmpty() || firstLive.get() != t.designatedLeader()) {
                return Optional.of("designated replica is not the first live replica (replicas " + p.replicas()
                        + "; UNCLEAN would elect " + firstLive.map(String::valueOf).orElse("nobody") + ")");
            }
        }
        return Optional.empty();
    }

    /**
     * True when UNCLEAN over {@code replicas} elects the same broker as over the best-first order, whichever live
     * broker drops out first: the live (registered, unfenced) replicas stand in the same order in both.
     */
    static boolean liveOrderIsBestFirst(ElectionTarget t, List<Integer> replicas, Set<Integer> liveBrokers) {
        List<Integer> live = replicas.stream().filter(liveBrokers::contains).toList();
        List<Integer> liveBestFirst = t.replicasBestFirst().stream().filter(liveBrokers::contains).toList();
        return !live.isEmpty() && live.get(0) == t.designatedLeader() && live.equals(liveBestFirst);
    }

    /** The outcome from the partition as read after the election: ELECTED only for designated leader at epoch + 1. */
    static PartitionOutcome verify(ElectionTarget t, TopicPartitionState now, String electionError,
                                   TopicPartitionState before) {
        if (now == null) {
            return outcome(t, Outcome.FAILED, "could not read the partition after the election", before, null);
        }
        if (now.isOffline()) {
            return outcome(t, Outcome.FAILED, "still offline after the election"
                    + (electionError == null ? "" : ": " + electionError), before, now);
        }
        if (now.leader() != t.designatedLeader()) {
            return outcome(t, Outcome.ELECTED_OTHER, "THE CONTROLLER ELECTED " + now.leader() + ", NOT the designated "
                    + t.designatedLeader() + " (leader epoch " + now.leaderEpoch() + ")", before, now);
        }
        if (now.leaderEpoch() >= 0 && now.leaderEpoch() != t.expectedLeaderEpoch() + 1) {
            return outcome(t, Outcome.ELECTED_OTHER, "designated " + t.designatedLeader() + " leads, but at leader epoch "
                    + now.leaderEpoch() + " instead of " + (t.expectedLeaderEpoch() + 1)
                    + ": another election happened in between", before, now);
        }
        return outcome(t, Outcome.ELECTED, "leader " + now.leader() + ", leader epoch " + t.expectedLeaderEpoch()
                + " -> " + now.leaderEpoch(), before, now);
    }

    /**
     * The partitions after an election as the brokers' metadata shows them.
     *
     * @param states  per partition, the newest state any live broker showed (the highest leader epoch): what the
     *                election is verified against
     * @param after   how long until every live broker showed a leader for every partition; null when some did not by
     *                the timeout
     * @param lagging the live brokers that still showed no leader for some partition at the timeout, and for which
     * @param lags    the same, per broker, as said in the result
     */
    record Shown(Map<TopicPartition, TopicPartitionState> states, Duration after,
                 Map<Integer, Set<TopicPartition>> lagging, List<MetadataLag> lags) {

        /** The outcome, with the brokers that do not show its new leader yet when it was elected. */
        PartitionOutcome withLag(PartitionOutcome verified) {
            if (verified.outcome() != Outcome.ELECTED && verified.outcome() != Outcome.ELECTED_OTHER) {
                return verified;
            }
            List<Integer> behind = lagging.entrySet().stream().filter(e -> e.getValue().contains(verified.topicPartition()))
                    .map(Map.Entry::getKey).sorted().toList();
            return behind.isEmpty() ? verified : verified.withNote("NOT YET SHOWN by the metadata of broker(s) "
                    + behind + " at the verify timeout: clients asking them still see no leader");
        }
    }

    /** How often a broker that answered is asked again for the partitions it still shows without a leader. */
    private static final Duration POLL = Duration.ofMillis(200);

    /**
     * Waits until every live broker's own metadata shows a leader for every elected partition, or the timeout passes:
     * right after a large election one broker learns the new leaders seconds after another, and a client asking it
     * still sees the partition offline. Each broker is asked on its own, only for the partitions it does not show led
     * yet, and again once it has answered; one that does not answer holds up no other. The live brokers are read
     * each round (a broker fenced meanwhile serves no client). Called once every election request is answered.
     */
    static Shown awaitLeaders(PartitionStateReader reader, Collection<TopicPartition> elected, Duration timeout) {
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        Map<TopicPartition, TopicPartitionState> newest = new HashMap<>();
        Map<Integer, Set<TopicPartition>> waiting = new TreeMap<>();
        Map<Integer, CompletableFuture<List<TopicPartitionState>>> asking = new HashMap<>();
        Map<Integer, String> lastError = new HashMap<>();
        while (true) {
            Set<Integer> live = new TreeSet<>(reader.liveBrokers());
            if (live.isEmpty()) {
                // no broker to ask: what the cluster says is all there is, and nobody is shown to see it
                reader.read(Set.copyOf(elected)).partitions().forEach(p -> newest.put(p.topicPartition(), p));
                return new Shown(newest, null, Map.of(), List.of());
            }
            for (int broker : live) {
                Set<TopicPartition> left = waiting.computeIfAbsent(broker, b -> new HashSet<>(elected));
                if (!left.isEmpty() && !asking.containsKey(broker)) {
                    asking.put(broker, reader.readOn(broker, Set.copyOf(left)));
                }
            }
            long pollUntil = Math.min(deadline, System.nanoTime() + POLL.toNanos());
            awaitAll(asking.values(), pollUntil);
            boolean everyAnswered = true;
            for (var each : new ArrayList<>(asking.entrySet())) {
                CompletableFuture<List<TopicPartitionState>> answer = each.getValue();
                if (!answer.isDone()) {
                    everyAnswered = false;
                    continue;
                }
                int broker = each.getKey();
                asking.remove(broker);
                try {
                    for (TopicPartitionState p : answer.join()) {
                        newest.merge(p.topicPartition(), p, (known, other) ->
                                other.leaderEpoch() > known.leaderEpoch() ? other : known);
                        if (!p.isOffline()) {
                            waiting.get(broker).remove(p.topicPartition());
                        }
                    }
                    lastError.remove(broker);
                } catch (CompletionException | CancellationException e) {
                    lastError.put(broker, String.valueOf(e.getCause() == null ? e : e.getCause()));
                }
            }
            long now = System.nanoTime();
            if (live.stream().allMatch(b -> waiting.get(b).isEmpty())) {
                return new Shown(newest, Duration.ofNanos(now - start), Map.of(), List.of());
            }
            if (now >= deadline) {
                Map<Integer, Set<TopicPartition>> lagging = new TreeMap<>();
                List<MetadataLag> lags = new ArrayList<>();
                for (int broker : live) {
                    Set<TopicPartition> left = waiting.get(broker);
                    if (!left.isEmpty()) {
                        lagging.put(broker, Set.copyOf(left));
                        String error = asking.containsKey(broker) ? "no answer yet to the read sent "
                                + "while waiting" : lastError.get(broker);
                        lags.add(new MetadataLag(broker, left.size(), elected.size(), Duration.ofNanos(now - start),
                                error));
                    }
                }
                return new Shown(newest, null, lagging, lags);
            }
            if (everyAnswered) {
                Pause.millis(Math.max(1, Math.min(POLL.toMillis(), (deadline - now) / 1_000_000)), "the elected leaders");
            }
        }
    }

    /** Waits for the reads until {@code untilNanos}; those not done by then are looked at again in the next round. */
    private static void awaitAll(Collection<CompletableFuture<List<TopicPartitionState>>> reads, long untilNanos) {
        try {
            CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new))
                    .get(Math.max(0, untilNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException | ExecutionException e) {
            // a broker still to answer, or one that failed: each read is judged on its own
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the elected leaders", e);
        }
    }

    static PartitionOutcome outcome(ElectionTarget t, Outcome outcome, String detail,
                                    TopicPartitionState before, TopicPartitionState after) {
        return new PartitionOutcome(t.topicPartition(), t.designatedLeader(), outcome, detail, before, after);
    }
}
