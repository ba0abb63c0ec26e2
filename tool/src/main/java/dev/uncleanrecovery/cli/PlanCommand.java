// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import dev.uncleanrecovery.recovery.KafkaToolsSteps;
import dev.uncleanrecovery.cluster.ClusterDiscovery;
import dev.uncleanrecovery.connect.BrokerState;
import dev.uncleanrecovery.formats.Json;
import dev.uncleanrecovery.formats.Plan;
import dev.uncleanrecovery.recovery.PlanFlow;
import dev.uncleanrecovery.view.PlanReport;
import dev.uncleanrecovery.view.Table;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

@Command(name = "plan", mixinStandardHelpOptions = true, sortOptions = false, subcommands = PlanApproveCommand.class,
        header = "Probe every replica of the offline partitions and write a reviewable plan; never changes the cluster.",
        description = {"Probe every replica of the offline partitions, choose per partition the replica that loses the least"
                + " (highest last written leader epoch, then longest log), and write a reviewable JSON plan. Never "
                + "changes the cluster. The plan is also valid kafka-leader-election.sh --path-to-json-file input."},
        exitCodeListHeading = ExitCode.HELP_HEADING,
        exitCodeList = {"0:every selected offline partition has a designated leader", ExitCode.FAILURE_HELP,
            ExitCode.USAGE_HELP + ", or grant DESCRIBE on a topic that could not be read, or name one that exists",
            "3:some partitions are skipped, or a topic could not be read (deleted meanwhile, no leader yet)",
            ExitCode.UNREACHABLE_HELP})
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
                    + "reassignment that restores the order, and the checks between them (STEPS.txt). DIR is created"
                    + " where missing; none of its files may exist.")
    Path kafkaTools;

    @Option(names = "--html", paramLabel = "FILE",
            description = "Also write the plan as one self-contained HTML page for a reviewer's browser: each"
                    + " replica's log drawn to scale with its cut, high watermarks, salvage, consumer groups and the"
                    + " alternatives. No external assets; a new file, never over one.")
    Path html;

    @Override
    public Integer call() throws Exception {
        planning.files(select, root.global).creates("--html", html)
                .createsIn("--kafka-tools", kafkaTools, KafkaToolsSteps.FILES).check();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        PlanFlow.Options options = planning.planning(select);
        PlanFlow.Result result;
        Json.prepareInBackground(Plan.class);
        try (ClusterDiscovery discovery = connection.discovery(root.global)) {
            result = new PlanFlow(discovery, Clock.systemUTC(), ToolVersion.describe()).plan(options, new ProgressLine(err));
        }
        Path planFile = planning.outputFile(result.plan().createdAt());
        boolean json = root.global.output == GlobalOptions.OutputFormat.json;
        PlanReport.print(result, planFile, json, root.global.bootstrapServer, out);
        PlanReport.writePage(html, result.plan(), planFile, json ? null : out);
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
        return ExitCode.of(result);
    }
}
