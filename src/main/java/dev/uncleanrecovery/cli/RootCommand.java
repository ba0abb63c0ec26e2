// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
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
            "Dry-run first: 'plan' writes a reviewable plan, 'execute' applies it."},
        footer = {"", "Exit codes: 0 done, 1 failure, 2 bad usage or input, 3 some partitions need attention."})
public class RootCommand implements Runnable {

    /** The subcommands, in the order the help lists them. */
    private static final List<Class<?>> SUBCOMMANDS = List.of(StatusCommand.class, PlanCommand.class,
            ExecuteCommand.class, RecoverCommand.class, InspectCommand.class, DemoCommand.class,
            ClassDataTrainingCommand.class);

    /**
     * The command line for these arguments. picocli builds the model of every subcommand it is given, from their
     * annotations, which took ~0.15 s of each start for all seven; so only the subcommands named among the arguments
     * are added (usually one; a name that is really an option's value costs only its model), and all of them when
     * none is named (the help and the "missing command" error list them).
     */
    static CommandLine commandLine(String... args) {
        CommandLine commandLine = new CommandLine(new RootCommand());
        Set<String> named = new HashSet<>(Arrays.asList(args));
        boolean anyNamed = SUBCOMMANDS.stream().anyMatch(c -> named.contains(nameOf(c)));
        for (Class<?> subcommand : SUBCOMMANDS) {
            if (!anyNamed || named.contains(nameOf(subcommand))) {
                commandLine.addSubcommand(subcommand);
            }
        }
        return commandLine;
    }

    private static String nameOf(Class<?> subcommand) {
        return subcommand.getAnnotation(Command.class).name();
    }

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
