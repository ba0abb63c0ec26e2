// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import dev.uncleanrecovery.execute.ExecutionResult;
import dev.uncleanrecovery.execute.Outcome;
import dev.uncleanrecovery.execute.PartitionOutcome;
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
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.kafka.common.TopicPartition;

/**
 * What {@code execute} and {@code recover --automated-recovery} print and write of an execution: the result file, the
 * outcomes, salvage, truncations, transactions and warnings, and the page when asked for.
 */
final class ExecutionReport {

    private ExecutionReport() {
    }

    /**
     * The page of the plan and this run's result, when {@code --html} asked for one.
     *
     * @param file null when none was asked for
     */
    record Page(Path file, Plan plan) {

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
    interface Written {
        Written NONE = (file, where) -> { };

        /** @param where null until the file is on the disk (and when none is written: a dry run) */
        void recorded(ResultFile file, Path where);
    }

    /** {@link #print(ExecutionResult, ResultFile, ConsumerOffsetRepair.Repair, Path, GlobalOptions, PrintWriter, Page)}
     * without a page or an offset repair. */
    static int print(ExecutionResult result, Path resultFile, GlobalOptions global, PrintWriter out) throws IOException {
        return print(result, resultFile, global, out, new Page(null, null));
    }

    /** Without an offset repair. */
    static int print(ExecutionResult result, Path resultFile, GlobalOptions global, PrintWriter out, Page page)
            throws IOException {
        return print(result, resultFile(result, global), null, resultFile, global, out, page, Written.NONE);
    }

    /** The result file's content of {@code result}, as {@link #print} writes it (before any offset repair). */
    static ResultFile resultFile(ExecutionResult result, GlobalOptions global) {
        return result.toResultFile(ToolVersion.describe(), global.bootstrapServer);
    }

    /**
     * Writes the result file and prints the summary.
     *
     * @param elected    {@code result} as the result file holds it ({@link #resultFile})
     * @param repair     what {@code --reset-consumer-offsets} did, recorded in the file; null when not asked for
     * @param resultFile where the result goes (the first free name from there on); null for a dry run: no file
     * @param written    told what the file records, and where it went
     */
    // The file is written on a thread of its own while the outcomes are printed: with thousands of partitions both
    // take a while. The outcomes are shown even when the file cannot be written; that failure is raised after them.
    static int print(ExecutionResult result, ResultFile elected, ConsumerOffsetRepair.Repair repair, Path resultFile,
                     GlobalOptions global, PrintWriter out, Page page, Written written) throws IOException {
        ResultFile file = repair == null ? elected : elected.withConsumerOffsetResets(repair.resets());
        written.recorded(file, null);
        CompletableFuture<Path> writing = resultFile == null ? CompletableFuture.completedFuture(null)
                : OnItsOwnThread.run("result-file", () -> {
                    Path where = ResultFile.write(resultFile, file);
                    written.recorded(file, where);
                    return where;
                });
        return print(result, file, repair, resultFile, global, out, page, writing);
    }

    private static int print(ExecutionResult result, ResultFile file, ConsumerOffsetRepair.Repair repair,
                             Path resultFile, GlobalOptions global, PrintWriter out, Page page,
                             CompletableFuture<Path> written) throws IOException {
        if (global.output == GlobalOptions.OutputFormat.json) {
            out.println(Json.mapper().writeValueAsString(file));
            page.write(file, awaitWritten(written), null);
        } else {
            Table table = new Table("PARTITION", "DESIGNATED", "OUTCOME", "DETAIL");
            PartitionRows rows = new PartitionRows();
            for (PartitionOutcome p : result.partitions()) {
                rows.add(p.topicPartition(), null, p.designatedLeader(), p.outcome(), p.detail());
            }
            rows.into(table);
            table.print(out);
            out.println();
            if (resultFile == null) {
                out.printf("Dry run: %d would be elected, %d already recovered, %d refused (%d ms). Nothing was changed.%n",
                        result.count(Outcome.WOULD_ELECT), result.count(Outcome.ALREADY_RECOVERED),
                        result.count(Outcome.REFUSED), result.elapsed().toMillis());
            } else {
                out.printf("%d elected, %d already recovered, %d refused, %d elected another replica, %d failed (%d ms, %s)%n",
                        result.count(Outcome.ELECTED), result.count(Outcome.ALREADY_RECOVERED), result.count(Outcome.REFUSED),
                        result.count(Outcome.ELECTED_OTHER), result.count(Outcome.FAILED), result.elapsed().toMillis(),
                        electorName(result.elector()));
                if (result.leadersShownAfter() != null) {
                    out.println("Every live broker's metadata showed every new leader "
                            + Durations.human(result.leadersShownAfter()) + " after the controller's answer to the"
                            + " election.");
                }
            }
            printSalvaged(result, out);
            printTruncations(result, out);
            if (repair != null) {
                ConsumerOffsetTable.print(repair, resultFile != null, out);
            }
            if (file.hangingTransactions() != null && file.hangingTransactions().isEmpty()
                    && result.hanging().unreadable().isEmpty()) {
                Table.printWrapped(out, "Hanging transactions on the elected partitions: none"
                        + (result.hanging().notNeeded() == null ? "" : " (" + result.hanging().notNeeded() + ")"), 4);
            }
            if (file.hangingTransactions() != null) {
                file.hangingTransactions().stream().filter(h -> Boolean.TRUE.equals(h.aborted())).forEach(h ->
                        Table.printWrapped(out, "Aborted the hanging transaction on " + h.topic() + "-" + h.partition()
                                + " (producer id " + h.producerId() + ", epoch " + h.producerEpoch() + ", from offset "
                                + h.startOffset() + "): read_committed consumers read on", 4));
            }
            file.warnings().forEach(warning -> printWarning(warning, out));
            out.flush();
            Path where = awaitWritten(written);
            if (where != null) {
                out.println("Result written to " + where);
            }
            page.write(file, where, out);
        }
        if (result.count(Outcome.FAILED) > 0 || result.anyElectedOther()) {
            return ExitCode.FAILURE;
        }
        if (result.needsAttention()) {
            return ExitCode.ATTENTION;
        }
        return repair == null ? ExitCode.OK : ConsumerOffsetTable.exitCode(repair);
    }

    /** At most this many replicas' losses are printed; the result file has them all. */
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
    private static void printTruncations(ExecutionResult result, PrintWriter out) {
        List<String> lines = new ArrayList<>();
        result.truncations().entrySet().stream()
                .sorted(Map.Entry.comparingByKey(Comparator.comparing(TopicPartition::toString)))
                .forEach(e -> e.getValue().stream()
                        .filter(t -> !t.asPlanned() || t.measuredRecords() > 0)
                        .forEach(t -> lines.add(e.getKey() + " replica " + t.broker() + ": loses "
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

    /**
     * One line per range copied before electing, "diverge-0 replica 3 [10..30): 20 records, 1.6 KiB" (a long
     * partition name shortened in the middle, as {@link PartitionRows} does, to keep it within 120 columns); the
     * directory is said once, the files are in the result file.
     */
    private static void printSalvaged(ExecutionResult result, PrintWriter out) {
        if (result.salvageNote() != null) {
            out.println("Salvage: " + result.salvageNote());
        }
        if (result.salvaged().isEmpty()) {
            return;
        }
        out.println("Salvaged before electing, into " + result.salvageDir() + ":");
        List<String> lines = new ArrayList<>();
        boolean[] future = new boolean[1];
        result.salvaged().entrySet().stream()
                .sorted(Map.Entry.comparingByKey(Comparator.comparing(TopicPartition::toString)))
                .forEach(e -> e.getValue().forEach(f -> {
                    boolean aboveHighWatermark = f.sources().contains(SalvageSource.FETCH_FUTURE_REPLICA);
                    future[0] |= aboveHighWatermark;
                    lines.add(shortened(e.getKey().toString()) + " replica " + f.range().broker() + " ["
                            + f.range().fromOffset() + ".." + f.range().toOffset() + "): " + f.records() + " records, "
                            + Sizes.human(f.bytes()) + (aboveHighWatermark ? " *" : ""));
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
