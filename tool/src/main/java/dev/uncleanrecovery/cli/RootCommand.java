// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

@Command(
        name = "kafka-unclean-recovery.sh",
        mixinStandardHelpOptions = true,
        versionProvider = ToolVersion.class,
        sortOptions = false,
        usageHelpAutoWidth = true,
        description = {
            "Recovers offline Kafka partitions by electing the replica that loses the least data.",
            "Dry-run first: 'plan' writes a reviewable plan, 'execute' applies it.",
            "The options below go before or after the command name; a command's own options go after it."},
        subcommands = {
            StatusCommand.class,
            PlanCommand.class,
            ExecuteCommand.class,
            RecoverCommand.class,
            InspectCommand.class,
            ReplayCommand.class,
            ConsumerOffsetsCommand.class,
            HangingTransactionsCommand.class,
            RenderCommand.class,
            DemoCommand.class,
            CommandLine.HelpCommand.class},
        exitCodeListHeading = ExitCode.HELP_HEADING,
        exitCodeList = {"0:done", ExitCode.FAILURE_HELP, ExitCode.USAGE_HELP, "3:some partitions need attention",
            ExitCode.UNREACHABLE_HELP})
public class RootCommand implements Runnable {

    @Mixin
    GlobalOptions global;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new picocli.CommandLine.ParameterException(spec.commandLine(), "Missing command: choose one of "
                + String.join(", ", spec.subcommands().entrySet().stream()
                        .filter(e -> !e.getValue().getCommandSpec().usageMessage().hidden())
                        .map(java.util.Map.Entry::getKey).toList()));
    }
}
