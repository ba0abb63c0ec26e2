// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import dev.uncleanrecovery.cluster.ClusterDiscovery;
import dev.uncleanrecovery.execute.ExecutionResult;
import dev.uncleanrecovery.formats.Json;
import dev.uncleanrecovery.formats.Plan;
import dev.uncleanrecovery.formats.PlanFile;
import dev.uncleanrecovery.formats.ReorderJournal;
import dev.uncleanrecovery.formats.ResultFile;
import dev.uncleanrecovery.recovery.ConsumerOffsetRepair;
import dev.uncleanrecovery.recovery.ExecuteFlow;
import dev.uncleanrecovery.recovery.PlanFlow;
import dev.uncleanrecovery.salvage.SalvageStore;
import dev.uncleanrecovery.support.RunFiles;
import dev.uncleanrecovery.view.ExecutionReport;
import dev.uncleanrecovery.view.PlanReport;
import dev.uncleanrecovery.view.Table;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

@Command(name = "recover", mixinStandardHelpOptions = true, sortOptions = false,
        header = "Plan, then with --automated-recovery execute it in the same run (for runbooks).",
        description = {"For runbooks: 'plan', then — only with --automated-recovery — 'execute' in the same run, with the "
                + "same guard rails. Without the flag it is a dry run that writes the plan and says how to apply it "
                + "(exit 3: the planned partitions are still offline)."},
        exitCodeListHeading = ExitCode.HELP_HEADING,
        exitCodeList = {"0:nothing to elect, or every planned partition elected",
            "1:a step failed, or the controller elected someone else", ExitCode.USAGE_HELP,
            "3:elections planned but not run (no --automated-recovery), or partitions skipped or refused",
            ExitCode.UNREACHABLE_HELP})
public class RecoverCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @ParentCommand
    RootCommand root;

    @Option(names = "--automated-recovery", description = "Apply the plan right away (otherwise: dry run).")
    boolean automatedRecovery;

    @Option(names = "--html", paramLabel = "FILE",
            description = "Also write the plan, and with --automated-recovery what was done, as one self-contained HTML"
                    + " page (see 'plan --html'): a new file, never over one.")
    Path html;

    @Mixin
    SelectionOptions select;

    @Mixin
    PlanOptions planning;

    @Mixin
    ExecuteOptions execution;

    @Mixin
    AuditOptions audit;

    @Mixin
    ConnectionOptions connection;

    @Override
    public Integer call() throws Exception {
        Json.prepareInBackground(Plan.class, ReorderJournal.class, ResultFile.class);
        PlanFlow.Options options = planning.planning(select);
        RunFiles files = planning.files(select, root.global).creates("--html", html);
        if (automatedRecovery) {
            execution.electing(files, planning.outputFile).appendsTo("--audit-log", audit.auditLog);
        }
        files.check();
        // the plan is written in this run: its name and hash go to the PLANNED line, before the first election
        return audit.run(spec, root.global, automatedRecovery, planning.outputFile(Instant.now()), line -> line
                .withFiles(execution.salvageDir == null ? null : execution.salvageDir.toAbsolutePath().toString(),
                        null, null), trail -> run(options, trail));
    }

    /** @param trail the audit of a run that changes the cluster; null without --automated-recovery */
    private int run(PlanFlow.Options options, AuditTrail trail) throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        ExecuteFlow.Options executing = execution.options(planning.probeMode());
        boolean json = root.global.output == GlobalOptions.OutputFormat.json;
        try (ClusterDiscovery discovery = connection.discovery(root.global);
             ExecuteFlow recovery = ExecuteFlow.on(discovery, null).reportingLockTo(AuditTrail.lockFateTo(trail))) {
            if (automatedRecovery) {
                // One run at a time from here on; the journals the operator names are put back before this plan reads
                // the partitions (it would take a best-first order left behind for the assignment).
                recovery.lock(executing.locking(), ProgressLine.steps(err));
                recovery.restoreNamed(executing.restoreJournals(), false, ProgressLine.steps(err));
            }
            PlanFlow.Result planned = new PlanFlow(discovery, Clock.systemUTC(), ToolVersion.describe())
                    .plan(options, new ProgressLine(err));
            Path planFile = planning.outputFile(planned.plan().createdAt());
            if (!automatedRecovery || planned.plan().partitions().isEmpty()) {
                // a journal a recover killed midway left is bound to the plan that recover wrote: named, with the
                // command that puts its orders back
                recovery.restoreInterrupted(planFile, null, executing.restoreJournals(), true, ProgressLine.steps(err));
                PlanReport.print(planned, planFile, json, root.global.bootstrapServer, out);
                PlanReport.writePage(html, planned.plan(), planFile, json ? null : out);
                int planCode = ExitCode.of(planned);
                if (!planned.plan().partitions().isEmpty()) {
                    Table.printWrapped(out, "Dry run: nothing was changed. Apply with --automated-recovery --reason"
                            + " TEXT, or review the plan and run 'execute --plan " + planFile + " --reason TEXT'.", 4);
                    // The planned partitions are still offline: a runbook must not read this as recovered (nor miss
                    // an ACL the plan said it lacks).
                    return planCode == ExitCode.USAGE ? planCode : ExitCode.ATTENTION;
                }
                return planCode;
            }
            ExecuteFlow.Recovered recovered = recovery.executeWhileReporting(planned,
                    planFile.toString(), executing, planning.election(), written -> {
                        PlanReport.print(planned, planFile, json, root.global.bootstrapServer, out, sha256 -> {
                            try {
                                trail.planned(planFile, sha256, execution.noSalvage ? null
                                        : execution.salvageDir != null ? execution.salvageDir
                                        : SalvageStore.besidePlan(planFile));
                            } catch (IOException e) {
                                throw new UncheckedIOException("the audit log " + trail.log() + " cannot be appended"
                                        + " to; nothing was elected", e);
                            }
                            written.accept(sha256);
                        }, true);
                        out.println();
                        out.flush();
                        return ExitCode.of(planned);
                    }, reported -> ProgressLine.heldUntil(reported, ProgressLine.steps(err)));
            int planCode = recovered.reportExitCode();
            ExecutionResult result = recovered.result();
            ResultFile elected = result.toResultFile(ToolVersion.describe(), root.global.bootstrapServer)
                    .withRunLock(recovery.releaseLock().orElse(null));
            Path resultFile = execution.resultFile(planFile);
            ConsumerOffsetRepair.Repair repair = execution.resetConsumerOffsets(discovery, planned.plan(), elected,
                    true, resultFile);
            ExecutionReport.print(result, elected, repair, resultFile, json, out,
                    new ExecutionReport.Page(html, planned.plan()), trail::recorded);
            int executeCode = ExitCode.of(result, repair);
            return executeCode != ExitCode.OK ? executeCode : planCode;
        }
    }
}
