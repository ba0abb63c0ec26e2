// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.recovery;

import dev.uncleanrecovery.UserInputException;
import dev.uncleanrecovery.cluster.ClusterDiscovery;
import dev.uncleanrecovery.cluster.ConsumerGroupOffsets;
import dev.uncleanrecovery.cluster.ConsumerGroupResets;
import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.formats.ConsumerOffsetReset;
import dev.uncleanrecovery.formats.DivergencePoint;
import dev.uncleanrecovery.formats.OffsetResetRecord;
import dev.uncleanrecovery.formats.Plan;
import dev.uncleanrecovery.formats.PlannedElection;
import dev.uncleanrecovery.formats.ResultFile;
import dev.uncleanrecovery.probe.BrokerLookUps;
import dev.uncleanrecovery.probe.TruncationPoints;
import dev.uncleanrecovery.support.DurableFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
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
 *
 * <p>It acts only on a result bound to the cluster it reaches: the live cluster's id, read before anything else, must
 * be the result's and the plan's; a dry run's result is refused (it elected nothing). A run again is idempotent: a
 * group committed past the divergence point is left alone when its commit's leader epoch shows that the new leader
 * holds the record it read last (KIP-320: one epoch at one offset is the same record on every replica, and the
 * records before it with it), or, where the commit carries no epoch that the new leader answered for, when an
 * earlier run set it back for this same election ({@link OffsetResetRecord}, beside the result) and it has
 * committed at or past that point since: after the election only the new history can be read.
 */
public final class ConsumerOffsetRepair {

    /**
     * @param resets  every group and partition past its divergence point, with what became of it
     * @param notes   what could not be read, decided or recorded, one line each: the repair is incomplete
     * @param elected how many elected partitions were looked at
     */
    public record Repair(List<ConsumerOffsetReset> resets, List<String> notes, int elected) {

        public Repair {
            resets = List.copyOf(resets);
            notes = List.copyOf(notes);
        }

        /** Nothing was looked at, for the reason {@code why}. */
        public static Repair notDone(String why) {
            return new Repair(List.of(), List.of(why), 0);
        }

        public long count(ConsumerOffsetReset.Outcome outcome) {
            return resets.stream().filter(r -> r.outcome() == outcome).count();
        }

        /** Every group was read and every one past its divergence point is (or would be) set back, or was before. */
        public boolean isComplete() {
            return notes.isEmpty() && count(ConsumerOffsetReset.Outcome.ACTIVE_GROUP) == 0
                    && count(ConsumerOffsetReset.Outcome.FAILED) == 0;
        }
    }

    /** What is asked of the repair. */
    private enum Action {
        /** {@code execute --dry-run}: the partitions it would elect, as though elected; nothing changes. */
        PREVIEW,
        /** Say what would be set for a run that elected. */
        SHOW,
        /** Set the offsets. */
        SET
    }

    private ConsumerOffsetRepair() {
    }


    /**
     * The groups past the divergence point of what the run of {@code result} elected (its ELECTED and ELECTED_OTHER
     * partitions).
     *
     * @param resultFile where {@code result} is (or is being written): the records of the resets made for it are
     *                   beside it
     * @param execute    set the offsets, and record each set beside the result; otherwise only say what would be set
     * @throws UserInputException when the result is of another cluster than the one reached, or its plan is, or it is
     *                            a dry run's: before any offset is read
     */
    public static Repair run(ClusterDiscovery discovery, Plan plan, ResultFile result, Path resultFile,
                             boolean execute) throws IOException {
        return repair(discovery, plan, result, resultFile, execute ? Action.SET : Action.SHOW);
    }

    /**
     * What a run of {@code plan} would set after the elections a dry run found it would make (its WOULD_ELECT
     * partitions, as though elected); changes nothing.
     *
     * @param resultFile where a run would write its result: the records of earlier resets are read beside it
     */
    public static Repair preview(ClusterDiscovery discovery, Plan plan, ResultFile dryRun, Path resultFile)
            throws IOException {
        return repair(discovery, plan, dryRun, resultFile, Action.PREVIEW);
    }

    private static Repair repair(ClusterDiscovery discovery, Plan plan, ResultFile result, Path resultFile,
                                 Action action) throws IOException {
        // first: a cluster that does not answer fails here, as every command does, rather than in notes
        String cluster = discovery.clusterId();
        requireBound(plan, result, resultFile, cluster, action);
        Set<String> electing = action == Action.PREVIEW ? Set.of("WOULD_ELECT") : Set.of("ELECTED", "ELECTED_OTHER");
        Map<TopicPartition, PlannedElection> planned = new HashMap<>();
        plan.partitions().forEach(p -> planned.put(p.topicPartition(), p));
        Map<TopicPartition, ResultFile.Partition> elected = new LinkedHashMap<>();
        for (ResultFile.Partition p : result.partitions()) {
            TopicPartition tp = new TopicPartition(p.topic(), p.partition());
            if (planned.containsKey(tp) && electing.contains(p.outcome())) {
                elected.put(tp, p);
            }
        }
        List<String> notes = new ArrayList<>();
        if (elected.isEmpty()) {
            return new Repair(List.of(), notes, 0);
        }
        Duration timeout = discovery.requestTimeout();
        Admin admin = discovery.admin();
        ConsumerGroupOffsets.Result committed = ConsumerGroupOffsets.read(admin, elected.keySet(), timeout);
        if (!committed.offlineOffsetsPartitions().isEmpty()) {
            notes.add(Topic.GROUP_METADATA_TOPIC_NAME + " has offline partitions " + committed.offlineOffsetsPartitions()
                    + ": the groups kept there were not read; recover those partitions first");
        }
        notes.addAll(committed.unreadable());
        Map<GroupPartition, EarlierReset> earlier = earlierResets(resultFile, result, cluster, planned, elected, notes);
        // the new leader is asked for the epoch each group last read, as the group's consumer will: in Fetches of
        // many partitions to each leader, and one not answered in time tells nothing
        BrokerLookUps leaders = new BrokerLookUps(discovery.connections(), discovery.requestTimeout());
        Map<ConsumerGroupOffsets.Committed, CompletableFuture<Optional<TruncationPoints.EpochEnd>>> asked =
                new HashMap<>();
        for (ConsumerGroupOffsets.Committed c : committed.committed()) {
            ResultFile.Partition p = elected.get(c.topicPartition());
            if (c.leaderEpoch() >= 0 && p.after() != null && p.after().leader() >= 0
                    && c.leaderEpoch() < p.after().leaderEpoch()) {
                TopicPartitionState after = stateAfter(planned.get(c.topicPartition()), p);
                asked.put(c, leaders.endOffsetFor(after, after.leader(), c.leaderEpoch()));
            }
        }
        leaders.settle(timeout);
        ConsumerOffsetReset.Outcome whenPast = action == Action.SET ? ConsumerOffsetReset.Outcome.RESET
                : ConsumerOffsetReset.Outcome.WOULD_RESET;
        List<ConsumerOffsetReset> resets = new ArrayList<>();
        Set<String> undecided = new TreeSet<>();
        for (ConsumerGroupOffsets.Committed c : committed.committed()) {
            CompletableFuture<Optional<TruncationPoints.EpochEnd>> answer = asked.get(c);
            Decision decision = decide(c, planned.get(c.topicPartition()), elected.get(c.topicPartition()),
                    answer != null && answer.isDone() && !answer.isCompletedExceptionally() ? answer.join() : null,
                    earlier.get(new GroupPartition(c.group(), c.topicPartition())), whenPast);
            if (decision.undecided()) {
                undecided.add(c.topicPartition().toString());
            } else if (decision.row() != null) {
                resets.add(decision.row());
            }
        }
        if (!undecided.isEmpty()) {
            notes.add("no divergence point for " + String.join(", ", undecided) + ": the plan has no log end of the"
                    + " new leader; their groups are left as they are");
        }
        List<ConsumerOffsetReset> done = apply(admin, timeout, resets, action == Action.SET);
        if (action == Action.SET) {
            record(done, resultFile, cluster, planned, elected, notes);
        }
        return new Repair(done, notes, elected.size());
    }

    /**
     * Refuses a result that is not bound to the cluster reached: of another cluster, with the plan of another, or
     * written by a dry run (which elected nothing).
     */
    private static void requireBound(Plan plan, ResultFile result, Path resultFile, String cluster, Action action) {
        if (result.clusterId() == null) {
            throw new UserInputException(resultFile + " names no cluster id, so it cannot be told to be of cluster "
                    + cluster + " that --bootstrap-server reaches: no offset was changed; give the result file the run"
                    + " wrote");
        }
        if (!result.clusterId().equals(cluster)) {
            throw new UserInputException(resultFile + " is of cluster " + result.clusterId()
                    + ", but --bootstrap-server reaches cluster " + cluster + ": no offset was changed; connect to the"
                    + " cluster that run elected on");
        }
        if (!plan.clusterId().equals(result.clusterId())) {
            throw new UserInputException("the plan is of cluster " + plan.clusterId() + ", but " + resultFile + " of"
                    + " cluster " + result.clusterId() + ": no offset was changed; give the plan that run applied with"
                    + " --plan");
        }
        long wouldElect = result.partitions().stream().filter(p -> "WOULD_ELECT".equals(p.outcome())).count();
        if (action != Action.PREVIEW && wouldElect > 0) {
            throw new UserInputException(resultFile + " is a dry run's (" + wouldElect + " partition(s) WOULD_ELECT):"
                    + " a dry run elected nothing, so no group has a divergence point yet and no offset was changed;"
                    + " give the result file of the run that elected");
        }
    }

    /** An earlier run's reset of one group on one partition, for the same election. */
    record EarlierReset(long resetTo, String where) {
    }

    private record GroupPartition(String group, TopicPartition topicPartition) {
    }

    /**
     * What is done with one group's commit on one elected partition.
     *
     * @param row       the group past its divergence point, with what becomes of it; null when it is not past it
     * @param undecided no divergence point can be told
     */
    record Decision(ConsumerOffsetReset row, boolean undecided) {
        static final Decision NOT_PAST = new Decision(null, false);
        static final Decision UNDECIDED = new Decision(null, true);
    }

    /**
     * Whether the group committed {@code c} is past the divergence point of the election {@code p}, and so set back.
     *
     * @param answer   the new leader's {@code endOffsetFor} the epoch of the commit after the election; null when not
     *                 asked (the commit has no epoch, or the new one) or not answered
     * @param earlier  an earlier run's reset of this group on this partition for this election; null when none
     * @param whenPast the outcome of a group past its point
     */
    static Decision decide(ConsumerGroupOffsets.Committed c, PlannedElection planned, ResultFile.Partition p,
                           Optional<TruncationPoints.EpochEnd> answer, EarlierReset earlier,
                           ConsumerOffsetReset.Outcome whenPast) {
        int epoch = c.leaderEpoch();
        if (p.after() != null && epoch >= 0 && epoch >= p.after().leaderEpoch()) {
            return Decision.NOT_PAST; // committed in the new leader's epoch: it has read the new history since
        }
        boolean epochAnswered = epoch >= 0 && answer != null && answer.isPresent();
        if (epochAnswered && answer.get().epoch() == epoch && answer.get().endOffset() >= c.offset()) {
            // the new leader holds the record the group read last, at its offset and in its epoch: all the group
            // read is the new history's, read on from the election or before it
            return Decision.NOT_PAST;
        }
        Optional<DivergencePoint> d = DivergencePoint.of(planned, p, c.offset(), epoch,
                epochAnswered ? OptionalLong.of(answer.get().endOffset()) : OptionalLong.empty());
        if (d.isEmpty()) {
            return Decision.UNDECIDED;
        }
        if (c.offset() <= d.get().offset()) {
            return Decision.NOT_PAST;
        }
        ConsumerOffsetReset past = new ConsumerOffsetReset(c.group(), c.topicPartition().topic(),
                c.topicPartition().partition(), c.offset(), d.get().offset(), d.get().basis(),
                d.get().historyReplica(), whenPast, null);
        // an epoch the new leader answered for, not its own at that offset, names a record of the old history
        // however the group got there; without one, a group set back for this election can since have read only the
        // new history
        if (earlier != null && !epochAnswered && c.offset() >= earlier.resetTo()) {
            return c.offset() == earlier.resetTo() ? Decision.NOT_PAST
                    : new Decision(past.with(ConsumerOffsetReset.Outcome.ALREADY_RESET, "set back to "
                    + earlier.resetTo() + " " + earlier.where() + ", it has committed " + c.offset() + " since"
                    + (epoch < 0 ? " without a leader epoch" : " in epoch " + epoch + ", which the new leader did not"
                    + " answer for") + ": it read on in the new history"), false);
        }
        return new Decision(past, false);
    }

    /**
     * The resets earlier runs made for the elections of {@code result}, by group and partition: the last recorded
     * beside the result file for the same cluster, topic id and election (its new leader epoch), else those the
     * result itself records as RESET.
     */
    private static Map<GroupPartition, EarlierReset> earlierResets(Path resultFile, ResultFile result, String cluster,
                                                                   Map<TopicPartition, PlannedElection> planned,
                                                                   Map<TopicPartition, ResultFile.Partition> elected,
                                                                   List<String> notes) throws IOException {
        Map<GroupPartition, EarlierReset> earlier = new HashMap<>();
        if (result.consumerOffsetResets() != null) {
            result.consumerOffsetResets().stream()
                    .filter(r -> r.outcome() == ConsumerOffsetReset.Outcome.RESET)
                    .forEach(r -> earlier.put(new GroupPartition(r.group(), r.topicPartition()),
                            new EarlierReset(r.divergenceOffset(),
                                    "by the run that wrote " + resultFile.getFileName())));
        }
        Path records = OffsetResetRecord.besideResult(resultFile);
        if (!Files.exists(records, LinkOption.NOFOLLOW_LINKS)) {
            return earlier;
        }
        Optional<String> shared = DurableFiles.whyNotPrivate(records.getParent());
        if (shared.isPresent()) {
            // anyone who may write there could make a group skip the new history's records
            notes.add("the records of earlier resets in " + records + " are not used: " + records.getParent() + " "
                    + shared.get() + "; a group set back before and read on since is set back again");
            return earlier;
        }
        for (OffsetResetRecord r : OffsetResetRecord.readAll(records)) {
            ResultFile.Partition p = elected.get(r.topicPartition());
            String topicId = p == null ? null : planned.get(r.topicPartition()).topicId();
            if (p != null && p.after() != null && r.clusterId().equals(cluster)
                    && r.electedLeaderEpoch() == p.after().leaderEpoch()
                    && (r.topicId() == null || topicId == null || r.topicId().equals(topicId))) {
                earlier.put(new GroupPartition(r.group(), r.topicPartition()),
                        new EarlierReset(r.resetTo(), "at " + r.at() + " (" + records.getFileName() + ")"));
            }
        }
        return earlier;
    }

    /**
     * Appends each group Kafka set back to the records beside the result file: what tells the next run that the group
     * has read on in the new history when it commits past that point. A reset not recorded is a note.
     */
    private static void record(List<ConsumerOffsetReset> done, Path resultFile, String cluster,
                               Map<TopicPartition, PlannedElection> planned,
                               Map<TopicPartition, ResultFile.Partition> elected, List<String> notes) {
        Path records = OffsetResetRecord.besideResult(resultFile);
        List<String> unrecorded = new ArrayList<>();
        String why = null;
        for (ConsumerOffsetReset r : done) {
            ResultFile.Partition p = elected.get(r.topicPartition());
            if (r.outcome() != ConsumerOffsetReset.Outcome.RESET || p.after() == null) {
                continue;
            }
            try {
                new OffsetResetRecord(OffsetResetRecord.VERSION, Instant.now(), cluster, r.topic(),
                        planned.get(r.topicPartition()).topicId(), r.partition(), p.after().leaderEpoch(), r.group(),
                        r.committedOffset(), r.divergenceOffset()).appendTo(records);
            } catch (IOException | RuntimeException e) {
                unrecorded.add(r.group() + " on " + r.topicPartition());
                why = e.getMessage();
            }
        }
        if (!unrecorded.isEmpty()) {
            notes.add("set back but not recorded in " + records + " (" + why + "): " + String.join(", ", unrecorded)
                    + "; once they read on, a later run sets them back again");
        }
    }

    /**
     * Names the groups that have members; with {@code execute}, asks Kafka to set the offsets of each group. Those set
     * back before are left as they are.
     */
    private static List<ConsumerOffsetReset> apply(Admin admin, Duration timeout, List<ConsumerOffsetReset> resets,
                                                   boolean execute) {
        Map<String, Map<TopicPartition, Long>> byGroup = new TreeMap<>();
        resets.stream().filter(r -> r.outcome() != ConsumerOffsetReset.Outcome.ALREADY_RESET)
                .forEach(r -> byGroup.computeIfAbsent(r.group(), g -> new LinkedHashMap<>())
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
            if (r.outcome() == ConsumerOffsetReset.Outcome.ALREADY_RESET) {
                done.add(r);
            } else if (a != null && a.activeMembers()) {
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
}
