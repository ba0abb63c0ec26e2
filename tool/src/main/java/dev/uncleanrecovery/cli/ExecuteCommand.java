// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import dev.uncleanrecovery.UserInputException;
import dev.uncleanrecovery.cluster.ClusterDiscovery;
import dev.uncleanrecovery.execute.ExecutionResult;
import dev.uncleanrecovery.formats.AuditLine;
import dev.uncleanrecovery.formats.Plan;
import dev.uncleanrecovery.formats.PlanFile;
import dev.uncleanrecovery.formats.ResultFile;
import dev.uncleanrecovery.probe.ProbeMode;
import dev.uncleanrecovery.recovery.ConsumerOffsetRepair;
import dev.uncleanrecovery.recovery.ExecuteFlow;
import dev.uncleanrecovery.recovery.PlanApprovals;
import dev.uncleanrecovery.salvage.SalvageStore;
import dev.uncleanrecovery.support.RunFiles;
import dev.uncleanrecovery.view.ExecutionReport;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

@Command(name = "execute", mixinStandardHelpOptions = true, sortOptions = false,
        header = "Apply a reviewed plan: re-check each partition, elect its designated leader, verify.",
        description = {"Apply a reviewed plan: re-read every partition and refuse the ones that changed since the plan "
                + "(leader epoch, replica set, a leader again, a reassignment, the designated broker fenced or "
                + "restarted, its log shrunk, a replica that missed the plan now holding more), then elect each "
                + "designated leader and verify it (leader and leader epoch + 1). A run killed midway is put right by "
                + "the next run of the same plan."},
        exitCodeListHeading = ExitCode.HELP_HEADING,
        exitCodeList = {"0:all done", "1:a step failed, or the controller elected someone else",
            ExitCode.USAGE_HELP + " (a plan or option refused before anything was changed)",
            "3:some partitions were refused, or elected while some replica's loss is not known",
            ExitCode.UNREACHABLE_HELP + "; a run that stopped midway is taken up where it left off"})
public class ExecuteCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @ParentCommand
    RootCommand root;

    @Mixin
    PlanFileOption planFile;

    @Option(names = "--dry-run",
            description = "Re-read, re-probe and show what would be elected, refused and why; change nothing and write"
                    + " no result file. Exit 0 or 3 as a real run would.")
    boolean dryRun;

    @Mixin
    ExecuteOptions execution;

    @Option(names = "--html", paramLabel = "FILE",
            description = "Also write the plan and what this run did with it as one self-contained HTML page (see"
                    + " 'plan --html'): a new file, never over one.")
    Path html;

    // Here rather than in ExecuteOptions: 'recover' mixes in PlanOptions, which has the same option.
    @Option(names = "--probe-mode", paramLabel = "MODE", defaultValue = "auto",
            description = "How the designated replicas are probed again: auto (default), native or stock, as for 'plan'.")
    ProbeMode probeMode;

    @Option(names = "--require-approval",
            description = "Refuse (exit 2) a plan without an approval of its exact content beside it ('plan approve'):"
                    + " one edited after its approval is refused too, and so is an option that weakens a safeguard"
                    + " (--no-salvage, --allow-unprobed-leader, --without-lock, --accept-unknown-loss) the approval"
                    + " does not allow.")
    boolean requireApproval;

    @Option(names = "--allowed-signers", paramLabel = "FILE",
            description = "With --require-approval: accept only an approval whose SSH signature ssh-keygen -Y verify"
                    + " checks against FILE (OpenSSH's allowed_signers: 'NAME KEYTYPE KEY' lines) for its --by NAME."
                    + " Refused when others than you and root may change FILE.")
    Path allowedSigners;

    @Mixin
    AuditOptions audit;

    @Mixin
    ConnectionOptions connection;

    @Override
    public Integer call() throws Exception {
        ExecuteFlow.Options options = execution.options(probeMode, dryRun);
        if (!dryRun) {
            audit.requireReason(spec);
        }
        if (allowedSigners != null && !requireApproval) {
            throw new UserInputException("--allowed-signers checks the approval --require-approval asks for: give both");
        }
        RunFiles files = new RunFiles().reads("--command-config", root.global.commandConfig)
                .reads("--plan", planFile.path).reads("--allowed-signers", allowedSigners).creates("--html", html);
        if (!dryRun) {
            execution.electing(files, planFile.path).appendsTo("--audit-log", audit.auditLog);
        }
        files.check();
        Checked checked = readPlan();
        if (dryRun) {
            return run(checked, options, null);
        }
        Path salvageDir = options.noSalvage() ? null
                : options.salvageDir() != null ? options.salvageDir() : SalvageStore.besidePlan(planFile.path);
        if (salvageDir != null) {
            // bad input before the audit log's STARTED line: a run refused before any change is not logged
            SalvageStore.refuseShared(salvageDir);
        }
        return audit.run(spec, root.global, true, planFile.path, line -> line
                .withPlan(planFile.path.toAbsolutePath().toString(), checked.sha256())
                .withApproval(checked.approval())
                .withFiles(salvageDir == null ? null : salvageDir.toAbsolutePath().toString(), null, null),
                trail -> run(checked, options, trail));
    }

    /**
     * The plan, the SHA-256 of its bytes and the approval --require-approval found for them.
     *
     * @param approval null when none was required
     */
    private record Checked(Plan plan, String sha256, AuditLine.Approval approval) {
    }

    /**
     * The plan as read, checked against its approval, and the options this run weakens a safeguard with against what
     * that approval allows; its bytes (a large plan's are large) are not kept.
     */
    private Checked readPlan() throws java.io.IOException {
        PlanFile.Hashed read = PlanFile.readHashed(planFile.path);
        if (!requireApproval) {
            return new Checked(read.plan(), read.sha256(), null);
        }
        PlanApprovals.Accepted accepted = PlanApprovals.require(planFile.path, read, allowedSigners,
                execution.safeguardsOff());
        accepted.notCounted().forEach(why -> ProgressLine.steps(spec.commandLine().getErr())
                .accept("--require-approval: not counted: " + why));
        return new Checked(read.plan(), read.sha256(), accepted.approval());
    }

    /** @param trail the audit of a run that changes the cluster; null for a dry run */
    private int run(Checked checked, ExecuteFlow.Options options, AuditTrail trail) throws Exception {
        Plan plan = checked.plan();
        try (ClusterDiscovery discovery = connection.discovery(root.global);
             ExecuteFlow recovery = ExecuteFlow.on(discovery, plan.clusterId())
                     .reportingLockTo(AuditTrail.lockFateTo(trail))) {
            ExecutionResult result = recovery.execute(plan, planFile.path.toString(), checked.sha256(), options,
                    ProgressLine.steps(spec.commandLine().getErr()));
            // released by now: what became of it goes into the result file
            ResultFile elected = result.toResultFile(ToolVersion.describe(), root.global.bootstrapServer)
                    .withRunLock(recovery.releaseLock().orElse(null));
            Path resultFile = execution.resultFile(planFile.path);
            ConsumerOffsetRepair.Repair repair = execution.resetConsumerOffsets(discovery, plan, elected, !dryRun,
                    resultFile);
            ExecutionReport.print(result, elected, repair, dryRun ? null : resultFile,
                    root.global.output == GlobalOptions.OutputFormat.json, spec.commandLine().getOut(),
                    new ExecutionReport.Page(html, plan), trail == null ? ExecutionReport.Written.NONE : trail::recorded);
            return ExitCode.of(result, repair);
        }
    }
}
