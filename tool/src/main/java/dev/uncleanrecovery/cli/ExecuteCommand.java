// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import dev.uncleanrecovery.cluster.ClusterDiscovery;
import dev.uncleanrecovery.execute.ExecutionResult;
import dev.uncleanrecovery.formats.Plan;
import dev.uncleanrecovery.formats.PlanFile;
import dev.uncleanrecovery.formats.ResultFile;
import dev.uncleanrecovery.probe.ProbeMode;
import dev.uncleanrecovery.recovery.ConsumerOffsetRepair;
import dev.uncleanrecovery.recovery.ExecuteFlow;
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
                + "the next run of the same plan.",
            "Exit 0 all done, 1 a step failed or the controller elected someone else, 3 some partitions were "
                + "refused."})
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
                    + " 'plan --html'); replaces FILE.")
    Path html;

    // Here rather than in ExecuteOptions: 'recover' mixes in PlanOptions, which has the same option.
    @Option(names = "--probe-mode", paramLabel = "MODE", defaultValue = "auto",
            description = "How the designated replicas are probed again: auto (default), native or stock, as for 'plan'.")
    ProbeMode probeMode;

    @Mixin
    ConnectionOptions connection;

    @Override
    public Integer call() throws Exception {
        ExecuteFlow.Options options = execution.options(probeMode, dryRun);
        Plan plan = PlanFile.read(planFile.path);
        try (ClusterDiscovery discovery = connection.discovery(root.global);
             ExecuteFlow recovery = new ExecuteFlow(discovery)) {
            ExecutionResult result = recovery.execute(plan, planFile.path.toString(), options,
                    ProgressLine.steps(spec.commandLine().getErr()));
            // the run lock is released meanwhile
            ResultFile elected = ExecutionReport.resultFile(result, root.global);
            return ExecutionReport.print(result, elected, execution.resetConsumerOffsets(discovery, plan, elected, !dryRun),
                    dryRun ? null : execution.resultFile(planFile.path), root.global, spec.commandLine().getOut(),
                    new ExecutionReport.Page(html, plan));
        }
    }
}
