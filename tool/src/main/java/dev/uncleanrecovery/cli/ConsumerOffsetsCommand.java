// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import dev.uncleanrecovery.UserInputException;
import dev.uncleanrecovery.cluster.ClusterDiscovery;
import dev.uncleanrecovery.formats.Json;
import dev.uncleanrecovery.formats.OffsetResetRecord;
import dev.uncleanrecovery.formats.Plan;
import dev.uncleanrecovery.formats.PlanFile;
import dev.uncleanrecovery.formats.ResultFile;
import dev.uncleanrecovery.recovery.ConsumerOffsetRepair;
import dev.uncleanrecovery.view.ConsumerOffsetTable;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

@Command(name = "consumer-offsets", mixinStandardHelpOptions = true, sortOptions = false,
        header = "Set consumer groups back to the divergence point of the partitions a run elected (dry run unless"
                + " --execute).",
        description = {"For each consumer group and partition the run of --result-file elected: where the group's "
                + "committed offset lies past the divergence point (the first offset where the new leader's log "
                + "differs from the history the group read), set it to that point, so the group reads every record of "
                + "the new history and none twice. Offsets at or before it are left alone. Kafka changes no offset of "
                + "a group with members: such a group is named and left as it is; stop its consumers and run again.",
            "Dry run unless --execute: shows what would be set. With --execute the result is written again with the "
                + "resets, under the next free name (<result>-2.json, ...), and each reset is recorded in "
                + OffsetResetRecord.FILE_NAME + " beside it: run again, a group set back before that has read on "
                + "since is left as it is.",
            "Only a result of the cluster --bootstrap-server reaches is taken, with the plan of that cluster; a dry "
                + "run's result is refused (it elected nothing)."},
        exitCodeListHeading = ExitCode.HELP_HEADING,
        exitCodeList = {"0:done or shown", ExitCode.FAILURE_HELP, ExitCode.USAGE_HELP,
            "3:a group past its divergence point keeps its offset, or a group could not be read",
            ExitCode.UNREACHABLE_HELP})
public class ConsumerOffsetsCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @ParentCommand
    RootCommand root;

    @Mixin
    ResultFileOption resultFile;

    @Option(names = "--plan", paramLabel = "FILE",
            description = "The plan that run applied (default: the planFile the result names, or a file of that name"
                    + " beside the result).")
    Path planFile;

    @Option(names = "--execute", description = "Set the offsets; without it nothing is changed.")
    boolean execute;

    @Mixin
    AuditOptions audit;

    @Mixin
    ConnectionOptions connection;

    @Override
    public Integer call() throws Exception {
        if (execute) {
            audit.requireReason(spec);
        }
        ResultFile result = ResultFile.read(resultFile.path);
        Path planPath = plan(result);
        PlanFile.Hashed read = PlanFile.readHashed(planPath);
        Plan plan = read.plan();
        String sha256 = read.sha256();
        return audit.run(spec, root.global, execute, resultFile.path, line -> line
                .withPlan(planPath.toAbsolutePath().toString(), sha256)
                .withFiles(result.salvageDir(), null, List.of(resultFile.path.toAbsolutePath().toString())),
                trail -> run(result, plan, trail));
    }

    /** @param trail the audit of a run that changes offsets; null for a dry run */
    private int run(ResultFile result, Plan plan, AuditTrail trail) throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        try (ClusterDiscovery discovery = connection.discovery(root.global)) {
            ConsumerOffsetRepair.Repair repair = ConsumerOffsetRepair.run(discovery, plan, result, resultFile.path,
                    execute);
            ResultFile withResets = result.withConsumerOffsetResets(repair.resets());
            if (trail != null) {
                trail.resets(repair.resets());
            }
            Path written = execute ? ResultFile.write(resultFile.path, withResets) : null;
            if (trail != null && written != null) {
                trail.files(null, written, null);
            }
            if (root.global.output == GlobalOptions.OutputFormat.json) {
                out.println(Json.mapper().writeValueAsString(withResets));
            } else {
                ConsumerOffsetTable.print(repair, execute, out);
                if (written != null) {
                    out.println("Result written to " + written);
                }
            }
            return ExitCode.of(repair);
        }
    }

    private Path plan(ResultFile result) {
        if (planFile != null) {
            return planFile;
        }
        Path named = Path.of(result.planFile());
        if (Files.isRegularFile(named)) {
            return named;
        }
        Path beside = resultFile.path.toAbsolutePath().resolveSibling(named.getFileName());
        if (Files.isRegularFile(beside)) {
            return beside;
        }
        throw new UserInputException(resultFile.path + " names the plan " + named + ", which is not there nor beside the"
                + " result: pass it with --plan");
    }
}
