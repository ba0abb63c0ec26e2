// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.chaos;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/**
 * What one seed showed, per kind of producer: the acknowledged writes, those no replica held any more when the outage
 * had formed (lost by Kafka before any recovery), those lost by the tool's recovery (after its salvage is replayed) and
 * by Kafka's own unclean election on the same state, and how many the salvage and the replay held.
 *
 * @param ledByTool  the offline partitions the tool gave a leader (a refused one waits for its broker)
 * @param ledByKafka those Kafka's unclean election gave one
 * @param counts     per kind of producer; empty when the seed is not a trial
 * @param violations the checks that failed; a trial with any fails its seed
 */
record TrialOutcome(long seed, ChaosTrial.ToolPath path, boolean trial, int offline, int ledByTool, int ledByKafka,
                    Map<Workload.Acks, Counts> counts,
                    List<String> violations, List<String> notes) {

    /** One kind of producer's writes in one trial. */
    record Counts(long acked, long onNoReplica, long onLostDiskOnly, long lostByTool, long lostByKafka, long salvaged,
                  long replayed) {

        Counts plus(Counts other) {
            return new Counts(acked + other.acked, onNoReplica + other.onNoReplica,
                    onLostDiskOnly + other.onLostDiskOnly, lostByTool + other.lostByTool,
                    lostByKafka + other.lostByKafka, salvaged + other.salvaged, replayed + other.replayed);
        }

        static final Counts ZERO = new Counts(0, 0, 0, 0, 0, 0, 0);
    }

    static TrialOutcome notATrial(long seed, Oracle oracle, String why) {
        return new TrialOutcome(seed, ChaosTrial.toolPath(seed), false, 0, 0, 0, Map.of(), List.of(),
                List.of(why + "; " + oracle.describe()));
    }

    /**
     * The checks of one trial. A write counts when some replica held it and that replica's disk is not lost: the
     * tool must keep it in the partition or in the salvage, and have it in the partition or the replay target after
     * the replay. On a partition Kafka had failed over to a leader that lacks it (an acks=1 write its old leader took
     * alone), a write was lost before any recovery, like one no replica holds: the tool is not asked to touch a
     * partition that has a leader, and the replicas that still hold the write truncate to that leader.
     *
     * @param ledAtRestore the leader of each partition that had one when the broken state was started again
     */
    static TrialOutcome judge(long seed, ChaosTrial.ToolPath path, FaultSchedule schedule, Oracle oracle,
                              Map<TopicPartition, Integer> ledAtRestore, ChaosTrial.Recovery tool,
                              ChaosTrial.Recovery kafka) {
        List<String> violations = new ArrayList<>(tool.violations());
        List<String> notes = new ArrayList<>(tool.notes());
        notes.addAll(kafka.notes());
        if (!tool.offline().equals(kafka.offline())) {
            notes.add("offline for the tool " + tool.offline() + ", for Kafka's election " + kafka.offline());
        }
        Map<TopicPartition, Set<String>> afterTool = valueSets(tool.after());
        Map<TopicPartition, Set<String>> afterKafka = valueSets(kafka.after());
        Map<Workload.Acks, Counts> counts = new EnumMap<>(Workload.Acks.class);
        int dead = schedule.deadBroker();
        for (Workload.AckedWrite write : oracle.acked()) {
            Integer leader = ledAtRestore.get(write.partition());
            Set<Integer> holders = leader == null || oracle.holders(write).contains(leader) ? oracle.holders(write)
                    : Set.of();
            boolean counted = holders.stream().anyMatch(b -> b != dead || !schedule.deadDiskLost());
            boolean onLostDiskOnly = !holders.isEmpty() && !counted;
            boolean inTool = afterTool.getOrDefault(write.partition(), Set.of()).contains(write.value());
            boolean lostByTool = counted && !inTool && !tool.replayed().contains(write.value());
            boolean lostByKafka = counted && !afterKafka.getOrDefault(write.partition(), Set.of()).contains(write.value());
            if (counted && !inTool && !tool.salvaged().contains(write.value())) {
                violations.add(write + " held by " + holders + " is neither in the partition after the recovery nor"
                        + " in the salvage");
            } else if (lostByTool) {
                violations.add(write + " held by " + holders + " was salvaged but is not in the replay target");
            }
            counts.merge(write.acks(), new Counts(1, holders.isEmpty() ? 1 : 0, onLostDiskOnly ? 1 : 0,
                    lostByTool ? 1 : 0, lostByKafka ? 1 : 0, tool.salvaged().contains(write.value()) ? 1 : 0,
                    tool.replayed().contains(write.value()) ? 1 : 0), Counts::plus);
        }
        return new TrialOutcome(seed, path, true, tool.offline().size(), tool.elected(), kafka.elected(), counts,
                violations, notes);
    }

    Counts total() {
        return counts.values().stream().reduce(Counts.ZERO, Counts::plus);
    }

    boolean failed() {
        return !violations.isEmpty();
    }

    private static Map<TopicPartition, Set<String>> valueSets(Map<TopicPartition, Map<Long, String>> after) {
        Map<TopicPartition, Set<String>> sets = new HashMap<>();
        after.forEach((tp, values) -> sets.put(tp, new HashSet<>(values.values())));
        return sets;
    }
}
