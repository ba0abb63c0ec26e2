// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import dev.uncleanrecovery.cluster.ClusterSnapshot;
import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.evidence.ReplicaEvidence;
import dev.uncleanrecovery.formats.PlannedElection;
import dev.uncleanrecovery.probe.PartitionToProbe;
import dev.uncleanrecovery.support.OnItsOwnThread;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;

/**
 * The second look: every replica {@link #replicasToProbe} names is probed once more right before the election, with
 * the answers of the early probe (recover, which probes while it re-reads) where the re-read finds the partition as
 * that probe saw it. A designated replica whose log shrank, or whose broker restarted, since the plan refuses its
 * partition.
 */
final class SecondLookPhase {

    private final ReplicaReprobe reprobe;
    private final Consumer<String> progress;
    /** Per partition as planned, the replicas asked early; empty when none was. */
    private final Map<TopicPartitionState, List<Integer>> early;
    private final CompletableFuture<Map<TopicPartition, List<ReplicaEvidence>>> earlyAnswers;

    private SecondLookPhase(ReplicaReprobe reprobe, Consumer<String> progress,
                            Map<TopicPartitionState, List<Integer>> early,
                            CompletableFuture<Map<TopicPartition, List<ReplicaEvidence>>> earlyAnswers) {
        this.reprobe = reprobe;
        this.progress = progress;
        this.early = early;
        this.earlyAnswers = earlyAnswers;
    }

    /** Probes nothing before {@link #look}: the partitions are read first (a plan file carries no topic ids). */
    static SecondLookPhase afterTheReread(ReplicaReprobe reprobe, Consumer<String> progress) {
        return new SecondLookPhase(reprobe, progress, Map.of(), null);
    }

    /**
     * Starts probing {@code early} on a thread of its own, while the partitions are re-read.
     *
     * @param early per partition as planned, the replicas to probe (see {@link #replicasToProbe}); not empty
     */
    static SecondLookPhase duringTheReread(ReplicaReprobe reprobe, Consumer<String> progress,
                                           Map<TopicPartitionState, List<Integer>> early) {
        return new SecondLookPhase(reprobe, progress, early,
                OnItsOwnThread.run("designated-reprobe", () -> reprobe.reprobe(early)));
    }

    /** @return per partition: refused, or on with its replicas' answers */
    Map<TopicPartition, Verdict> look(List<Candidate> going, ClusterSnapshot now) {
        if (going.isEmpty()) {
            return Map.of(); // the early probe is not waited for
        }
        Map<TopicPartition, List<ReplicaEvidence>> answers = probe(going, now);
        return Verdict.each(going, c -> {
            Candidate looked = c.withSecondLook(answers.getOrDefault(c.topicPartition(), List.of()));
            ReplicaEvidence designated = looked.answerOf(c.target().designatedLeader());
            Optional<String> shrank = Revalidation.logShrank(c.target(), designated);
            // Only native evidence carries the broker epoch: a new one means the broker restarted since the plan,
            // and a restart can truncate a log (unclean shutdown) or change it in ways a log end offset hides.
            Optional<String> restarted = BrokerRestart.note(c.entry(), designated);
            return shrank.isPresent() ? new Verdict.Refused(shrank.get())
                    : restarted.isPresent() ? new Verdict.Refused("designated " + restarted.get() + "; plan again")
                    : new Verdict.Proceed(looked);
        });
    }

    private Map<TopicPartition, List<ReplicaEvidence>> probe(List<Candidate> going, ClusterSnapshot now) {
        Map<TopicPartitionState, List<Integer>> toReprobe = new LinkedHashMap<>();
        for (Candidate c : going) {
            toReprobe.put(c.state(), replicasToProbe(c.entry(), c.state(), now));
        }
        Map<TopicPartition, List<ReplicaEvidence>> reprobed = new HashMap<>();
        if (earlyAnswers != null) {
            Map<TopicPartition, List<ReplicaEvidence>> answers = OnItsOwnThread.join(earlyAnswers);
            Map<PartitionToProbe, List<Integer>> probedAs = new HashMap<>();
            early.forEach((state, brokers) -> probedAs.put(PartitionToProbe.of(state), brokers));
            for (var it = toReprobe.entrySet().iterator(); it.hasNext(); ) {
                var entry = it.next();
                List<Integer> asked = probedAs.get(PartitionToProbe.of(entry.getKey()));
                if (asked == null) {
                    continue;
                }
                TopicPartition tp = entry.getKey().topicPartition();
                reprobed.put(tp, answers.getOrDefault(tp, List.of()).stream().filter(e -> asked.contains(e.broker())).toList());
                List<Integer> rest = entry.getValue().stream().filter(b -> !asked.contains(b)).toList();
                if (rest.isEmpty()) {
                    it.remove();
                } else {
                    entry.setValue(rest);
                }
            }
        }
        if (!toReprobe.isEmpty()) {
            long replicas = toReprobe.values().stream().mapToLong(List::size).sum();
            progress.accept("probing once more the " + replicas + " live replica(s) of " + toReprobe.size()
                    + " partition(s): the designated leader, and what each other replica will lose");
            reprobe.reprobe(toReprobe).forEach((tp, answers) -> reprobed.merge(tp, answers,
                    (a, b) -> Stream.concat(a.stream(), b.stream()).toList()));
        }
        return reprobed;
    }

    /**
     * The designated replica, and every other replica whose broker is registered and unfenced now: what each will
     * lose is measured from these answers, and one with no live answer in the plan may have come back with more than
     * the designated one holds. A fenced broker serves no request, so it keeps its plan status.
     */
    static List<Integer> replicasToProbe(PlannedElection p, TopicPartitionState state, ClusterSnapshot cluster) {
        List<Integer> brokers = new ArrayList<>();
        brokers.add(p.designatedLeader());
        for (int replica : state.replicas()) {
            var broker = cluster.brokersById().get(replica);
            if (replica != p.designatedLeader() && broker != null && !broker.fenced()) {
                brokers.add(replica);
            }
        }
        return brokers;
    }
}
