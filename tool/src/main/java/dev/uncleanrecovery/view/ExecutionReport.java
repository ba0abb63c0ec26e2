// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.view;

import dev.uncleanrecovery.execute.ExecutionResult;
import dev.uncleanrecovery.execute.MeasuredTruncation;
import dev.uncleanrecovery.formats.Json;
import dev.uncleanrecovery.formats.Plan;
import dev.uncleanrecovery.formats.ResultFile;
import dev.uncleanrecovery.recovery.ConsumerOffsetRepair;
import dev.uncleanrecovery.salvage.SalvageSource;
import dev.uncleanrecovery.support.Durations;
import dev.uncleanrecovery.support.OnItsOwnThread;
import dev.uncleanrecovery.support.Sizes;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.kafka.common.TopicPartition;

/**
 * What {@code execute} and {@code recover --automated-recovery} print and write of an execution: the result file, the
 * outcomes, salvage, truncations, transactions and warnings, and the page when asked for.
 */
public final class ExecutionReport {

    private ExecutionReport() {
    }

    /**
     * The page of the plan and this run's result, when {@code --html} asked for one.
     *
     * @param file null when none was asked for
     */
    public record Page(Path file, Plan plan) {

        /** No page asked for. */
        public static final Page NONE = new Page(null, null);

        /**
         * Writes it, naming the result file, or the dry run that wrote none.
         *
         * @param out where to say so; null with --output json, whose standard output is the JSON alone
         */
        void write(ResultFile result, Path resultFile, PrintWriter out) throws IOException {
            if (file == null) {
                return;
            }
            PlanPage.write(file, plan, Path.of(result.planFile()).getFileName().toString(), result,
                    resultFile == null ? "a dry run (no result file)" : resultFile.getFileName().toString());
            if (out != null) {
                out.println("Page written to " + file.toAbsolutePath() + " (open it in a browser).");
            }
        }
    }

    /** Told what the result file records, before it is written and again with where it was (the audit log's). */
    @FunctionalInterface
    public interface Written {
        Written NONE = (file, where) -> { };

        /** @param where null until the file is on the disk (and when none is written: a dry run) */
        void recorded(ResultFile file, Path where);
    }

    /**
     * Writes the result file and prints the summary.
     *
     * @param elected    {@code result} as the result file holds it ({@link ExecutionResult#toResultFile})
     * @param repair     what {@code --reset-consumer-offsets} did, recorded in the file; null when not asked for
     * @param resultFile where the result goes (the first free name from there on); null for a dry run: no file
     * @param json       {@code --output json}: the result file's content is the output
     * @param written    told what the file records, and where it went
     */
    // The file is written on a thread of its own while the outcomes are printed: with thousands of partitions both
    // take a while. The outcomes are shown even when the file cannot be written; that failure is raised after them.
    public static void print(ExecutionResult result, ResultFile elected, ConsumerOffsetRepair.Repair repair,
                             Path resultFile, boolean json, PrintWriter out, Page page, Written written)
            throws IOException {
        ResultFile file = repair == null ? elected : elected.withConsumerOffsetResets(repair.resets());
        written.recorded(file, null);
        CompletableFuture<Path> writing = resultFile == null ? CompletableFuture.completedFuture(null)
                : OnItsOwnThread.run("result-file", () -> {
                    Path where = ResultFile.write(resultFile, file);
                    written.recorded(file, where);
                    return where;
                });
        print(result, file, repair, resultFile, json, out, page, writing);
    }

    private static void print(ExecutionResult result, ResultFile file, ConsumerOffsetRepair.Repair repair,
                              Path resultFile, boolean json, PrintWriter out, Page page,
                              CompletableFuture<Path> written) throws IOException {
        if (json) {
            out.println(Json.mapper().writeValueAsString(file));
            page.write(file, awaitWritten(written), null);
        } else {
            print(file, repair, resultFile == null, result.hanging() == null ? null : result.hanging().notNeeded(),
                    out);
            out.flush();
            Path where = awaitWritten(written);
            if (where != null) {
                out.println("Result written to " + where);
            }
            page.write(file, where, out);
        }
    }

    /**
     * What a run did, from its result file alone, as {@code execute} printed it: {@code render --text --result}.
     */
    public static void print(ResultFile file, PrintWriter out) {
        print(file, null, false, null, out);
    }

    /**
     * The outcomes, the summary, salvage, truncations, consumer offsets, hanging transactions and warnings.
     *
     * @param repair            what the run's offset repair did, with its notes; null: what the file records, if any
     * @param dryRun            a dry run, which writes no file
     * @param hangingNotNeeded  why no partition was asked for hanging transactions; null when they were (or not known)
     */
    private static void print(ResultFile file, ConsumerOffsetRepair.Repair repair, boolean dryRun,
                              String hangingNotNeeded, PrintWriter out) {
        Table table = new Table("PARTITION", "DESIGNATED", "OUTCOME", "DETAIL");
        PartitionRows rows = new PartitionRows();
        for (ResultFile.Partition p : file.partitions()) {
            rows.add(new TopicPartition(p.topic(), p.partition()), null, p.designatedLeader(), p.outcome(), p.detail());
        }
        rows.into(table);
        table.print(out);
        out.println();
        ResultFile.Summary s = file.summary();
        if (dryRun) {
            out.printf("Dry run: %d would be elected, %d already recovered, %d refused (%d ms). Nothing was changed.%n",
                    s.wouldElect(), s.alreadyRecovered(), s.refused(), file.elapsedMs());
        } else {
            out.printf("%d elected, %d already recovered, %d refused, %d elected another replica, %d failed"
                    + " (%d ms, %s)%n", s.elected(), s.alreadyRecovered(), s.refused(), s.electedOther(), s.failed(), file.elapsedMs(),
                    electorName(file.elector()));
            if (file.leadersShownMs() != null) {
                out.println("Every live broker's metadata showed every new leader "
                        + Durations.human(Duration.ofMillis(file.leadersShownMs()))
                        + " after the controller's answer to the election.");
            }
        }
        printSalvaged(file, out);
        printTruncations(file, out);
        ConsumerOffsetRepair.Repair resets = repair != null || file.consumerOffsetResets() == null ? repair
                : new ConsumerOffsetRepair.Repair(file.consumerOffsetResets(), List.of(),
                        (int) (s.elected() + s.electedOther()));
        if (resets != null) {
            ConsumerOffsetTable.print(resets, !dryRun, out);
        }
        if (file.hangingTransactions() != null && file.hangingTransactions().isEmpty()
                && file.warnings().stream().noneMatch(w -> w.startsWith(ExecutionResult.NOT_CHECKED_FOR_HANGING))) {
            Table.printWrapped(out, "Hanging transactions on the elected partitions: none"
                    + (hangingNotNeeded == null ? "" : " (" + hangingNotNeeded + ")"), 4);
        }
        if (file.hangingTransactions() != null) {
            file.hangingTransactions().stream().filter(h -> Boolean.TRUE.equals(h.aborted())).forEach(h ->
                    Table.printWrapped(out, "Aborted the hanging transaction on " + h.topic() + "-" + h.partition()
                            + " (producer id " + h.producerId() + ", epoch " + h.producerEpoch() + ", from offset "
                            + h.startOffset() + "): read_committed consumers read on", 4));
        }
        file.warnings().forEach(warning -> printWarning(warning, out));
    }

    /** Where a warning's command to paste begins: every one the tool suggests is one of Kafka's own tools. */
    private static final String COMMAND_START = "with: kafka-";

    /**
     * A warning wrapped to the terminal, the command in it (an abort, a find-hanging) on lines of its own, whole or
     * with shell continuations, so it can be pasted; what follows the command in brackets is wrapped again.
     */
    static void printWarning(String warning, PrintWriter out) {
        int at = warning.indexOf(COMMAND_START);
        if (at < 0) {
            Table.printWrapped(out, "WARNING: " + warning, 4);
            return;
        }
        int commandAt = at + COMMAND_START.length() - "kafka-".length();
        int after = warning.indexOf(" (", commandAt);
        String command = after < 0 ? warning.substring(commandAt) : warning.substring(commandAt, after);
        Table.printWrapped(out, "WARNING: " + warning.substring(0, commandAt).trim(), 4);
        Table.printCommand(out, command, 4);
        if (after >= 0) {
            Table.printWrapped(out, "    " + warning.substring(after + 1), 4);
        }
    }

    private static final int TRUNCATIONS_SHOWN = 20;

    /**
     * What the replicas of the elected partitions lose, as planned and as the brokers answer after the election:
     * only replicas that lose something or whose measurement differs from the plan.
     */
    private static void printTruncations(ResultFile file, PrintWriter out) {
        List<String> lines = new ArrayList<>();
        file.partitions().stream().filter(p -> p.truncations() != null)
                .sorted(Comparator.comparing(p -> p.topic() + "-" + p.partition()))
                .forEach(p -> p.truncations().stream().map(ExecutionReport::measured)
                        .filter(t -> !t.asPlanned() || t.measuredRecords() > 0)
                        .forEach(t -> lines.add(p.topic() + "-" + p.partition() + " replica " + t.broker() + ": loses "
                                + (t.isMeasured() ? t.measuredRecords() + " [" + t.measuredFrom() + ".." + t.logEnd() + ")"
                                        : "? (the brokers did not answer)")
                                + (t.asPlanned() ? ", as planned"
                                        : t.plannedFrom() < 0 ? ", the plan did not know"
                                        : ", the plan said " + t.plannedRecords() + " [" + t.plannedFrom() + ".."
                                                + t.logEnd() + ")"))));
        if (lines.isEmpty()) {
            return;
        }
        out.println("Truncation, read back after the election:");
        lines.stream().limit(TRUNCATIONS_SHOWN).forEach(line -> out.println("  " + line));
        if (lines.size() > TRUNCATIONS_SHOWN) {
            out.println("  ... " + (lines.size() - TRUNCATIONS_SHOWN) + " more in the result file");
        }
    }

    private static MeasuredTruncation measured(ResultFile.Truncation t) {
        return new MeasuredTruncation(t.broker(), t.plannedFromOffset() == null ? -1 : t.plannedFromOffset(),
                t.measuredFromOffset() == null ? -1 : t.measuredFromOffset(), t.toOffset());
    }

    /**
     * One line per range copied before electing, "diverge-0 replica 3 [10..30): 20 records, 1.6 KiB" (a long
     * partition name shortened in the middle, as {@link PartitionRows} does, to keep it within 120 columns); the
     * directory is said once, the files are in the result file.
     */
    private static void printSalvaged(ResultFile file, PrintWriter out) {
        if (file.salvage() != null) {
            out.println("Salvage: " + file.salvage());
        }
        List<ResultFile.Partition> copied = file.partitions().stream()
                .filter(p -> p.salvaged() != null && !p.salvaged().isEmpty())
                .sorted(Comparator.comparing(p -> p.topic() + "-" + p.partition())).toList();
        if (copied.isEmpty()) {
            return;
        }
        out.println("Salvaged before electing, into " + file.salvageDir() + ":");
        List<String> lines = new ArrayList<>();
        boolean[] future = new boolean[1];
        copied.forEach(p -> p.salvaged().forEach(f -> {
            boolean aboveHighWatermark = f.sources().contains(SalvageSource.FETCH_FUTURE_REPLICA.name());
            future[0] |= aboveHighWatermark;
            lines.add(shortened(p.topic() + "-" + p.partition()) + " replica " + f.broker() + " [" + f.fromOffset()
                    + ".." + f.toOffset() + "): " + f.records() + " records, " + Sizes.human(f.bytes())
                    + (aboveHighWatermark ? " *" : ""));
        }));
        lines.stream().limit(TRUNCATIONS_SHOWN).forEach(line -> out.println("  " + line));
        if (lines.size() > TRUNCATIONS_SHOWN) {
            out.println("  ... " + (lines.size() - TRUNCATIONS_SHOWN) + " more in the result file");
        }
        if (future[0]) {
            out.println("  * read above the replica's high watermark with Fetch ReplicaId -3 (undocumented Kafka behaviour)");
        }
    }

    private static String shortened(String partition) {
        if (partition.length() <= PartitionRows.LABEL_WIDTH) {
            return partition;
        }
        int keep = (PartitionRows.LABEL_WIDTH - 1) / 2;
        return partition.substring(0, keep) + "…" + partition.substring(partition.length() - keep);
    }

    /** {@link OnItsOwnThread#join}, which rethrows unchecked failures as they are, and the write's IOException too. */
    private static Path awaitWritten(CompletableFuture<Path> written) throws IOException {
        try {
            return OnItsOwnThread.join(written);
        } catch (CompletionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw e;
        }
    }

    /** "stock elector", "native": what the progress line and the result file explain in full. */
    static String electorName(String described) {
        int end = described.length();
        for (String stop : List.of(" (", ":")) {
            int at = described.indexOf(stop);
            if (at > 0 && at < end) {
                end = at;
            }
        }
        return described.substring(0, end);
    }
}
