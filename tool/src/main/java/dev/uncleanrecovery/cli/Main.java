// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import java.io.PrintWriter;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/** Entry point. {@link #run} is what tests call; {@code System.exit} lives only in {@link #main}. */
public final class Main {

    private Main() {
    }

    public static void main(String[] args) {
        // Flushed where a command waits (and at the end), not on every line: a plan of thousands of partitions is tens
        // of thousands of lines. Progress goes to stderr, line by line.
        PrintWriter out = new PrintWriter(System.out, false);
        PrintWriter err = new PrintWriter(System.err, true);
        System.exit(run(out, err, args));
    }

    public static int run(PrintWriter out, PrintWriter err, String... args) {
        Logging.configure(Logging.isVerbose(args));
        String requestLogProblem = LogbackSetup.requestLogProblem(LoggerFactory.getILoggerFactory());
        if (requestLogProblem != null) {
            // before anything is asked of a cluster: the operator asked for a record of every request
            err.println("error: " + requestLogProblem);
            err.flush();
            return ExitCode.USAGE;
        }
        CommandLine commandLine = commandLine();
        commandLine.setOut(out);
        commandLine.setErr(err);
        int code;
        try {
            code = commandLine.execute(args);
        } catch (OutOfMemoryError e) {
            // what the run did before it is in its output (and result file, when it changed something); the heap it
            // had is the launcher's bound, which the operator can raise
            out.flush();
            err.println("error: out of memory: the run needed more than the heap limit of "
                    + Runtime.getRuntime().maxMemory() / (1024 * 1024) + " MiB; run it again with a larger one,"
                    + " e.g. KAFKA_UNCLEAN_RECOVERY_HEAP_OPTS=-Xmx8g");
            err.flush();
            return ExitCode.FAILURE;
        }
        out.flush();
        err.flush();
        return code;
    }

    /** The commands, their options and help as every run parses and prints them. */
    static CommandLine commandLine() {
        CommandLine commandLine = withoutUnusedOptions(new CommandLine(new RootCommand()));
        commandLine.setHelpFactory(SpaceWrappedHelp::new);
        commandLine.setCaseInsensitiveEnumValuesAllowed(true);
        commandLine.setExecutionExceptionHandler(new ErrorReporter());
        commandLine.setParameterExceptionHandler(ErrorReporter::onParameterException);
        return commandLine;
    }

    /**
     * The global connection options, inherited by every command, are taken off the commands that never connect
     * ({@code inspect} runs on a host without network; {@code demo} starts its own cluster), so their help does not
     * list them and passing one there is an unknown option.
     */
    static CommandLine withoutUnusedOptions(CommandLine root) {
        for (CommandLine sub : root.getSubcommands().values()) {
            CommandSpec spec = sub.getCommandSpec();
            boolean connects = spec.mixins().values().stream().anyMatch(m -> m.userObject() instanceof ConnectionOptions);
            if (!connects) {
                GlobalOptions.NETWORK_OPTIONS.stream().map(spec::findOption).filter(java.util.Objects::nonNull)
                        .forEach(spec::remove);
            }
            // 'plan approve' reads a file only
            withoutUnusedOptions(sub);
        }
        return root;
    }
}
