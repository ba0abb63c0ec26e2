// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.recovery;

import dev.uncleanrecovery.cluster.ConsumerGroupOffsets;
import dev.uncleanrecovery.cluster.ConsumerGroupResets;
import dev.uncleanrecovery.formats.ConsumerOffsetReset;
import dev.uncleanrecovery.formats.DivergencePoint;
import dev.uncleanrecovery.formats.Plan;
import dev.uncleanrecovery.formats.PlannedElection;
import dev.uncleanrecovery.formats.ResultFile;
import dev.uncleanrecovery.cluster.ClusterDiscovery;
import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.probe.BrokerLookUps;
import dev.uncleanrecovery.probe.TruncationPoints;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.internals.Topic;

/**
 * The consumer groups that read past the divergence point of a partition a run elected, set back to it: each then
 * reads every record of the new leader's history and none twice. Dry run unless asked to change: then the groups'
 * offsets are set through Admin, and Kafka refuses a group with members, which is left as it is and named.
 */
public final class ConsumerOffsetRepair {

    /**
     * @param resets  every group and partition past its divergence point, with what became of it
     * @param notes   what could not be read or decided, one line each
     * @param elected how many elected partitions were looked at
     */
    public record Repair(List<ConsumerOffsetReset> resets, List<String> notes, int elected) {

        public Repair {
            resets = List.copyOf(resets);
            notes = List.copyOf(notes);
        }

        public long count(ConsumerOffsetReset.Outcome outcome) {
            return resets.stream().filter(r -> r.outcome() == outcome).count();
        }
    }

    private ConsumerOffsetRepair() {
    }

    /**
     * The new leaders' end offsets, after the election, for the epochs groups last read: the look-up Kafka's consumer
     * makes to find its log truncated (OffsetsForLeaderEpoch, KIP-320).
     */
    @FunctionalInterface
    public interface EpochEnds {
        /** Per look-up the leader answered within {@code timeout}, its end offset; the others are left out. */
        Map<LookUp, Long> endOffsets(Set<LookUp> lookUps, Duration timeout);

        /** Asks nothing: a group whose history no probed replica holds is set back to the new log end. */
        EpochEnds NONE = (lookUps, timeout) -> Map.of();
    }

    /** The epoch a group last read on a partition, to ask of its leader. */
    public record LookUp(TopicPartitionState partition, int epoch) {
    }

    /** The look-ups asked of the new leaders over the discovery's connections, a Fetch for many partitions each. */
    public static EpochEnds askingLeaders(ClusterDiscovery discovery) {
        return (lookUps, timeout) -> {
            BrokerLookUps brokers = new BrokerLookUps(discovery.connections(), discovery.requestTimeout());
            Map<LookUp, CompletableFuture<Optional<TruncationPoints.EpochEnd>>> asked = new LinkedHashMap<>();
            lookUps.forEach(l -> asked.put(l, brokers.endOffsetFor(l.partition(), l.partition().leader(), l.epoch())));
            brokers.settle(timeout);
            Map<LookUp, Long> ends = new HashMap<>();
            asked.forEach((l, answer) -> {
                if (answer.isDone() && !answer.isCompletedExceptionally()) {
                    answer.join().ifPresent(end -> ends.put(l, end.endOffset()));
                }
            });
            return ends;
        };
    }

    public static Repair run(Admin admin, Duration timeout, Plan plan, ResultFile result, boolean execute) {
        return run(admin, timeout, plan, result, execute, EpochEnds.NONE);
    }

    public static Repair run(ClusterDiscovery discovery, Plan plan, ResultFile result, boolean execute) {
        return run(discovery.admin(), discovery.requestTimeout(), plan, result, execute, askingLeaders(discovery));
    }

    /**
     * @param result    what the run did with {@code plan}: its ELECTED and ELECTED_OTHER partitions, and in a dry run
     *                  its WOULD_ELECT ones as though elected
     * @param execute   set the offsets; otherwise only say what would be set
     * @param epochEnds the new leaders' answers for a group whose history no probed replica holds
     */
    public static Repair run(Admin admin, Duration timeout, Plan plan, ResultFile result, boolean execute,
                             EpochEnds epochEnds) {
        Map<TopicPartition, PlannedElection> planned = new HashMap<>();
        plan.partitions().forEach(p -> planned.put(p.topicPartition(), p));
        Map<TopicPartition, ResultFile.Partition> elected = new LinkedHashMap<>();
        for (ResultFile.Partition p : result.partitions()) {
            TopicPartition tp = new TopicPartition(p.topic(), p.partition());
            if (planned.containsKey(tp) && List.of("ELECTED", "ELECTED_OTHER", "WOULD_ELECT").contains(p.outcome())) {
                elected.put(tp, p);
            }
        }
        List<String> notes = new ArrayList<>();
        if (elected.isEmpty()) {
            return new Repair(List.of(), notes, 0);
        }
        ConsumerGroupOffsets.Result committed = ConsumerGroupOffsets.read(admin, elected.keySet(), timeout);
        if (!committed.offlineOffsetsPartitions().isEmpty()) {
            notes.add(Topic.GROUP_METADATA_TOPIC_NAME + " has offline partitions " + committed.offlineOffsetsPartitions()
                    + ": the groups kept there were not read; recover those partitions first");
        }
        notes.addAll(committed.unreadable());
        // no probed replica holds what such a group read: its new leader is asked, as the group's consumer will; all
        // of them at once, and one not answered in time leaves the new log end
        Map<ConsumerGroupOffsets.Committed, LookUp> asked = new HashMap<>();
        for (ConsumerGroupOffsets.Committed c : committed.committed()) {
            ResultFile.Partition p = elected.get(c.topicPartition());
            if (readNewHistory(c, p) || c.leaderEpoch() < 0 || p.after() == null || p.after().leader() < 0) {
                continue;
            }
            PlannedElection election = planned.get(c.topicPartition());
            Optional<DivergencePoint> d = DivergencePoint.of(election, p, c.offset(), c.leaderEpoch());
            if (d.isPresent() && d.get().basis() == DivergencePoint.Basis.NEW_LOG_END) {
                asked.put(c, new LookUp(stateAfter(election, p), c.leaderEpoch()));
            }
        }
        Map<LookUp, Long> ends = asked.isEmpty() ? Map.of()
                : epochEnds.endOffsets(new HashSet<>(asked.values()), timeout);
        List<ConsumerOffsetReset> resets = new ArrayList<>();
        Set<String> undecided = new TreeSet<>();
        for (ConsumerGroupOffsets.Committed c : committed.committed()) {
            ResultFile.Partition p = elected.get(c.topicPartition());
            if (readNewHistory(c, p)) {
                continue;
            }
            Long end = asked.containsKey(c) ? ends.get(asked.get(c)) : null;
            Optional<DivergencePoint> d = DivergencePoint.of(planned.get(c.topicPartition()), p, c.offset(),
                    c.leaderEpoch(), end == null ? OptionalLong.empty() : OptionalLong.of(end));
            if (d.isEmpty()) {
                undecided.add(c.topicPartition().toString());
            } else if (c.offset() > d.get().offset()) {
                resets.add(new ConsumerOffsetReset(c.group(), c.topicPartition().topic(), c.topicPartition().partition(),
                        c.offset(), d.get().offset(), d.get().basis(), d.get().historyReplica(),
                        execute ? ConsumerOffsetReset.Outcome.RESET : ConsumerOffsetReset.Outcome.WOULD_RESET, null));
            }
        }
        if (!undecided.isEmpty()) {
            notes.add("no divergence point for " + String.join(", ", undecided) + ": the plan has no log end of the"
                    + " new leader; their groups are left as they are");
        }
        return new Repair(apply(admin, timeout, resets, execute), notes, elected.size());
    }

    /** Names the groups that have members; with {@code execute}, asks Kafka to set the offsets of each group. */
    private static List<ConsumerOffsetReset> apply(Admin admin, Duration timeout, List<ConsumerOffsetReset> resets,
                                                   boolean execute) {
        Map<String, Map<TopicPartition, Long>> byGroup = new TreeMap<>();
        resets.forEach(r -> byGroup.computeIfAbsent(r.group(), g -> new LinkedHashMap<>())
                .put(r.topicPartition(), r.divergenceOffset()));
        Map<String, ConsumerGroupResets.Membership> members = byGroup.isEmpty() ? Map.of()
                : ConsumerGroupResets.describe(admin, byGroup.keySet(), timeout);
        // Kafka is the judge of a group's members: it refuses the change of an active group, so it is asked anyway
        Map<String, ConsumerGroupResets.Answer> answers = execute
                ? ConsumerGroupResets.alter(admin, byGroup, timeout) : Map.of();
        List<ConsumerOffsetReset> done = new ArrayList<>();
        for (ConsumerOffsetReset r : resets) {
            ConsumerGroupResets.Membership m = members.get(r.group());
            ConsumerGroupResets.Answer a = answers.get(r.group());
            if (a != null && a.activeMembers()) {
                done.add(r.with(ConsumerOffsetReset.Outcome.ACTIVE_GROUP, "Kafka refused (" + a.refusal() + ")"
                        + (m == null ? "" : "; " + m.describe()) + ": stop its consumers and run again"));
            } else if (a != null && !a.isDone()) {
                done.add(r.with(ConsumerOffsetReset.Outcome.FAILED, a.refusal()));
            } else if (a == null && m != null && m.isActive()) {
                done.add(r.with(ConsumerOffsetReset.Outcome.ACTIVE_GROUP, m.describe()
                        + ": Kafka will refuse while it has members; stop its consumers first"));
            } else {
                done.add(r);
            }
        }
        return done;
    }

    /** The partition as the result read it back after the election, with the plan's topic id. */
    private static TopicPartitionState stateAfter(PlannedElection election, ResultFile.Partition p) {
        ResultFile.State after = p.after();
        Uuid topicId = election.topicId() == null ? Uuid.ZERO_UUID : Uuid.fromString(election.topicId());
        return new TopicPartitionState(p.topic(), topicId, p.partition(), after.leader(), after.leaderEpoch(),
                after.replicas(), after.isr(), after.eligibleLeaderReplicas() == null ? List.of()
                : after.eligibleLeaderReplicas(), after.lastKnownElr() == null ? List.of() : after.lastKnownElr(),
                List.of());
    }

    /** Committed in the new leader's epoch: the group has read the new history since the election. */
    private static boolean readNewHistory(ConsumerGroupOffsets.Committed c, ResultFile.Partition p) {
        return p.after() != null && c.leaderEpoch() >= 0 && c.leaderEpoch() >= p.after().leaderEpoch();
    }
}
