// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import dev.uncleanrecovery.UserInputException;
import java.io.PrintWriter;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.TimeoutException;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;

/** The one place that turns failures into one line (what, why, what next) and an exit code. */
final class ErrorReporter implements IExecutionExceptionHandler {

    @Override
    public int handleExecutionException(Exception ex, CommandLine commandLine, ParseResult parseResult) {
        PrintWriter err = commandLine.getErr();
        Throwable cause = unwrap(ex);
        int code;
        String line;
        if (cause instanceof UserInputException) {
            code = ExitCode.USAGE;
            line = cause.getMessage();
        } else if (cause instanceof AuthorizationException) {
            code = ExitCode.USAGE;
            line = "not authorized: " + cause.getMessage()
                    + " — grant the ACLs listed in README.md (Permissions) to this principal";
        } else if (cause instanceof AuthenticationException) {
            code = ExitCode.USAGE;
            line = "authentication failed: " + cause.getMessage() + " — check the --command-config properties";
        } else if (cause instanceof TimeoutException) {
            code = ExitCode.USAGE;
            line = "timed out: " + cause.getMessage() + " — is --bootstrap-server reachable?";
        } else {
            code = ExitCode.FAILURE;
            line = cause.getClass().getSimpleName() + ": " + cause.getMessage();
        }
        err.println("error: " + line);
        if (isVerbose(parseResult)) {
            ex.printStackTrace(err);
        } else if (code == ExitCode.FAILURE) {
            err.println("(rerun with --verbose for the stack trace)");
        }
        err.flush();
        return code;
    }

    static int onParameterException(ParameterException ex, String[] args) {
        PrintWriter err = ex.getCommandLine().getErr();
        err.println("error: " + ex.getMessage());
        err.println("Try '" + ex.getCommandLine().getCommandSpec().qualifiedName() + " --help' for usage.");
        err.flush();
        return ExitCode.USAGE;
    }

    private static Throwable unwrap(Throwable t) {
        Throwable cause = t;
        while ((cause instanceof ExecutionException || cause instanceof java.util.concurrent.CompletionException
                || cause instanceof CommandLine.ExecutionException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    private static boolean isVerbose(ParseResult parseResult) {
        for (ParseResult r = parseResult; r != null; r = r.subcommand()) {
            if (r.hasMatchedOption("--verbose")) {
                return true;
            }
        }
        return false;
    }
}
