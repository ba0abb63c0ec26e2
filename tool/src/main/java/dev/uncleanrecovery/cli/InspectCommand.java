// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import dev.uncleanrecovery.UserInputException;
import dev.uncleanrecovery.logdir.LogDirInspector;
import dev.uncleanrecovery.logdir.LogDirReport;
import dev.uncleanrecovery.logdir.LogDirSummary;
import dev.uncleanrecovery.logdir.PartitionFilter;
import dev.uncleanrecovery.logdir.PartitionLogSummary;
import dev.uncleanrecovery.logdir.SkippedDirectory;
import dev.uncleanrecovery.formats.EvidenceFile;
import dev.uncleanrecovery.recovery.DiskSalvageFlow;
import dev.uncleanrecovery.support.RunFiles;
import dev.uncleanrecovery.view.DiskSalvageReport;
import dev.uncleanrecovery.view.Table;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

@Command(name = "inspect", mixinStandardHelpOptions = true, sortOptions = false,
        header = "Read a stopped broker's log dirs from disk (no network, read-only) and write evidence JSON.",
        description = {"Read a stopped broker's log dirs from disk (no network) and write evidence JSON: per partition the "
                + "log end offset and last written leader epoch the broker will have after it restarts (log recovery "
                + "included), and whether it stopped cleanly. Read-only: nothing in the log dirs is written, locked or "
                + "renamed.",
            "With --salvage-beyond PLAN: instead, copy the records each planned election will truncate on this broker "
                + "(from the planned cut to its log end on disk) into the salvage directory."},
        exitCodeListHeading = ExitCode.HELP_HEADING,
        exitCodeList = {"0:every selected partition was read (or copied)", ExitCode.FAILURE_HELP, ExitCode.USAGE_HELP,
            "3:some could not be read (or copied)"})
public class InspectCommand implements Callable<Integer> {

    private static final DateTimeFormatter FILE_TIMESTAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC);

    @Spec
    CommandSpec spec;

    @ParentCommand
    RootCommand root;

    @Option(names = "--log-dir", paramLabel = "DIR", required = true, split = ",",
            description = "The stopped broker's log.dirs entries (repeat or comma separate); all of one broker.")
    List<Path> logDirs;

    @Mixin
    SelectionOptions select;

    @Option(names = "--output-file", paramLabel = "FILE",
            description = "Where to write the evidence (default: evidence-broker-<id>-<UTC timestamp>.json)."
                    + " Never inside a log dir; never overwrites.")
    Path outputFile;

    @Option(names = "--salvage-beyond", paramLabel = "PLAN.json",
            description = "Copy, byte for byte, the batches this broker holds beyond each planned election's cut"
                    + " (the plan's EXACT truncation of it, else the designated leader's log end) into the salvage"
                    + " directory, before the broker restarts and truncates them. Writes no evidence.")
    Path salvagePlan;

    @Option(names = "--salvage-dir", paramLabel = "DIR",
            description = "With --salvage-beyond: where the copies go (default: <plan>-salvage/ beside the plan)."
                    + " Never inside a log dir.")
    Path salvageDir;

    @Override
    public Integer call() throws Exception {
        new RunFiles().reads("--path-to-json-file", select.jsonFile).reads("--salvage-beyond", salvagePlan)
                .creates("--output-file", outputFile).createsIn("--salvage-dir", salvageDir, List.of()).check();
        if (salvagePlan != null) {
            if (outputFile != null) {
                throw new UserInputException("--output-file names an evidence file, and --salvage-beyond writes none:"
                        + " give one or the other");
            }
            DiskSalvageReport report = new DiskSalvageReport(spec.commandLine().getOut(), spec.commandLine().getErr(),
                    root.global.output == GlobalOptions.OutputFormat.json);
            DiskSalvageFlow.Copied copied = DiskSalvageFlow.copy(logDirs, select.logDirFilter(), salvagePlan,
                    salvageDir, ToolVersion.describe(), report.progress());
            report.print(copied, salvagePlan);
            return ExitCode.of(copied);
        }
        if (salvageDir != null) {
            throw new UserInputException("--salvage-dir needs --salvage-beyond PLAN.json");
        }
        PartitionFilter filter = select.logDirFilter();
        LogDirReport report = new LogDirInspector().inspect(logDirs, filter);
        if (report.brokerId() < 0) {
            throw new UserInputException("no --log-dir has a readable meta.properties, so the broker these logs belong"
                    + " to is unknown: pass the broker's log.dirs entries (" + report.logDirs().get(0).error() + ")");
        }
        EvidenceFile evidence = EvidenceFile.from(report, ToolVersion.describe());
        Path file = outputFile != null ? outputFile
                : Path.of("evidence-broker-" + report.brokerId() + "-" + FILE_TIMESTAMP.format(report.inspectedAt()) + ".json");
        report.requireOutside("--output-file", file);
        evidence.write(file);

        PrintWriter out = spec.commandLine().getOut();
        if (root.global.output == GlobalOptions.OutputFormat.json) {
            out.print(evidence.toJson());
        } else {
            print(report, filter, file, out);
        }
        boolean complete = report.partitions().stream().allMatch(PartitionLogSummary::isReadable)
                && report.logDirs().stream().allMatch(d -> d.error() == null);
        return complete ? ExitCode.OK : ExitCode.ATTENTION;
    }

    /** What inspect found, in lines of at most {@link Table#MAX_WIDTH}: long names and paths wrap, indented. */
    private static void print(LogDirReport report, PartitionFilter filter, Path file, PrintWriter out) {
        Table.printWrapped(out, String.format("Broker %d%s, %s: %s", report.brokerId(),
                report.clusterId() == null ? "" : " of cluster " + report.clusterId(), filter,
                report.cleanShutdown() ? "stopped cleanly (broker epoch " + report.brokerEpoch() + ")"
                        : "did NOT stop cleanly"), 2);
        if (!report.cleanShutdown()) {
            out.println("  Kafka will run log recovery and the controller treats the restart as unclean");
        }
        for (LogDirSummary dir : report.logDirs()) {
            Table.printWrapped(out, "  log dir " + dir.path() + (dir.error() == null ? "" : ": " + dir.error()), 4);
        }
        out.println();
        if (report.partitions().isEmpty()) {
            Table.printWrapped(out, "No partition directory matches " + filter + ".", 2);
        } else {
            Table table = new Table("TOPIC", "PARTITION", "LOG-START", "LOG-END", "LAST-WRITTEN-EPOCH", "INVALID-TAIL-BYTES", "STATUS");
            for (PartitionLogSummary p : report.partitions()) {
                table.row(p.topic(), p.partition(), known(p.logStartOffset()), known(p.logEndOffset()),
                        p.isReadable() ? p.lastWrittenLeaderEpoch() : null, p.invalidTailBytes(),
                        p.isReadable() ? (p.notes().isEmpty() ? "ok" : "ok, see notes") : "ERROR");
            }
            table.print(out);
        }
        for (PartitionLogSummary p : report.partitions()) {
            if (p.error() != null) {
                Table.printWrapped(out, "  " + p.topicPartition() + " (" + p.logDir() + "): ERROR " + p.error(), 4);
            }
            for (String note : p.notes()) {
                Table.printWrapped(out, "  " + p.topicPartition() + ": " + note, 4);
            }
        }
        if (!report.skipped().isEmpty()) {
            out.println();
            out.println("Skipped directories:");
            for (SkippedDirectory s : report.skipped()) {
                Table.printWrapped(out, "  " + s.logDir().resolve(s.directory()) + ": " + s.reason(), 4);
            }
        }
        out.println();
        Table.printWrapped(out, "Evidence written to " + file.toAbsolutePath() + " (" + report.partitions().size()
                + " partition(s)); nothing in the log dirs was changed.", 2);
    }

    private static Object known(long value) {
        return value < 0 ? null : value;
    }
}
