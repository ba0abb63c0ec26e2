// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import dev.uncleanrecovery.cluster.ClusterSnapshot;
import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.support.Pause;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
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
     * The partitions as last read after an election, and how long the brokers' metadata took to show a leader for all
     * of them (null when some had none by the timeout).
     */
    record Shown(Map<TopicPartition, TopicPartitionState> states, Duration after) {
    }

    /**
     * Reads the partitions until all have a leader or the timeout passes; each read asks only for those still
     * without one. Called once every election request is answered: it covers all of them.
     */
    static Shown awaitLeaders(PartitionStateReader reader, Collection<TopicPartition> elected, Duration timeout) {
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        Set<TopicPartition> waiting = new HashSet<>(elected);
        Map<TopicPartition, TopicPartitionState> last = new HashMap<>();
        while (true) {
            for (TopicPartitionState p : reader.readNewestLeaders(Set.copyOf(waiting)).partitions()) {
                last.put(p.topicPartition(), p);
                if (!p.isOffline()) {
                    waiting.remove(p.topicPartition());
                }
            }
            if (waiting.isEmpty()) {
                return new Shown(last, Duration.ofNanos(System.nanoTime() - start));
            }
            if (System.nanoTime() > deadline) {
                return new Shown(last, null);
            }
            Pause.millis(200, "the elected leaders");
        }
    }

    static PartitionOutcome outcome(ElectionTarget t, Outcome outcome, String detail,
                                    TopicPartitionState before, TopicPartitionState after) {
        return new PartitionOutcome(t.topicPartition(), t.designatedLeader(), outcome, detail, before, after);
    }
}
