// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import dev.uncleanrecovery.cluster.ClusterDiscovery;
import dev.uncleanrecovery.execute.ExecutionResult;
import dev.uncleanrecovery.execute.ReorderJournalFile;
import dev.uncleanrecovery.plan.Json;
import dev.uncleanrecovery.plan.Plan;
import dev.uncleanrecovery.plan.ResultFile;
import dev.uncleanrecovery.recovery.RecoveryExecution;
import dev.uncleanrecovery.recovery.RecoveryPlanning;
import dev.uncleanrecovery.support.OnItsOwnThread;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

@Command(name = "recover", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"For runbooks: 'plan', then — only with --automated-recovery — 'execute' in the same run,",
            "with the same guard rails. Without the flag it is a dry run that writes the plan and says how to apply it",
            "(exit 3: the planned partitions are still offline)."})
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
        RecoveryPlanning.Options options = planning.planning(select);
        try (ClusterDiscovery discovery = connection.discovery(root.global)) {
            if (automatedRecovery) {
                // A recover killed midway left its reorders recorded beside its own plan: put them back before this
                // plan reads the partitions (it would take the best-first order for the assignment).
                Path beside = planning.outputFile(Instant.now());
                if (ReorderJournalFile.anyBeside(beside)) {
                    new RecoveryExecution(discovery).restoreInterrupted(beside, discovery.clusterId(), false,
                            ProgressLine.steps(err));
                }
            }
            RecoveryPlanning.Result planned = new RecoveryPlanning(discovery, Clock.systemUTC(), ToolVersion.describe())
                    .plan(options,
                            new ProgressLine(err));
            Path planFile = planning.outputFile(planned.plan().createdAt());
            if (!automatedRecovery || planned.plan().partitions().isEmpty()) {
                int planCode = PlanCommand.report(planned, planFile, root.global, out, err);
                if (!planned.plan().partitions().isEmpty()) {
                    out.println("Dry run: nothing was changed. Apply with --automated-recovery, or review the plan and run"
                            + " 'execute --plan " + planFile + "'.");
                    // The planned partitions are still offline: a runbook must not read this as recovered.
                    return ExitCode.ATTENTION;
                }
                return planCode;
            }
            // The plan is written and printed while its partitions are re-read and, at the same time, the designated
            // replicas probed once more (as the plan saw them); nothing is elected before the plan is on disk (printing it may still go on). The steps are
            // shown after the plan.
            CompletableFuture<Void> written = new CompletableFuture<>();
            CompletableFuture<Integer> reported = reportInBackground(planned, planFile, out, err, written);
            ExecutionResult result;
            try {
                result = new RecoveryExecution(discovery).execute(planned.plan(), planFile.toString(),
                        execution.options(planning.probeMode()), ProgressLine.heldUntil(reported, ProgressLine.steps(err)),
                        () -> CompletableFuture.anyOf(written, reported).join(), planned.snapshot(),
                        RecoveryPlanning.redecision(planned, planning.election()));
            } finally {
                reported.handle((code, failure) -> code).join();
            }
            int planCode = reported.join();
            int executeCode = ExecuteCommand.report(result, execution.resultFile(planFile), root.global, out);
            return executeCode != ExitCode.OK ? executeCode : planCode;
        }
    }

    /** @param written completed once the plan file is on disk (the returned future fails if it cannot be written) */
    private CompletableFuture<Integer> reportInBackground(RecoveryPlanning.Result planned, Path planFile, PrintWriter out,
                                                          PrintWriter err, CompletableFuture<Void> written) {
        return OnItsOwnThread.run("plan-report", () -> {
            int code = PlanCommand.report(planned, planFile, root.global, out, err, () -> written.complete(null), true);
            out.println();
            out.flush();
            return code;
        });
    }
}
