// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import dev.uncleanrecovery.UserInputException;
import dev.uncleanrecovery.connect.ClusterUnreachableException;
import dev.uncleanrecovery.connect.TlsHandshakeException;
import dev.uncleanrecovery.execute.RunLock;
import dev.uncleanrecovery.support.BoundedFiles;
import dev.uncleanrecovery.support.Causes;
import java.io.PrintWriter;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine;

/** The one place that turns failures into one line (what, why, what next) and an exit code. */
final class ErrorReporter implements IExecutionExceptionHandler {

    // Kafka's text for a request a broker forwarded to the controller is a dump of the request:
    // "Request Request(processor=1, connectionId=..., ...) needs DESCRIBE permission."
    private static final Pattern NEEDS_PERMISSION = Pattern.compile("needs (\\w+) permission");

    @Override
    public int handleExecutionException(Exception ex, CommandLine commandLine, ParseResult parseResult) {
        PrintWriter err = commandLine.getErr();
        Reported reported = reported(ex, parseResult);
        printError(err, reported.line());
        if (isVerbose(parseResult)) {
            ex.printStackTrace(err);
        } else if (reported.code() == ExitCode.FAILURE && !(unwrap(ex) instanceof RunLock.NotTaken)) {
            err.println("(rerun with --verbose for the stack trace)");
        }
        err.flush();
        return reported.code();
    }

    /** One error, as every error is said: "error: " and its one line. */
    static void printError(PrintWriter err, String line) {
        err.println("error: " + line);
        err.flush();
    }

    /** The exit code an error ends the run with, and the line that says it (after "error: "). */
    record Reported(int code, String line) {
    }

    static Reported reported(Throwable ex, ParseResult parseResult) {
        Throwable cause = unwrap(ex);
        // the broker connections name the broker and the truststore; Admin and the producer (replay) say no more
        // than "SSL handshake failed"
        TlsHandshakeException refusedHandshake = Causes.firstOf(cause, TlsHandshakeException.class);
        SslAuthenticationException failedHandshake = Causes.firstOf(cause, SslAuthenticationException.class);
        int code;
        String line;
        if (cause instanceof UserInputException) {
            code = ExitCode.USAGE;
            line = cause.getMessage();
        } else if (cause instanceof BoundedFiles.NotRegularFileException
                || cause instanceof BoundedFiles.TooLargeException) {
            code = ExitCode.USAGE;
            line = cause.getMessage() + " — give the file itself: a plan, evidence or partition list as the tool or"
                    + " kafka-leader-election.sh writes it";
        } else if (cause instanceof AuthorizationException refused) {
            code = ExitCode.USAGE;
            line = "not authorized: " + refusal(refused)
                    + " — grant the ACLs listed in README.md (Permissions) to this principal";
        } else if (refusedHandshake != null) {
            code = ExitCode.USAGE;
            line = refusedHandshake.getMessage();
        } else if (failedHandshake != null) {
            code = ExitCode.USAGE;
            line = TlsHandshakeException.explain("a broker of --bootstrap-server " + bootstrapServer(parseResult),
                    failedHandshake, null);
        } else if (authenticationFailure(cause) != null) {
            code = ExitCode.USAGE;
            line = "authentication failed: " + withoutKafkaPrefix(authenticationFailure(cause).getMessage())
                    + " — check sasl.jaas.config (user name, password), sasl.mechanism and security.protocol in --command-config";
        } else if (cause instanceof RunLock.NotTaken notTaken) {
            // nothing was changed, and the message names the other run or what to fix
            code = ExitCode.FAILURE;
            line = notTaken.getMessage();
        } else if (cause instanceof ClusterUnreachableException) {
            code = ExitCode.UNREACHABLE;
            line = cause.getMessage();
        } else if (cause instanceof TimeoutException) {
            // an Admin or producer call no broker answered in time
            code = ExitCode.UNREACHABLE;
            line = "timed out: " + cause.getMessage() + " — is --bootstrap-server reachable?";
        } else {
            code = ExitCode.FAILURE;
            line = cause.getClass().getSimpleName() + ": " + cause.getMessage();
        }
        return new Reported(code, line);
    }

    static int onParameterException(ParameterException ex, String[] args) {
        PrintWriter err = ex.getCommandLine().getErr();
        err.println("error: " + optionBeforeItsCommand(ex, args).orElse(ex.getMessage()));
        err.println("Try '" + ex.getCommandLine().getCommandSpec().qualifiedName() + " --help' for usage.");
        err.flush();
        return ExitCode.USAGE;
    }

    /**
     * Only the options of the root ({@link GlobalOptions}) go before the command name: "--topic orders status" names
     * an option of status where the root has none.
     */
    private static Optional<String> optionBeforeItsCommand(ParameterException ex, String[] args) {
        CommandLine root = ex.getCommandLine();
        if (!(ex instanceof CommandLine.UnmatchedArgumentException unmatched) || root.getParent() != null) {
            return Optional.empty();
        }
        Optional<CommandLine> command = Arrays.stream(args).map(root.getSubcommands()::get).filter(Objects::nonNull)
                .findFirst();
        return command.flatMap(sub -> unmatched.getUnmatched().stream()
                .map(arg -> arg.split("=", 2)[0])
                .filter(name -> name.startsWith("-") && sub.getCommandSpec().findOption(name) != null)
                .findFirst()
                .map(name -> name + " is an option of " + sub.getCommandName() + ": give it after the command name ("
                        + root.getCommandName() + " " + sub.getCommandName() + " " + name + " ...); only "
                        + root.getCommandSpec().options().stream().filter(o -> o.scopeType() == ScopeType.INHERIT)
                                .map(OptionSpec::longestName).collect(Collectors.joining(", ")) + " go before it"));
    }

    private static String refusal(AuthorizationException refused) {
        if (refused instanceof TopicAuthorizationException topics && !topics.unauthorizedTopics().isEmpty()) {
            return "refused on topic(s) " + topics.unauthorizedTopics().stream().sorted()
                    .map(t -> "'" + t + "'").collect(Collectors.joining(", "));
        }
        String message = String.valueOf(refused.getMessage());
        Matcher needs = NEEDS_PERMISSION.matcher(message);
        if (needs.find()) {
            String on = refused instanceof ClusterAuthorizationException ? " on the cluster"
                    : refused instanceof TopicAuthorizationException ? " on the topic" : "";
            return "the request needs " + needs.group(1) + " permission" + on;
        }
        return message;
    }

    /** An authentication failure anywhere in the chain: Admin throws it bare, broker connections wrap it. */
    private static AuthenticationException authenticationFailure(Throwable t) {
        return Causes.firstOf(t, AuthenticationException.class);
    }

    // SASL/PLAIN says "Authentication failed: Invalid username or password"; our line already says it.
    private static String withoutKafkaPrefix(String message) {
        String text = String.valueOf(message);
        String prefix = "authentication failed: ";
        return text.regionMatches(true, 0, prefix, 0, prefix.length()) ? text.substring(prefix.length()) : text;
    }

    private static Throwable unwrap(Throwable t) {
        Throwable cause = t;
        while ((cause instanceof ExecutionException || cause instanceof java.util.concurrent.CompletionException
                || cause instanceof CommandLine.ExecutionException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    private static String bootstrapServer(ParseResult parseResult) {
        for (ParseResult r = parseResult; r != null; r = r.subcommand()) {
            if (r.hasMatchedOption("--bootstrap-server")) {
                return r.matchedOptionValue("--bootstrap-server", "");
            }
        }
        return "";
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
