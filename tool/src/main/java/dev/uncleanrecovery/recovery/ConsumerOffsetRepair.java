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
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.TopicPartition;
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
     * @param result  what the run did with {@code plan}: its ELECTED and ELECTED_OTHER partitions, and in a dry run
     *                its WOULD_ELECT ones as though elected
     * @param execute set the offsets; otherwise only say what would be set
     */
    public static Repair run(Admin admin, Duration timeout, Plan plan, ResultFile result, boolean execute) {
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
        List<ConsumerOffsetReset> resets = new ArrayList<>();
        Set<String> undecided = new TreeSet<>();
        for (ConsumerGroupOffsets.Committed c : committed.committed()) {
            ResultFile.Partition p = elected.get(c.topicPartition());
            // committed in the new leader's epoch: the group has read the new history since the election
            if (p.after() != null && c.leaderEpoch() >= 0 && c.leaderEpoch() >= p.after().leaderEpoch()) {
                continue;
            }
            Optional<DivergencePoint> d = DivergencePoint.of(planned.get(c.topicPartition()), p, c.offset(),
                    c.leaderEpoch());
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
}
