// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.view;

import dev.uncleanrecovery.UserInputException;
import dev.uncleanrecovery.election.TruncationEstimate;
import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.formats.ExpectedState;
import dev.uncleanrecovery.formats.Plan;
import dev.uncleanrecovery.formats.PlanConsumerGroup;
import dev.uncleanrecovery.formats.PlanEvidence;
import dev.uncleanrecovery.formats.PlanTruncation;
import dev.uncleanrecovery.formats.PlanUnansweredBroker;
import dev.uncleanrecovery.formats.PlannedElection;
import dev.uncleanrecovery.formats.ResultFile;
import dev.uncleanrecovery.formats.SkippedPartition;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;

/**
 * A plan, and what {@code execute} did with it, as people are shown it: partitions that look alike in one group,
 * the totals, each replica and each loss in words. The text tables ({@link PlanPrinter}) and the page
 * ({@link PlanPage}) both show this one model, so they group and count alike; as JSON, a plan and a result are
 * their files.
 */
public final class PlanView {

    private final Plan plan;
    private final ResultFile result;
    private final Map<TopicPartition, PlannedElection> elections = new HashMap<>();
    private final Map<TopicPartition, ResultFile.Partition> outcomes = new HashMap<>();
    private final List<PartitionRows.Group> electionGroups;
    private final List<PartitionRows.Group> skippedGroups;

    private PlanView(Plan plan, ResultFile result) {
        this.plan = plan;
        this.result = result;
        plan.partitions().forEach(p -> elections.put(p.topicPartition(), p));
        if (result != null) {
            result.partitions().forEach(p -> outcomes.put(new TopicPartition(p.topic(), p.partition()), p));
        }
        this.electionGroups = electionRows(plan).groups();
        this.skippedGroups = skippedRows(plan).groups();
    }

    /** The plan alone. */
    public static PlanView of(Plan plan) {
        return new PlanView(plan, null);
    }

    /**
     * The plan with what {@code execute} did with it.
     *
     * @param planName   how the plan is named (its file name)
     * @param result     null for the plan alone
     * @param resultName how the result is named, when there is one
     * @throws UserInputException when the result is not of this plan (another cluster, or partitions it does not hold)
     */
    public static PlanView of(Plan plan, String planName, ResultFile result, String resultName) {
        if (result != null) {
            refuseForeignResult(plan, result, planName, resultName);
        }
        return new PlanView(plan, result);
    }

    private static void refuseForeignResult(Plan plan, ResultFile result, String planName, String resultName) {
        if (!plan.clusterId().equals(result.clusterId())) {
            throw new UserInputException("the result " + resultName + " is of cluster " + result.clusterId()
                    + ", the plan " + planName + " of cluster " + plan.clusterId() + ": give the result of this plan");
        }
        Set<TopicPartition> planned = new HashSet<>();
        plan.partitions().forEach(p -> planned.add(p.topicPartition()));
        for (ResultFile.Partition p : result.partitions()) {
            if (!planned.contains(new TopicPartition(p.topic(), p.partition()))) {
                throw new UserInputException("the result " + resultName + " elected " + p.topic() + "-" + p.partition()
                        + ", which the plan " + planName + " does not: give the result of this plan");
            }
        }
    }

    public Plan plan() {
        return plan;
    }

    /** What execute did; null for the plan alone. */
    public ResultFile result() {
        return result;
    }

    /** The elections, alike partitions in one group: designated leader, other replicas, truncation; the reason. */
    List<PartitionRows.Group> elections() {
        return electionGroups;
    }

    /** The skipped partitions, alike ones in one group: the reason. */
    List<PartitionRows.Group> skipped() {
        return skippedGroups;
    }

    PlannedElection election(TopicPartition partition) {
        return elections.get(partition);
    }

    /** What execute did with the partition; null when the result does not hold it, or there is none. */
    ResultFile.Partition outcome(TopicPartition partition) {
        return outcomes.get(partition);
    }

    /** The election a group stands for: its first partition's, which the others look like. */
    PlannedElection first(PartitionRows.Group group) {
        return elections.get(group.partitions().get(0));
    }

    /**
     * The plan in numbers, as the page's cards and the tables' headings say them.
     *
     * @param recordsCut        records every election cuts on the other replicas, as planned
     * @param lossUnknown       replicas whose loss nobody could say
     * @param consumerGroups    distinct consumer groups that had read past a new log end
     * @param groupOffsets      their committed offsets past a new log end: one per group and partition
     */
    record Totals(int toElect, int groups, int skipped, long recordsCut, long committedCut, long unknownCommitment,
                  long lossUnknown, long consumerGroups, long groupOffsets) {
    }

    Totals totals() {
        Loss sum = Loss.NONE;
        for (PlannedElection p : plan.partitions()) {
            sum = sum.plus(Loss.of(p));
        }
        return new Totals(plan.partitions().size(), electionGroups.size(), plan.skipped().size(), sum.records(),
                sum.committed(), sum.unknownCommitment(), sum.unknown(), consumerGroups(plan.partitions()),
                groupOffsets(plan.partitions()));
    }

    /** Distinct consumer groups that read past the new log end of any of {@code partitions}. */
    static long consumerGroups(List<PlannedElection> partitions) {
        return partitions.stream().flatMap(p -> p.consumerGroupsAhead().stream()).map(PlanConsumerGroup::group)
                .distinct().count();
    }

    /** Their committed offsets past a new log end, one per group and partition. */
    static long groupOffsets(List<PlannedElection> partitions) {
        return partitions.stream().mapToLong(p -> p.consumerGroupsAhead().size()).sum();
    }

    /** "1 consumer group", "3 consumer groups, 4 offsets": the same words wherever the count is said. */
    static String consumerGroupCount(long groups, long offsets) {
        return groups + (groups == 1 ? " consumer group" : " consumer groups")
                + (offsets == groups ? "" : " (" + offsets + " committed offsets)");
    }

    /** What an election cuts in all, the worse the greater: unknown losses first, then committed records. */
    record Loss(long unknown, long committed, long unknownCommitment, long records) implements Comparable<Loss> {

        static final Loss NONE = new Loss(0, 0, 0, 0);

        static Loss of(PlannedElection p) {
            Loss sum = NONE;
            for (PlanTruncation t : p.truncationsUnder(p.designatedLeader()).orElse(List.of())) {
                sum = sum.plus(t.estimate() == TruncationEstimate.UNKNOWN ? new Loss(1, 0, 0, 0)
                        : new Loss(0, t.committedRecords() == null ? 0 : t.committedRecords(),
                                t.unknownCommitmentRecords(), t.records()));
            }
            return sum;
        }

        Loss plus(Loss other) {
            return new Loss(unknown + other.unknown, committed + other.committed,
                    unknownCommitment + other.unknownCommitment, records + other.records);
        }

        @Override
        public int compareTo(Loss other) {
            return Comparator.comparingLong(Loss::unknown).thenComparingLong(Loss::committed)
                    .thenComparingLong(Loss::unknownCommitment).thenComparingLong(Loss::records).compare(this, other);
        }
    }

    /**
     * The elections, alike partitions in one row: designated leader, other replicas, expected truncation (in each,
     * the entries apart by {@link #ENTRIES}), and the reason as the note.
     */
    static PartitionRows electionRows(Plan plan) {
        PartitionRows rows = new PartitionRows();
        for (PlannedElection p : plan.partitions()) {
            List<PlanEvidence> evidence = oneEach(p.evidence());
            PlanEvidence leader = evidence.stream().filter(e -> e.broker() == p.designatedLeader()).findFirst()
                    .orElse(null);
            rows.add(p.topicPartition(), (p.tieredStorage() ? "[tiered storage] " : "") + p.reason(),
                    p.designatedLeader() + " " + describe(leader),
                    evidence.stream().filter(e -> e.broker() != p.designatedLeader())
                            .map(e -> e.broker() + " " + describe(e)).collect(Collectors.joining(ENTRIES)),
                    truncation(p));
        }
        return rows;
    }

    /** Between the entries of one cell (a replica each, a loss each): commas are inside an entry. */
    static final String ENTRIES = "; ";

    static PartitionRows skippedRows(Plan plan) {
        PartitionRows rows = new PartitionRows();
        for (SkippedPartition s : plan.skipped()) {
            rows.add(s.topicPartition(), null, s.reason());
        }
        return rows;
    }

    /**
     * One entry per broker, in the order the brokers first appear: a broker that did not answer but whose log was
     * read from its disk ({@code --evidence}) shows what was read.
     */
    static List<PlanEvidence> oneEach(List<PlanEvidence> evidence) {
        Map<Integer, PlanEvidence> byBroker = new LinkedHashMap<>();
        for (PlanEvidence e : evidence) {
            byBroker.merge(e.broker(), e, (first, later) -> first.status() != EvidenceStatus.OK
                    && later.status() == EvidenceStatus.OK ? later : first);
        }
        return List.copyOf(byBroker.values());
    }

    /** "(epoch 6, LEO 400, HW 150)", "(epoch 5, LEO 55, disk)", "(UNREACHABLE)": a replica's log in a table cell. */
    static String describe(PlanEvidence e) {
        if (e == null) {
            return "(no evidence)";
        }
        if (e.status() != EvidenceStatus.OK) {
            return "(" + e.status() + ")";
        }
        return "(epoch " + e.lastWrittenLeaderEpoch() + ", LEO " + e.logEndOffset()
                + (e.highWatermark() == null ? "" : ", HW " + e.highWatermark()) + source(e) + ")";
    }

    /** "last written epoch 6, LEO 400, HW 150": a replica's log where there is room to say it in full. */
    static String log(PlanEvidence e) {
        if (e == null) {
            return "no evidence";
        }
        if (e.status() != EvidenceStatus.OK) {
            return e.status().toString();
        }
        return "last written epoch " + e.lastWrittenLeaderEpoch() + ", LEO " + e.logEndOffset()
                + (e.highWatermark() == null ? "" : ", HW " + e.highWatermark()) + source(e);
    }

    private static String source(PlanEvidence e) {
        return e.source() == EvidenceSource.STOCK ? "" : ", " + e.source().name().toLowerCase(Locale.ROOT);
    }

    /**
     * What the controller's metadata said of the replica when the plan was made, the facts that say whether it held
     * committed records (KIP-966): "ISR · last leader", "ELR", "LastKnownELR · last leader", "not in ISR or ELR";
     * null when the plan does not record it (before version 5).
     */
    static String membership(ExpectedState state, int broker) {
        if (!state.recordsMembership()) {
            return null;
        }
        List<String> parts = new ArrayList<>();
        if (state.isr().contains(broker)) {
            parts.add("ISR");
        }
        if (state.eligibleLeaderReplicas().contains(broker)) {
            parts.add("ELR");
        }
        if (state.lastKnownElr().contains(broker)) {
            parts.add("LastKnownELR");
        }
        if (parts.isEmpty()) {
            return "not in ISR or ELR";
        }
        if (isLastLeader(state, broker)) {
            parts.add("last leader");
        }
        return String.join(" \u00b7 ", parts);
    }

    /**
     * The leader when the partition went offline, where the metadata tells: without ELR the controller never empties
     * the ISR, so a leaderless partition keeps its last leader there alone; with ELR, a partition left with neither
     * ISR nor ELR members keeps its last known leader as its only LastKnownELR member (Kafka's
     * PartitionChangeBuilder, useLastKnownLeaderInBalancedRecovery).
     */
    static boolean isLastLeader(ExpectedState state, int broker) {
        if (state.isr().size() == 1) {
            return state.isr().get(0) == broker;
        }
        return state.isr().isEmpty() && state.eligibleLeaderReplicas().isEmpty() && state.lastKnownElr().size() == 1
                && state.lastKnownElr().get(0) == broker;
    }

    /**
     * The unanswered broker's next step, when it was fenced (or down): it comes back only by a restart, and then
     * truncates to the new leader whatever it held beyond; null when it was not fenced, or the plan does not say.
     */
    static String nextStep(PlanUnansweredBroker broker, String planName) {
        if (!Boolean.TRUE.equals(broker.fenced())) {
            return null;
        }
        return "run 'kafka-unclean-recovery.sh inspect --log-dir <its log.dirs> --salvage-beyond " + planName
                + "' on its host before restarting it: following the new leader, it truncates what it holds beyond";
    }

    /** The command that applies the plan, whole: to paste after review. */
    static String applyCommand(Plan plan, String planPath) {
        return "kafka-unclean-recovery.sh --bootstrap-server " + bootstrapServer(plan) + " execute --plan " + planPath
                + " --reason \"WHY: the incident ticket\"";
    }

    /** The command that approves the plan for {@code execute --require-approval}, whole. */
    static String approveCommand(String planPath) {
        return "kafka-unclean-recovery.sh plan approve --plan " + planPath + " --by NAME --ssh-key KEY";
    }

    /** The command that applies an approved plan, whole. */
    static String applyApprovedCommand(Plan plan, String planPath, boolean signed) {
        return "kafka-unclean-recovery.sh --bootstrap-server " + bootstrapServer(plan) + " execute --plan " + planPath
                + " --require-approval" + (signed ? " --allowed-signers FILE" : "")
                + " --reason \"WHY: the incident ticket\"";
    }

    private static String bootstrapServer(Plan plan) {
        return plan.bootstrapServer() == null ? "HOST:PORT" : plan.bootstrapServer();
    }

    /** "1: unknown; 3: 200 [200..400), 0 committed, 200 of unknown commitment": every loss, one entry each. */
    static String truncation(PlannedElection p) {
        if (p.expectedTruncation().isEmpty()) {
            return "none";
        }
        return p.expectedTruncation().stream().map(PlanView::truncation).collect(Collectors.joining(ENTRIES));
    }

    /** "3: 200 [200..400), 0 committed, 200 of unknown commitment", "1: unknown": one replica's loss in full. */
    static String truncation(PlanTruncation t) {
        return switch (t.estimate()) {
            case UNKNOWN -> t.broker() + ": unknown";
            case EXACT -> t.broker() + ": " + t.records() + range(t);
            case AT_LEAST -> t.broker() + ": at least " + t.records() + range(t);
        };
    }

    /** " [10..30), 0 committed, 20 of unknown commitment" for a loss, every part of it said; nothing for none. */
    private static String range(PlanTruncation t) {
        if (t.records() == 0) {
            return "";
        }
        long never = t.neverCommittedRecords() == null ? 0 : t.neverCommittedRecords();
        return " [" + t.fromOffset() + ".." + t.toOffset() + ")"
                + (t.committedRecords() == null ? ", committed ?" : ", " + t.committedRecords() + " committed")
                + (never > 0 ? ", " + never + " never committed" : "")
                + (t.unknownCommitmentRecords() > 0 ? ", " + t.unknownCommitmentRecords() + " of unknown commitment"
                        : "");
    }
}
