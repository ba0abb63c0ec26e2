// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.view;

import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.formats.Plan;
import dev.uncleanrecovery.formats.PlanConsumerGroup;
import dev.uncleanrecovery.formats.PlanUnansweredBroker;
import dev.uncleanrecovery.formats.PlannedElection;
import dev.uncleanrecovery.formats.ResultFile;
import dev.uncleanrecovery.formats.SkippedPartition;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The plan as tables for people ({@link PlanView} in text): what will be elected and why, and what is skipped and
 * why; replicas and losses in a cell are entries apart by ";", and no value is broken across lines.
 */
public final class PlanPrinter {

    private PlanPrinter() {
    }

    /**
     * @param planName how to name the plan in the commands printed (its path)
     */
    public static void print(Plan plan, String planName, PrintWriter out) {
        print(PlanView.of(plan), planName, out);
    }

    /**
     * The plan's tables from its file alone and, given its result file, what {@code execute} did with it, as
     * {@code render --text} prints them.
     *
     * @param result     null for the plan alone: then the commands that apply it follow
     * @throws dev.uncleanrecovery.UserInputException when the result is not of this plan
     */
    public static void print(Plan plan, String planName, ResultFile result, String resultName, PrintWriter out) {
        print(PlanView.of(plan, planName, result, resultName), planName, out);
        if (result == null && !plan.partitions().isEmpty()) {
            out.println();
            out.println("Nothing has been changed. After review, apply it with:");
            Table.printCommand(out, PlanView.applyCommand(plan, planName), 2);
            out.println("Where execute --require-approval is the rule, approve it first, then apply it with"
                    + " --require-approval:");
            Table.printCommand(out, PlanView.approveCommand(planName), 2);
            Table.printCommand(out, PlanView.applyApprovedCommand(plan, planName, true), 2);
        } else if (result != null) {
            out.println();
            Table.printWrapped(out, "What execute did: " + resultName + ", started " + result.startedAt() + ", "
                    + result.elector(), 4);
            ExecutionReport.print(result, out);
        }
        out.flush();
    }

    /**
     * The command that applies an approved plan, whole, for {@code plan approve} to print.
     *
     * @param signed  the approval is signed: execute checks it against an allowed_signers file
     * @param allowed the options that weaken a safeguard the approval allows ("--no-salvage")
     */
    public static void printApplyApproved(Plan plan, String planPath, boolean signed, List<String> allowed,
                                          PrintWriter out) {
        out.println("Apply it with:");
        Table.printCommand(out, PlanView.applyApprovedCommand(plan, planPath, signed), 2);
        if (!allowed.isEmpty()) {
            Table.printWrapped(out, "  (the approval also allows " + String.join(" ", allowed) + ")", 4);
        }
    }

    static void print(PlanView view, String planName, PrintWriter out) {
        Plan plan = view.plan();
        for (String note : plan.notes()) {
            Table.printWrapped(out, "NOTE " + note, 5);
        }
        if (!plan.notes().isEmpty()) {
            out.println();
        }
        out.println("Partitions to elect: " + (plan.partitions().isEmpty() ? "none" : plan.partitions().size())
                + " (strategy " + plan.strategy().spelling() + ")");
        if (!plan.partitions().isEmpty()) {
            // the reason, the longest cell by far, goes under its row
            Table table = new Table("PARTITION", "DESIGNATED LEADER", "OTHER REPLICAS", "EXPECTED TRUNCATION");
            PartitionRows.into(view.elections(), table);
            table.print(out);
            out.println("(epoch: the replica's last written leader epoch; LEO: its log end offset; HW: its high"
                    + " watermark)");
            printConsumerGroupsAhead(plan, out);
        }
        if (!plan.skipped().isEmpty()) {
            out.println();
            out.println("Skipped: " + plan.skipped().size());
            Table table = new Table("PARTITION", "REASON");
            PartitionRows.into(view.skipped(), table);
            table.print(out);
        }
        printUnanswered(plan, planName, out);
        printFailedLogDirs(plan, out);
    }

    /** The consumer groups that read records the plan destroys: they will reset or detect the truncation. */
    private static void printConsumerGroupsAhead(Plan plan, PrintWriter out) {
        long offsets = PlanView.groupOffsets(plan.partitions());
        if (offsets == 0) {
            return;
        }
        out.println();
        Table.printWrapped(out, "Consumer groups past the new log end (they read records this plan destroys): "
                + PlanView.consumerGroupCount(PlanView.consumerGroups(plan.partitions()), offsets), 4);
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
     * The replicas whose broker is up but whose log directory failed, once per broker, unless their logs were read off
     * that directory already: only that read can state what they lose, and only a copy from there can save it.
     */
    private static void printFailedLogDirs(Plan plan, PrintWriter out) {
        Map<Integer, List<String>> byBroker = new TreeMap<>();
        Stream.concat(plan.partitions().stream().map(p -> Map.entry(p.topic() + "-" + p.partition(), p.evidence())),
                        plan.skipped().stream().map(p -> Map.entry(p.topic() + "-" + p.partition(), p.evidence())))
                .forEach(partition -> PlanView.oneEach(partition.getValue()).stream()
                        .filter(e -> e.status() == EvidenceStatus.LOG_DIR_OFFLINE)
                        .forEach(e -> byBroker.computeIfAbsent(e.broker(), b -> new ArrayList<>())
                                .add(partition.getKey())));
        byBroker.forEach((broker, partitions) -> Table.printWrapped(out, "FAILED LOG DIRECTORY on live broker " + broker
                + ": its replica(s) of " + String.join(", ", partitions) + " cannot lead and their logs are unknown;"
                + " 'inspect --log-dir' on that directory, if it can still be read, gives them (pass with --evidence;"
                + " 'inspect --salvage-beyond' then copies what they lose)", 4));
    }

    /**
     * Why brokers did not answer, once per broker, and what to do about a fenced one: the tables only say
     * "(UNREACHABLE)" or "unknown", because a broker that is down or hung fails every partition it holds the same
     * way. A plan written before it had unansweredBrokers gets the same from its evidence, once per broker and error.
     */
    private static void printUnanswered(Plan plan, String planName, PrintWriter out) {
        if (!plan.unansweredBrokers().isEmpty()) {
            out.println();
            for (PlanUnansweredBroker b : plan.unansweredBrokers()) {
                Table.printWrapped(out, "UNANSWERED broker " + b.broker() + (b.address() == null ? ""
                        : " (" + b.address() + ")") + ", " + b.replicasUnknown() + " of " + b.replicas()
                        + " replica(s) unknown: " + b.reason(), 4);
                String next = PlanView.nextStep(b, planName);
                if (next != null) {
                    Table.printWrapped(out, "    Next: " + next, 4);
                }
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
}
