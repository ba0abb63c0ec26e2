// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import dev.uncleanrecovery.cluster.ClusterDiscovery;
import dev.uncleanrecovery.execute.ExecutionResult;
import dev.uncleanrecovery.plan.Json;
import dev.uncleanrecovery.plan.Plan;
import dev.uncleanrecovery.plan.ResultFile;
import dev.uncleanrecovery.workflow.RecoveryExecution;
import dev.uncleanrecovery.workflow.RecoveryPlanning;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

@Command(name = "recover", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"For runbooks: 'plan', then — only with --automated-recovery — 'execute' in the same run,",
            "with the same guard rails. Without the flag it is a dry run that writes the plan and says how to apply it."})
public class RecoverCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @ParentCommand
    RootCommand root;

    @Option(names = "--automated-recovery", description = "Apply the plan right away (otherwise: dry run).")
    boolean automatedRecovery;

    @Mixin
    SelectionOptions select;

    @Mixin
    PlanOptions planning;

    @Mixin
    ExecuteOptions execution;

    @Mixin
    ConnectionOptions connection;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Json.prepareInBackground(Plan.class, ResultFile.class);
        try (ClusterDiscovery discovery = connection.discovery(root.global)) {
            RecoveryPlanning.Result planned = new RecoveryPlanning(discovery, Clock.systemUTC(), ToolVersion.describe())
                    .plan(new RecoveryPlanning.Options(select.selection(), planning.election(), planning.probe(),
                            planning.probeMode(), planning.diskEvidence()),
                            new ProgressLine(err));
            Path planFile = planning.outputFile(planned.plan().createdAt());
            int planCode = PlanCommand.report(planned, planFile, root.global, out, err);
            if (planned.plan().partitions().isEmpty()) {
                return planCode;
            }
            if (!automatedRecovery) {
                out.println("Dry run: nothing was changed. Apply with --automated-recovery, or review the plan and run"
                        + " 'execute --plan " + planFile + "'.");
                return planCode;
            }
            out.println();
            ExecutionResult result = new RecoveryExecution(discovery).execute(planned.plan(), planFile.toString(),
                    execution.options(planning.probeMode()), ProgressLine.steps(err));
            int executeCode = ExecuteCommand.report(result, execution.resultFile(planFile), root.global, out);
            return executeCode != ExitCode.OK ? executeCode : planCode;
        }
    }
}
