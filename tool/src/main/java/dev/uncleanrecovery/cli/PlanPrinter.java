// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.formats.Plan;
import dev.uncleanrecovery.formats.PlanConsumerGroup;
import dev.uncleanrecovery.formats.PlanEvidence;
import dev.uncleanrecovery.formats.PlanTruncation;
import dev.uncleanrecovery.formats.PlanUnansweredBroker;
import dev.uncleanrecovery.formats.PlannedElection;
import dev.uncleanrecovery.formats.SkippedPartition;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** The plan as tables for people: what will be elected and why, and what is skipped and why. */
final class PlanPrinter {

    private PlanPrinter() {
    }

    static void print(Plan plan, PrintWriter out) {
        for (String note : plan.notes()) {
            out.println("NOTE " + note);
        }
        if (!plan.notes().isEmpty()) {
            out.println();
        }
        out.println("Partitions to elect: " + (plan.partitions().isEmpty() ? "none" : plan.partitions().size())
                + " (strategy " + plan.strategy().spelling() + ")");
        if (!plan.partitions().isEmpty()) {
            // the reason, the longest cell by far, goes under its row
            Table table = new Table("PARTITION", "DESIGNATED LEADER", "OTHER REPLICAS", "EXPECTED TRUNCATION");
            electionRows(plan).into(table);
            table.print(out);
            printConsumerGroupsAhead(plan, out);
        }
        if (!plan.skipped().isEmpty()) {
            out.println();
            out.println("Skipped: " + plan.skipped().size());
            Table table = new Table("PARTITION", "REASON");
            skippedRows(plan).into(table);
            table.print(out);
        }
        printUnanswered(plan, out);
        printFailedLogDirs(plan, out);
    }

    /**
     * The replicas whose broker is up but whose log directory failed, once per broker, unless their logs were read off
     * that directory already: only that read can state what they lose, and only a copy from there can save it.
     */
    private static void printFailedLogDirs(Plan plan, PrintWriter out) {
        Map<Integer, List<String>> byBroker = new TreeMap<>();
        Stream.concat(plan.partitions().stream().map(p -> Map.entry(p.topic() + "-" + p.partition(), p.evidence())),
                        plan.skipped().stream().map(p -> Map.entry(p.topic() + "-" + p.partition(), p.evidence())))
                .forEach(partition -> oneEach(partition.getValue()).stream()
                        .filter(e -> e.status() == EvidenceStatus.LOG_DIR_OFFLINE)
                        .forEach(e -> byBroker.computeIfAbsent(e.broker(), b -> new ArrayList<>())
                                .add(partition.getKey())));
        byBroker.forEach((broker, partitions) -> Table.printWrapped(out, "FAILED LOG DIRECTORY on live broker " + broker
                + ": its replica(s) of " + String.join(", ", partitions) + " cannot lead and their logs are unknown;"
                + " 'inspect --log-dir' on that directory, if it can still be read, gives them (pass with --evidence;"
                + " 'inspect --salvage-beyond' then copies what they lose)", 4));
    }

    /**
     * The elections, alike partitions in one row: designated leader, other replicas, expected truncation, and the
     * reason as the note. The plan's page draws one picture per row.
     */
    static PartitionRows electionRows(Plan plan) {
        PartitionRows rows = new PartitionRows();
        for (PlannedElection p : plan.partitions()) {
            List<PlanEvidence> evidence = oneEach(p.evidence());
            PlanEvidence leader = evidence.stream().filter(e -> e.broker() == p.designatedLeader()).findFirst().orElse(null);
            rows.add(p.topicPartition(), (p.tieredStorage() ? "[tiered storage] " : "") + p.reason(),
                    p.designatedLeader() + " " + describe(leader),
                    evidence.stream().filter(e -> e.broker() != p.designatedLeader())
                            .map(e -> e.broker() + " " + describe(e)).collect(Collectors.joining(", ")),
                    truncation(p));
        }
        return rows;
    }

    /** The skipped partitions, alike ones in one row: the reason. */
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

    /** The consumer groups that read records the plan destroys: they will reset or detect the truncation. */
    private static void printConsumerGroupsAhead(Plan plan, PrintWriter out) {
        long count = plan.partitions().stream().mapToLong(p -> p.consumerGroupsAhead().size()).sum();
        if (count == 0) {
            return;
        }
        out.println();
        out.println("Consumer groups that committed offsets past the new log end (they read records this plan destroys): "
                + count);
        Table table = new Table("GROUP", "PARTITION", "COMMITTED OFFSET", "NEW LOG END", "READ AND LOST");
        for (PlannedElection p : plan.partitions()) {
            for (PlanConsumerGroup g : p.consumerGroupsAhead()) {
                table.row(g.group(), p.topic() + "-" + p.partition(), Long.toString(g.committedOffset()),
                        Long.toString(g.newLogEnd()), Long.toString(g.offsetsReadAndLost()));
            }
        }
        table.print(out);
    }

    /**
     * Why brokers did not answer, once per broker: the tables only say "(UNREACHABLE)" or "unknown", because a
     * broker that is down or hung fails every partition it holds the same way. A plan written before it had
     * unansweredBrokers gets the same from its evidence, once per broker and error.
     */
    private static void printUnanswered(Plan plan, PrintWriter out) {
        if (!plan.unansweredBrokers().isEmpty()) {
            for (PlanUnansweredBroker b : plan.unansweredBrokers()) {
                Table.printWrapped(out, "UNANSWERED broker " + b.broker() + (b.address() == null ? "" : " (" + b.address()
                        + ")") + ", " + b.replicasUnknown() + " of " + b.replicas() + " replica(s) unknown: " + b.reason(), 4);
            }
            return;
        }
        Map<Integer, Map<String, Integer>> byBroker = new TreeMap<>();
        Stream.concat(plan.partitions().stream().map(PlannedElection::evidence),
                        plan.skipped().stream().map(SkippedPartition::evidence))
                .forEach(evidence -> evidence.stream().filter(e -> e.status() == EvidenceStatus.UNREACHABLE)
                        .forEach(e -> byBroker.computeIfAbsent(e.broker(), b -> new LinkedHashMap<>())
                                .merge(e.error() == null ? "no answer" : e.error(), 1, Integer::sum)));
        byBroker.forEach((broker, errors) -> errors.forEach((error, partitions) -> Table.printWrapped(out,
                "UNREACHABLE broker " + broker + " (" + partitions + " partition(s)): " + error, 4)));
    }

    static String describe(PlanEvidence e) {
        if (e == null) {
            return "(no evidence)";
        }
        if (e.status() == EvidenceStatus.OK) {
            return "(epoch " + e.lastWrittenLeaderEpoch() + ", LEO " + e.logEndOffset()
                    + (e.source() == dev.uncleanrecovery.evidence.EvidenceSource.STOCK ? "" : ", " + e.source().name().toLowerCase(java.util.Locale.ROOT))
                    + ")";
        }
        return "(" + e.status() + ")";
    }

    private static String truncation(PlannedElection p) {
        if (p.expectedTruncation().isEmpty()) {
            return "none";
        }
        return p.expectedTruncation().stream().map(PlanPrinter::truncation).collect(Collectors.joining(", "));
    }

    /** "3: 200 [200..400), 0 committed, 200 unknown", "1: unknown": one replica's loss as the table says it. */
    static String truncation(PlanTruncation t) {
        return switch (t.estimate()) {
            case UNKNOWN -> t.broker() + ": unknown";
            case EXACT -> t.broker() + ": " + t.records() + range(t);
            case AT_LEAST -> t.broker() + ": at least " + t.records() + range(t);
        };
    }

    /** " [10..30), 0 committed, 20 unknown" for a loss, every part of it said; nothing for none. */
    private static String range(PlanTruncation t) {
        if (t.records() == 0) {
            return "";
        }
        long never = t.neverCommittedRecords() == null ? 0 : t.neverCommittedRecords();
        return " [" + t.fromOffset() + ".." + t.toOffset() + ")"
                + (t.committedRecords() == null ? ", committed ?" : ", " + t.committedRecords() + " committed")
                + (never > 0 ? ", " + never + " never" : "")
                + (t.unknownCommitmentRecords() > 0 ? ", " + t.unknownCommitmentRecords() + " unknown" : "");
    }
}
