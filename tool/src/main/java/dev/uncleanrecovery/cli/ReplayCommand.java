// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import dev.uncleanrecovery.UserInputException;
import dev.uncleanrecovery.formats.AuditLine;
import dev.uncleanrecovery.formats.Json;
import dev.uncleanrecovery.formats.ResultFile;
import dev.uncleanrecovery.salvage.EarlierReplays;
import dev.uncleanrecovery.salvage.SalvageChain;
import dev.uncleanrecovery.salvage.SalvageDirectory;
import dev.uncleanrecovery.salvage.SalvageReplay;
import dev.uncleanrecovery.salvage.SalvageReplay.PartitionMap;
import dev.uncleanrecovery.salvage.SalvageReplay.Progress;
import dev.uncleanrecovery.salvage.SalvageReplay.RangeCounts;
import dev.uncleanrecovery.salvage.SalvageReplay.Sample;
import dev.uncleanrecovery.view.Table;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

@Command(name = "replay", mixinStandardHelpOptions = true, sortOptions = false,
        header = "Produce salvaged records back into a topic you name (dry run unless --execute).",
        description = {"Produce the records 'execute' salvaged before an election truncated them into a topic you name, "
                + "with their keys, values, headers and timestamps and salvage.* headers saying where they come from. "
                + "Control records, aborted transactions and transactions with no marker in the salvage are skipped. "
                + "Dry run unless --execute: shows what would be produced and writes nothing.",
            "Before producing, the salvage is checked against the result file of the run that made it (--result-file): "
                + "each manifest's SHA-256 there, each segment file's in the manifest. A copy 'inspect "
                + "--salvage-beyond' made that no result records is replayed (checked against its manifest) when a "
                + "result records its partition led by another replica, left when the results name the partition but "
                + "none elected it, and refused when none names it. Each record is produced once: "
                + "a replay run again after a failure finds what an earlier one put into the topic (its journal "
                + "replay-into-<topic>.json in the salvage directory, and the salvage.* headers in the topic) and "
                + "skips it."},
        exitCodeListHeading = ExitCode.HELP_HEADING,
        exitCodeList = {"0:done or shown", ExitCode.FAILURE_HELP, ExitCode.USAGE_HELP + " (an unknown topic, a file"
                + " that differs from its manifest or from the result file)", ExitCode.UNREACHABLE_HELP})
public class ReplayCommand implements Callable<Integer> {

    private static final int SAMPLES = 5;
    private static final int SHOWN_BYTES = 40;

    @Spec
    CommandSpec spec;

    @ParentCommand
    RootCommand root;

    @Option(names = "--salvage-dir", paramLabel = "DIR", required = true,
            description = "The salvage directory 'execute' wrote (<plan>-salvage beside the plan by default).")
    Path salvageDir;

    @Option(names = "--to-topic", paramLabel = "TOPIC", required = true,
            description = "The existing topic to produce into.")
    String toTopic;

    @Option(names = "--result-file", paramLabel = "FILE",
            description = "The result file of the run that salvaged into the directory ('Result written to' at the end"
                    + " of execute; <plan>-result.json by default). Repeat it when several runs of the plan salvaged"
                    + " there. Needed with --execute unless --without-result.")
    List<Path> resultFiles = new ArrayList<>();

    /** The name --result-file had here before every command spelled it the same. */
    @Option(names = "--result", paramLabel = "FILE", hidden = true)
    List<Path> resultFilesAsTheyWere = new ArrayList<>();

    @Option(names = "--without-result",
            description = "Replay a salvage no result file records ('inspect --salvage-beyond' writes none): each range"
                    + " is checked against its own manifest only.")
    boolean withoutResult;

    @Option(names = "--partition-map", paramLabel = "same|hash", defaultValue = "same",
            description = "same: the partition number the records were salvaged from (default); hash: the producer's"
                    + " partitioner decides by key.")
    PartitionMap partitionMap;

    @Option(names = "--execute", description = "Produce the records; without it nothing is written.")
    boolean execute;

    @Option(names = "--into-original",
            description = "Allow --to-topic to be the topic the records were salvaged from.")
    boolean intoOriginal;

    @Mixin
    AuditOptions audit;

    @Mixin
    ConnectionOptions connection;

    @Override
    public Integer call() throws Exception {
        resultFiles.addAll(resultFilesAsTheyWere);
        if (withoutResult && !resultFiles.isEmpty()) {
            throw new UserInputException("--result-file and --without-result: choose one");
        }
        if (execute) {
            audit.requireReason(spec);
        }
        SalvageDirectory read = SalvageDirectory.read(salvageDir);
        // the usage error first: whatever the chain check leaves out, these records came from that topic
        SalvageReplay.refuseOriginalTopic(read, toTopic, intoOriginal);
        List<String> warnings = new ArrayList<>();
        SalvageChain.Checked chain = checkChain(read, warnings);
        SalvageDirectory salvage = read.without(chain.left());
        PrintWriter out = spec.commandLine().getOut();
        SalvageReplay.Target target = null;
        EarlierReplays earlier = EarlierReplays.notLooked(salvage, toTopic);
        if (execute || root.global.bootstrapServer != null) {
            Properties clientProperties = connection.clientProperties(root.global);
            Duration timeout = Duration.ofMillis(root.global.adminTimeoutMs);
            target = SalvageReplay.describeTarget(clientProperties, toTopic, timeout);
            SalvageReplay.checkPartitions(salvage, target, partitionMap);
            earlier = EarlierReplays.look(salvage, target, clientProperties, timeout);
        }
        String into = "topic '" + toTopic + "'" + (target == null ? " (not checked: no --bootstrap-server)"
                : ", " + target.partitions() + " partition(s)") + ", --partition-map "
                + partitionMap.name().toLowerCase(Locale.ROOT);
        boolean json = root.global.output == GlobalOptions.OutputFormat.json;
        List<RangeCounts> counts = execute && !salvage.ranges().isEmpty()
                ? produce(salvage, target, earlier)
                : SalvageReplay.count(salvage, earlier, SAMPLES);
        if (json) {
            out.println(Json.mapper().writeValueAsString(ReplayReport.of(execute, toTopic, partitionMap, chain,
                    earlier, warnings, counts)));
            return ExitCode.OK;
        }
        if (!execute) {
            out.println("Dry run: nothing is produced (add --execute).");
        }
        int left = read.ranges().size() - salvage.ranges().size();
        out.println("Salvage: " + read.ranges().size() + " range(s) in " + salvageDir + (left == 0 ? ""
                : ", " + left + " of them left there (not cut)"));
        if (!chain.resultFiles().isEmpty()) {
            Table.printWrapped(out, "Checked against " + chain.resultFiles().stream().map(Path::toString)
                    .collect(Collectors.joining(", ")), 4);
        }
        for (SalvageChain.DiskCopy copy : chain.diskCopies()) {
            Table.printWrapped(out, copy.range().describe() + ": " + copy.why(), 4);
        }
        out.println("Into " + into);
        out.println();
        printCounts(counts, execute ? "REPLAYED" : "REPLAY", out);
        long already = counts.stream().mapToLong(RangeCounts::alreadyReplayed).sum();
        if (already > 0) {
            Table.printWrapped(out, already + " record(s) are in " + toTopic + " already, from an earlier replay of this"
                    + " salvage (" + earlier.journalFile() + "): not produced again.", 4);
        }
        if (execute) {
            out.println("Produced " + counts.stream().mapToLong(RangeCounts::replay).sum() + " record(s) into " + toTopic
                    + " (idempotent producer, acks=all).");
        } else {
            printSamples(counts, out);
        }
        if (!warnings.isEmpty()) {
            out.println();
        }
        for (String warning : warnings) {
            Table.printWrapped(out, "WARNING: " + warning, 4);
        }
        return ExitCode.OK;
    }

    /** The records produced, between the audit log's STARTED and FINISHED lines of this run. */
    private List<RangeCounts> produce(SalvageDirectory salvage, SalvageReplay.Target target, EarlierReplays earlier)
            throws Exception {
        AuditTrail trail = audit.start(spec, salvageDir, line -> line.withFiles(
                salvageDir.toAbsolutePath().toString(), null,
                resultFiles.stream().map(p -> p.toAbsolutePath().toString()).toList()));
        List<List<RangeCounts>> produced = new ArrayList<>(1);
        trail.around(() -> {
            List<RangeCounts> counts = SalvageReplay.produce(salvage, target, partitionMap,
                    connection.clientProperties(root.global), earlier, ToolVersion.describe(),
                    progress(spec.commandLine().getErr()));
            for (RangeCounts c : counts) {
                var range = c.range().range();
                trail.outcome(new AuditLine.Outcome(range.partition().topic(), range.partition().partition(),
                        "REPLAYED", null, null, c.replay() + " record(s) of broker " + range.broker() + " ["
                        + range.fromOffset() + ".." + range.toOffset() + ") into " + toTopic
                        + (c.alreadyReplayed() == 0 ? "" : ", " + c.alreadyReplayed() + " there already")));
            }
            produced.add(counts);
            return ExitCode.OK;
        });
        return produced.get(0);
    }

    /**
     * The salvage checked against the result files named; with none, a warning in a dry run and a refusal when
     * producing, unless --without-result.
     */
    private SalvageChain.Checked checkChain(SalvageDirectory salvage, List<String> warnings) throws IOException {
        if (resultFiles.isEmpty()) {
            if (withoutResult) {
                warnings.add("--without-result: the salvage was checked against its own manifests only, not against"
                        + " the result file of a run");
            } else if (execute) {
                throw new UserInputException("replay checks the salvage against the result file of the run that made"
                        + " it: pass --result-file FILE (" + resultHint(salvage.directory()) + "), or --without-result for a"
                        + " salvage no result file records ('inspect --salvage-beyond' writes none)");
            } else {
                warnings.add("not checked against a result file: pass --result-file FILE, as --execute will need ("
                        + resultHint(salvage.directory()) + ")");
            }
            return new SalvageChain.Checked(List.of(), List.of(), List.of());
        }
        Map<Path, ResultFile> results = new LinkedHashMap<>();
        for (Path file : resultFiles) {
            results.put(file, ResultFile.read(file));
        }
        SalvageChain.Checked checked = SalvageChain.check(salvage, results);
        warnings.addAll(checked.warnings());
        return checked;
    }

    /** Where execute's result file would be, when the salvage directory has the name execute gives it by default. */
    private static String resultHint(Path salvageDir) {
        String name = salvageDir.toAbsolutePath().normalize().getFileName().toString();
        if (name.endsWith("-salvage")) {
            Path result = salvageDir.toAbsolutePath().normalize()
                    .resolveSibling(name.substring(0, name.length() - "-salvage".length()) + "-result.json");
            if (Files.isRegularFile(result)) {
                return "execute wrote " + result;
            }
        }
        return "'Result written to' at the end of execute; <plan>-result.json beside the plan by default";
    }

    /**
     * What {@code replay --output json} prints: per range what was (or would be) produced and skipped, and what was
     * already in the target from an earlier replay.
     *
     * @param checkedAgainst the result files the salvage was checked against; empty when none
     * @param journal        the replay journal of this salvage and target (written by --execute)
     * @param diskCopies     the copies of 'inspect --salvage-beyond' no result file records: replayed or left, and why
     */
    record ReplayReport(boolean executed, String toTopic, String partitionMap, List<String> checkedAgainst,
                        String journal, long alreadyReplayed, List<String> warnings, List<Range> ranges,
                        List<DiskCopy> diskCopies) {

        record Range(String topic, int partition, int broker, long fromOffset, long toOffset, long replayed,
                     long alreadyReplayed, long control, long aborted, long noMarker, long beforeRange) {
        }

        record DiskCopy(String topic, int partition, int broker, long fromOffset, long toOffset, boolean replayed,
                        String why) {
        }

        static ReplayReport of(boolean executed, String toTopic, PartitionMap map, SalvageChain.Checked chain,
                               EarlierReplays earlier, List<String> warnings, List<RangeCounts> counts) {
            return new ReplayReport(executed, toTopic, map.name().toLowerCase(Locale.ROOT),
                    chain.resultFiles().stream().map(Path::toString).toList(), earlier.journalFile().toString(),
                    counts.stream().mapToLong(RangeCounts::alreadyReplayed).sum(), List.copyOf(warnings),
                    counts.stream().map(c -> {
                        var range = c.range().range();
                        return new Range(range.partition().topic(), range.partition().partition(), range.broker(),
                                range.fromOffset(), range.toOffset(), c.replay(), c.alreadyReplayed(), c.control(),
                                c.aborted(), c.noMarker(), c.beforeRange());
                    }).toList(),
                    chain.diskCopies().stream().map(c -> {
                        var range = c.range().range();
                        return new DiskCopy(range.partition().topic(), range.partition().partition(), range.broker(),
                                range.fromOffset(), range.toOffset(), c.replayed(), c.why());
                    }).toList());
        }
    }

    private static void printCounts(List<RangeCounts> counts, String replayed, PrintWriter out) {
        boolean anyAlready = counts.stream().anyMatch(c -> c.alreadyReplayed() > 0);
        List<String> columns = new ArrayList<>(List.of("PARTITION", "BROKER", "OFFSETS", replayed));
        if (anyAlready) {
            columns.add("REPLAYED-BEFORE");
        }
        columns.addAll(List.of("CONTROL", "ABORTED", "NO-MARKER", "BEFORE-RANGE"));
        Table table = new Table(columns.toArray(String[]::new));
        for (RangeCounts c : counts) {
            var range = c.range().range();
            List<Object> row = new ArrayList<>(List.of(range.partition(), range.broker(),
                    "[" + range.fromOffset() + ", " + range.toOffset() + ")", c.replay()));
            if (anyAlready) {
                row.add(c.alreadyReplayed());
            }
            row.addAll(List.of(c.control(), c.aborted(), c.noMarker(), c.beforeRange()));
            table.row(row.toArray());
        }
        table.print(out);
        long noMarker = counts.stream().mapToLong(RangeCounts::noMarker).sum();
        long beforeRange = counts.stream().mapToLong(RangeCounts::beforeRange).sum();
        out.println("Not replayed: control records (transaction markers) and records of aborted transactions.");
        if (noMarker > 0) {
            out.println(noMarker + " record(s) of transactions with no marker in the salvage were never committed:"
                    + " not replayed.");
        }
        if (beforeRange > 0) {
            out.println(beforeRange + " record(s) lie below a range's first offset, which the new leader keeps:"
                    + " not replayed.");
        }
    }

    private static void printSamples(List<RangeCounts> counts, PrintWriter out) {
        for (RangeCounts c : counts) {
            if (c.samples().isEmpty()) {
                continue;
            }
            out.println();
            out.println("First records of " + c.range().describe() + ":");
            Table table = new Table("OFFSET", "TIMESTAMP", "KEY", "VALUE");
            for (Sample s : c.samples()) {
                table.row(s.offset(), s.timestamp() < 0 ? "none" : Instant.ofEpochMilli(s.timestamp()),
                        shown(s.key()), shown(s.value()));
            }
            table.print(out);
        }
    }

    /** UTF-8 text where the bytes are printable text, else hex; at most {@value #SHOWN_BYTES} characters. */
    static String shown(byte[] bytes) {
        if (bytes == null) {
            return "null";
        }
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
            if (text.chars().anyMatch(Character::isISOControl)) {
                text = "0x" + HexFormat.of().formatHex(bytes, 0, Math.min(bytes.length, SHOWN_BYTES));
            }
        } catch (CharacterCodingException e) {
            text = "0x" + HexFormat.of().formatHex(bytes, 0, Math.min(bytes.length, SHOWN_BYTES));
        }
        return text.length() <= SHOWN_BYTES ? text : text.substring(0, SHOWN_BYTES - 3) + "...";
    }

    /** Silent for the first second, then at most a line a second, and each range's last count once any was shown. */
    private static Consumer<Progress> progress(PrintWriter err) {
        long startedAt = System.currentTimeMillis();
        long[] lastPrinted = {0};
        return p -> {
            long now = System.currentTimeMillis();
            boolean done = p.sent() == p.total();
            if (now - startedAt >= 1000 && (now - lastPrinted[0] >= 1000 || done && lastPrinted[0] > 0)) {
                lastPrinted[0] = now;
                err.println("replaying " + p.range().describe() + ": " + p.sent() + "/" + p.total() + " records sent");
                err.flush();
            }
        };
    }
}
