// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import dev.uncleanrecovery.salvage.SalvageDirectory;
import dev.uncleanrecovery.salvage.SalvageReplay;
import dev.uncleanrecovery.salvage.SalvageReplay.PartitionMap;
import dev.uncleanrecovery.salvage.SalvageReplay.Progress;
import dev.uncleanrecovery.salvage.SalvageReplay.RangeCounts;
import dev.uncleanrecovery.salvage.SalvageReplay.Sample;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

@Command(name = "replay", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Produce the records 'execute' salvaged before an election truncated them into a topic you name,",
            "with their keys, values, headers and timestamps and salvage.* headers saying where they come from.",
            "Control records, aborted transactions and transactions with no marker in the salvage are skipped.",
            "Dry run unless --execute: shows what would be produced and writes nothing.",
            "Exit 0 when done or shown, 2 on bad input (unknown topic, a file that differs from its manifest)."})
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
    ConnectionOptions connection;

    @Override
    public Integer call() {
        SalvageDirectory salvage = SalvageDirectory.read(salvageDir);
        SalvageReplay.refuseOriginalTopic(salvage, toTopic, intoOriginal);
        PrintWriter out = spec.commandLine().getOut();
        SalvageReplay.Target target = null;
        if (execute || root.global.bootstrapServer != null) {
            target = SalvageReplay.describeTarget(connection.clientProperties(root.global), toTopic,
                    Duration.ofMillis(connection.adminTimeoutMs));
            SalvageReplay.checkPartitions(salvage, target, partitionMap);
        }
        String into = "topic '" + toTopic + "'" + (target == null ? " (not checked: no --bootstrap-server)"
                : ", " + target.partitions() + " partition(s)") + ", --partition-map "
                + partitionMap.name().toLowerCase(Locale.ROOT);
        if (!execute) {
            List<RangeCounts> counts = SalvageReplay.count(salvage, SAMPLES);
            out.println("Dry run: nothing is produced (add --execute). " + salvage.ranges().size()
                    + " salvaged range(s) in " + salvageDir + " into " + into);
            out.println();
            printCounts(counts, "REPLAY", out);
            printSamples(counts, out);
            return ExitCode.OK;
        }
        List<RangeCounts> counts = SalvageReplay.produce(salvage, target, partitionMap,
                connection.clientProperties(root.global), progress(spec.commandLine().getErr()));
        out.println("Replayed " + salvage.ranges().size() + " salvaged range(s) from " + salvageDir + " into " + into);
        out.println();
        printCounts(counts, "REPLAYED", out);
        out.println("Produced " + counts.stream().mapToLong(RangeCounts::replay).sum() + " record(s) into " + toTopic
                + " (idempotent producer, acks=all).");
        return ExitCode.OK;
    }

    private static void printCounts(List<RangeCounts> counts, String replayed, PrintWriter out) {
        Table table = new Table("PARTITION", "BROKER", "OFFSETS", replayed, "CONTROL", "ABORTED", "NO-MARKER",
                "BEFORE-RANGE");
        for (RangeCounts c : counts) {
            var range = c.range().range();
            table.row(range.partition(), range.broker(), "[" + range.fromOffset() + ", " + range.toOffset() + ")",
                    c.replay(), c.control(), c.aborted(), c.noMarker(), c.beforeRange());
        }
        table.print(out);
        long noMarker = counts.stream().mapToLong(RangeCounts::noMarker).sum();
        long beforeRange = counts.stream().mapToLong(RangeCounts::beforeRange).sum();
        out.println("Skipped: control records (transaction markers), records of aborted transactions"
                + (noMarker > 0 ? ", " + noMarker + " record(s) of transactions with no marker in the salvage (never"
                        + " committed)" : "")
                + (beforeRange > 0 ? ", " + beforeRange + " record(s) below a range's first offset (the new leader"
                        + " keeps them)" : "") + ".");
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
