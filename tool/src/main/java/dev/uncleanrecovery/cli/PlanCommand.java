// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import dev.uncleanrecovery.cluster.ClusterDiscovery;
import dev.uncleanrecovery.connect.BrokerNativeSupport;
import dev.uncleanrecovery.connect.BrokerState;
import dev.uncleanrecovery.plan.Json;
import dev.uncleanrecovery.plan.Plan;
import dev.uncleanrecovery.plan.PlanFile;
import dev.uncleanrecovery.recovery.RecoveryPlanning;
import dev.uncleanrecovery.support.Durations;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

@Command(name = "plan", mixinStandardHelpOptions = true, sortOptions = false,
        header = "Probe every replica of the offline partitions and write a reviewable plan; never changes the cluster.",
        description = {"Probe every replica of the offline partitions, choose per partition the replica that loses the least"
                + " (highest last written leader epoch, then longest log), and write a reviewable JSON plan. Never "
                + "changes the cluster. The plan is also valid kafka-leader-election.sh --path-to-json-file input.",
            "Exit 0 when every selected offline partition has a designated leader, 3 when some are skipped or a topic"
                    + " could not be read (deleted meanwhile, no leader yet), 2 when a topic could not be read for want of"
                    + " DESCRIBE on it or does not exist."})
public class PlanCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @ParentCommand
    RootCommand root;

    @Mixin
    SelectionOptions select;

    @Mixin
    PlanOptions planning;

    @Mixin
    ConnectionOptions connection;

    @Option(names = "--kafka-tools", paramLabel = "DIR",
            description = "Also write, into DIR, the same designated elections as steps with Kafka's own tools: "
                    + "kafka-reassign-partitions.sh to put each designated replica first, kafka-leader-election.sh, the "
                    + "reassignment that restores the order, and the checks between them (STEPS.txt).")
    Path kafkaTools;

    @Option(names = "--html", paramLabel = "FILE",
            description = "Also write the plan as one self-contained HTML page for a reviewer's browser: each"
                    + " replica's log drawn to scale with its cut, high watermarks, salvage, consumer groups and the"
                    + " alternatives. No external assets; replaces FILE.")
    Path html;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        RecoveryPlanning.Options options = planning.planning(select);
        RecoveryPlanning.Result result;
        Json.prepareInBackground(Plan.class);
        try (ClusterDiscovery discovery = connection.discovery(root.global)) {
            result = new RecoveryPlanning(discovery, Clock.systemUTC(), ToolVersion.describe()).plan(options, new ProgressLine(err));
        }
        Path planFile = planning.outputFile(result.plan().createdAt());
        int code = report(result, planFile, root.global, out, err);
        writePage(html, result.plan(), planFile, root.global.output == GlobalOptions.OutputFormat.json ? null : out);
        if (kafkaTools != null && !result.plan().partitions().isEmpty()) {
            Set<Integer> listed = result.snapshot().brokers().stream().filter(b -> !b.fenced()).map(BrokerState::id)
                    .collect(Collectors.toSet());
            KafkaToolsSteps.Written steps = KafkaToolsSteps.write(result.plan(), planFile, root.global.bootstrapServer,
                    root.global.commandConfig, listed, kafkaTools);
            Table.printWrapped(out, "The same elections with Kafka's own tools: " + steps.steps() + " ("
                    + steps.partitions() + " of " + result.plan().partitions().size() + " partition(s)"
                    + (steps.impossible().isEmpty() ? "; run its commands in order)" : "; the others have a replica on a"
                            + " fenced or lost broker, which kafka-reassign-partitions.sh refuses: see the file)"), 4);
        }
        return code;
    }

    /**
     * Writes the plan's page when asked and a plan was written (something was offline); shared with {@code recover}.
     *
     * @param out where to say so; null with --output json, whose standard output is the JSON alone
     */
    static void writePage(Path html, Plan plan, Path planFile, PrintWriter out) throws java.io.IOException {
        if (html == null || plan.partitions().isEmpty() && plan.skipped().isEmpty()) {
            return;
        }
        PlanPage.write(html, plan, planFile.getFileName().toString(), null, null);
        if (out != null) {
            out.println("Page written to " + html.toAbsolutePath() + " (open it in a browser).");
        }
    }

    /** Writes the plan file and prints it; shared with {@code recover}. */
    static int report(RecoveryPlanning.Result result, Path file, GlobalOptions global, PrintWriter out, PrintWriter err)
            throws java.io.IOException {
        return report(result, file, global, out, err, () -> { }, false);
    }

    /**
     * @param written  runs once the plan file is on disk, before the plan is printed
     * @param applying the plan is applied right after (recover --automated-recovery): say so, not "review it"
     */
    static int report(RecoveryPlanning.Result result, Path file, GlobalOptions global, PrintWriter out, PrintWriter err,
                      Runnable written, boolean applying) throws java.io.IOException {
        var plan = result.plan();
        var unreadable = result.snapshot().unreadableTopics();
        if (plan.partitions().isEmpty() && plan.skipped().isEmpty()) {
            unreadable.forEach(t -> Table.printWrapped(out, "NOTE " + t.describe(), 4));
            out.println("Nothing is offline among the " + result.snapshot().partitions().size()
                    + " partition(s) checked" + (unreadable.isEmpty() ? "" : " (" + unreadable.size()
                    + " topic(s) not read: their partitions are unknown)") + "; no plan written.");
            return ExitCode.withUnreadableTopics(ExitCode.OK, unreadable);
        }
        PlanFile.write(file, plan);
        written.run();
        if (global.output == GlobalOptions.OutputFormat.json) {
            out.println(Json.mapper().writeValueAsString(plan));
        } else {
            PlanPrinter.print(plan, out);
            out.println();
            out.println("Evidence: " + evidenceSources(result));
            Table.printWrapped(out, "Plan written to " + file.toAbsolutePath() + " (probed in "
                    + Durations.human(result.probeTime()) + ", " + result.requests().total() + " requests)."
                    + (applying ? "" : " Nothing was changed."), 4);
            if (applying && !plan.partitions().isEmpty()) {
                out.println("Applying it now (--automated-recovery): each partition is checked once more, then elected.");
            } else if (!plan.partitions().isEmpty()) {
                // Kafka's tool takes the plan file, but reads only topic and partition from it
                Table.printWrapped(out, "Not kafka-leader-election.sh --path-to-json-file with this plan: Kafka's tool"
                        + " elects the first live replica in assignment order, not the designated one (plan --kafka-tools"
                        + " DIR writes the steps to do it with Kafka's tools, where they can).", 4);
                // the command on a line of its own, whole, to be pasted
                out.println("Review it, then apply it with:");
                out.println("  kafka-unclean-recovery.sh --bootstrap-server " + global.bootstrapServer + " execute --plan "
                        + file);
            }
        }
        return ExitCode.withUnreadableTopics(plan.skipped().isEmpty() ? ExitCode.OK : ExitCode.ATTENTION, unreadable);
    }

    /**
     * Which brokers answered how: {@code native GetReplicaLogInfo from broker 2 (broker epoch 27), broker 3
     * (broker epoch 29); stock RPCs from broker 1}. Only brokers that answered count.
     */
    static String evidenceSources(RecoveryPlanning.Result result) {
        Map<Integer, Long> nativeEpochs = result.answered().nativeBrokerEpochs();
        Set<Integer> stock = result.answered().stock();
        List<String> parts = new ArrayList<>();
        if (!nativeEpochs.isEmpty()) {
            parts.add("native GetReplicaLogInfo from " + nativeEpochs.entrySet().stream()
                    .map(b -> "broker " + b.getKey() + " (broker epoch " + b.getValue() + ")")
                    .collect(Collectors.joining(", ")));
        }
        if (!stock.isEmpty()) {
            parts.add("stock RPCs (ListOffsets, Fetch) from " + BrokerNativeSupport.brokers(stock));
        }
        return parts.isEmpty() ? "no replica answered" : String.join("; ", parts);
    }
}
