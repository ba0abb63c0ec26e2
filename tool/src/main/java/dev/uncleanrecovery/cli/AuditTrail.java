// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import dev.uncleanrecovery.UserInputException;
import dev.uncleanrecovery.execute.RunOwner;
import dev.uncleanrecovery.formats.AuditLine;
import dev.uncleanrecovery.formats.ConsumerOffsetReset;
import dev.uncleanrecovery.formats.ResultFile;
import dev.uncleanrecovery.formats.RunLockFate;
import dev.uncleanrecovery.view.ExecutionReport;
import dev.uncleanrecovery.view.Table;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParseResult;

/**
 * The audit of one run that changes the cluster: its STARTED line is on the disk before the run's first change,
 * its FINISHED line (exit code, outcomes, files) after its last, whatever its end; both name the same run id.
 */
final class AuditTrail {

    /**
     * Options whose value may be a secret: none of the tool's own takes one today (credentials live in the
     * --command-config file, whose path alone is recorded), but a value given to such a name is never written.
     */
    private static final Pattern SECRET_OPTION = Pattern.compile(
            "(?i)(password|passwd|secret|token|credential|jaas|private[-_.]?key|api[-_.]?key)");
    /**
     * A Kafka client property with a secret value pasted into an argument: {@code sasl.jaas.config=... password="x"};
     * found anywhere in it, on any of its lines.
     */
    private static final Pattern SECRET_TEXT = Pattern.compile(
            "(?i)(password\\s*=|sasl\\.jaas\\.config|secret\\s*=|token\\s*=)");
    static final String REDACTED = "***";

    private final Path log;
    private final CommandSpec spec;
    private final ParseResult parseResult;
    private AuditLine line;
    private final List<AuditLine.Outcome> outcomes = new ArrayList<>();
    private boolean finished;
    /** The FINISHED line could not be written. */
    private boolean incomplete;

    private AuditTrail(Path log, CommandSpec spec, ParseResult parseResult, AuditLine line) {
        this.log = log;
        this.spec = spec;
        this.parseResult = parseResult;
        this.line = line;
    }

    static AuditTrail start(Path log, CommandSpec spec, String reason, UnaryOperator<AuditLine> details) {
        ParseResult parsed = spec.root().commandLine().getParseResult();
        // what the tool read: an @file argument hides the options in the file (--no-salvage, --without-lock, ...)
        List<String> args = parsed == null ? List.of() : parsed.expandedArgs();
        String command = spec.qualifiedName(" ").replaceFirst("^\\S+ ", "");
        AuditLine started = details.apply(new AuditLine(AuditLine.VERSION, UUID.randomUUID().toString(),
                AuditLine.Event.STARTED, command, Instant.now(), null, System.getProperty("user.name", "unknown"),
                RunOwner.thisHost(), ProcessHandle.current().pid(), reasonWithoutSecrets(reason),
                withoutSecrets(args), null, null, null, null, null, null, null, null, null, null));
        AuditTrail trail = new AuditTrail(log, spec, parsed, started);
        try {
            started.appendTo(log);
        } catch (IOException | RuntimeException e) {
            throw new UserInputException("the audit log " + log + " cannot be appended to (" + e.getMessage()
                    + "); nothing was changed: fix it or name another with --audit-log", e);
        }
        return trail;
    }

    /** The arguments with each value of an option that may carry a secret replaced by {@value #REDACTED}. */
    static List<String> withoutSecrets(List<String> args) {
        List<String> kept = new ArrayList<>(args.size());
        boolean nextIsSecret = false;
        for (String arg : args) {
            if (nextIsSecret) {
                kept.add(REDACTED);
                nextIsSecret = false;
                continue;
            }
            int equals = arg.indexOf('=');
            if (arg.startsWith("-") && equals > 0 && SECRET_OPTION.matcher(arg.substring(0, equals)).find()) {
                kept.add(arg.substring(0, equals + 1) + REDACTED);
            } else if (arg.startsWith("-") && equals < 0 && SECRET_OPTION.matcher(arg).find()) {
                kept.add(arg);
                nextIsSecret = true;
            } else if (SECRET_TEXT.matcher(arg).find()) {
                kept.add(REDACTED);
            } else {
                kept.add(arg);
            }
        }
        return kept;
    }

    /** {@code --reason} as the command line records it: {@value #REDACTED} when it holds what may be a secret. */
    static String reasonWithoutSecrets(String reason) {
        return reason == null ? null : withoutSecrets(List.of(reason)).get(0);
    }

    /** What became of the run lock, for the FINISHED line. */
    synchronized void runLock(RunLockFate fate) {
        line = line.withRunLock(fate);
    }

    /** Where a run tells what became of its run lock: {@code trail}, or nowhere for a dry run (null). */
    static Consumer<RunLockFate> lockFateTo(AuditTrail trail) {
        return trail == null ? fate -> { } : trail::runLock;
    }

    /** The plan the run applies, once known (recover writes its own). */
    void plan(Path planFile, String sha256) {
        line = line.withPlan(planFile.toAbsolutePath().toString(), sha256);
    }

    /** recover: its plan is on the disk; the PLANNED line is too before this returns, so before any election. */
    void planned(Path planFile, String sha256, Path salvageDir) throws IOException {
        plan(planFile, sha256);
        files(salvageDir, null, null);
        line.next(AuditLine.Event.PLANNED, null, null, null, null).appendTo(log);
    }

    synchronized void files(Path salvageDir, Path resultFile, List<Path> fromResults) {
        line = line.withFiles(salvageDir == null ? line.salvageDir() : salvageDir.toAbsolutePath().toString(),
                resultFile == null ? line.resultFile() : resultFile.toAbsolutePath().toString(),
                fromResults == null ? line.fromResultFiles()
                        : fromResults.stream().map(p -> p.toAbsolutePath().toString()).toList());
    }

    synchronized void outcome(AuditLine.Outcome outcome) {
        outcomes.add(outcome);
    }

    /** {@link ExecutionReport.Written}: the outcomes the result file records, and where it was written. */
    synchronized void recorded(ResultFile result, Path where) {
        outcomes(result);
        if (where != null) {
            files(null, where, null);
        }
    }

    /**
     * What a result file records, in place of any recorded before: each partition's outcome and leader, offset
     * resets, transaction aborts.
     */
    synchronized void outcomes(ResultFile result) {
        outcomes.clear();
        for (ResultFile.Partition p : result.partitions()) {
            outcome(new AuditLine.Outcome(p.topic(), p.partition(), p.outcome(),
                    p.after() == null || p.after().leader() < 0 ? null : p.after().leader(), null, null));
        }
        if (result.consumerOffsetResets() != null) {
            resets(result.consumerOffsetResets());
        }
        if (result.hangingTransactions() != null) {
            aborts(result.hangingTransactions());
        }
    }

    /** Each hanging transaction an abort was tried on, aborted or not. */
    synchronized void aborts(List<ResultFile.HangingTransaction> transactions) {
        transactions.stream().filter(h -> h.aborted() != null).forEach(h -> outcome(
                new AuditLine.Outcome(h.topic(), h.partition(), h.aborted() ? "ABORTED" : "NOT_ABORTED", null,
                        null, "producer id " + h.producerId() + " from offset " + h.startOffset()
                        + (h.abortError() == null ? "" : ": " + h.abortError()))));
    }

    /** Each consumer group's offset set back (or not) on a partition. */
    synchronized void resets(List<ConsumerOffsetReset> resets) {
        resets.forEach(r -> outcome(new AuditLine.Outcome(r.topic(), r.partition(), r.outcome().name(), null,
                r.group(), "committed offset " + r.committedOffset() + ", divergence point " + r.divergenceOffset()
                + (r.detail() == null ? "" : ": " + r.detail()))));
    }

    /**
     * Runs the command's work and appends the FINISHED line, also when the work throws (then reported as any error).
     * A FINISHED line that cannot be written is an error of its own, said after the run's, and the run exits
     * {@value ExitCode#FAILURE} whatever it did: a run that changed the cluster is never left unaudited silently.
     */
    int around(Callable<Integer> work) throws Exception {
        int code;
        try {
            code = work.call();
        } catch (Exception | Error e) {
            ErrorReporter.Reported reported = ErrorReporter.reported(e, parseResult);
            Optional<String> notWritten = finish(reported.code(), reported.line());
            if (notWritten.isEmpty()) {
                throw e;
            }
            if (e instanceof Error) {
                ErrorReporter.printError(spec.commandLine().getErr(), notWritten.get());
                throw e;
            }
            CommandLine commandLine = spec.commandLine();
            commandLine.getExecutionExceptionHandler().handleExecutionException((Exception) e, commandLine,
                    parseResult);
            ErrorReporter.printError(commandLine.getErr(), notWritten.get());
            return ExitCode.FAILURE;
        }
        Optional<String> notWritten = finish(code, null);
        if (notWritten.isPresent()) {
            ErrorReporter.printError(spec.commandLine().getErr(), notWritten.get());
            return ExitCode.FAILURE;
        }
        return code;
    }

    /** Appends the FINISHED line; what went wrong, in one line, when it could not be. */
    private synchronized Optional<String> finish(int exitCode, String error) {
        if (finished) {
            return Optional.empty();
        }
        finished = true;
        try {
            line.next(AuditLine.Event.FINISHED, Instant.now(), exitCode, error, outcomes).appendTo(log);
            return Optional.empty();
        } catch (IOException | RuntimeException e) {
            incomplete = true;
            return Optional.of("run " + line.runId() + " is not fully audited: its FINISHED line could not be"
                    + " appended to the audit log " + log + " (" + e.getMessage() + "). What it did is in "
                    + (line.resultFile() == null ? "its output" : line.resultFile() + " and its output")
                    + ": keep them with the log, and fix the log before the next run (exit " + ExitCode.FAILURE + ")");
        }
    }

    /**
     * Where the run's lines went, after its output (text only: JSON output is the result alone); nothing where the
     * FINISHED line is missing (an error says so).
     */
    synchronized void printWhere(java.io.PrintWriter out, GlobalOptions global) {
        if (global.output != GlobalOptions.OutputFormat.json && !incomplete) {
            Table.printWrapped(out, "Audit log: " + log + " (run " + line.runId() + ")", 4);
        }
    }

    Path log() {
        return log;
    }
}
