// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.formats;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.uncleanrecovery.support.DurableFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

/**
 * One line of the audit log (JSON Lines): every run that can change the cluster appends a {@code STARTED} line,
 * flushed to the disk before its first change, and a {@code FINISHED} line after its last, both with the same
 * {@code runId}; {@code recover --automated-recovery} adds a {@code PLANNED} line once its plan is on disk, before it
 * elects. A {@code STARTED} line without its {@code FINISHED} is a run that was killed (or whose host died) midway.
 *
 * <pre>{@code
 * {"version":2,"runId":"5b0f...","event":"FINISHED","command":"execute","startedAt":"2026-12-05T02:00:00Z",
 *  "endedAt":"2026-12-05T02:00:04Z","user":"alice","host":"ops-1","pid":4242,"reason":"INC-1234 orders offline",
 *  "commandLine":["--bootstrap-server","10.0.0.1:9092","execute","--plan","plan.json","--reason","INC-1234 ..."],
 *  "planFile":"/ops/plan.json","planSha256":"9f86d0...","salvageDir":"/ops/plan-salvage",
 *  "resultFile":"/ops/plan-result.json","exitCode":0,
 *  "outcomes":[{"topic":"orders","partition":0,"outcome":"ELECTED","leader":2}],
 *  "runLock":{"lockId":"hk1oX2dvTqCnT0ahVNy6Bg","fate":"RELEASED"}}
 * }</pre>
 *
 * @param reason          why, as given to {@code --reason}; {@code ***} when it holds what looks like a secret, as
 *                        in {@code commandLine}
 * @param commandLine     the arguments as the tool read them: an {@code @file} argument replaced by the arguments in
 *                        that file (picocli's expansion), the values of options that can carry a secret replaced by
 *                        {@code ***}
 * @param planSha256      SHA-256 of the plan file's bytes as the run read them (lower-case hex)
 * @param approval        the approval {@code --require-approval} accepted; absent when none was required
 * @param resultFile      the result file this run wrote
 * @param fromResultFiles the result files this run read (consumer-offsets, replay)
 * @param exitCode        FINISHED lines only
 * @param error           FINISHED lines of a run that stopped on an error: the error, in one line
 * @param outcomes        FINISHED lines: per partition (and group) what the run did
 * @param runLock         FINISHED lines of a run that took the run lock or went without it: what became of it
 *                        (version 2)
 */
public record AuditLine(
        @Required int version,
        @Required String runId,
        @Required Event event,
        @Required String command,
        @Required Instant startedAt,
        @JsonInclude(JsonInclude.Include.NON_NULL) Instant endedAt,
        @Required String user,
        @Required String host,
        @Required long pid,
        @Required String reason,
        @Required List<String> commandLine,
        @JsonInclude(JsonInclude.Include.NON_NULL) String planFile,
        @JsonInclude(JsonInclude.Include.NON_NULL) String planSha256,
        @JsonInclude(JsonInclude.Include.NON_NULL) Approval approval,
        @JsonInclude(JsonInclude.Include.NON_NULL) String salvageDir,
        @JsonInclude(JsonInclude.Include.NON_NULL) String resultFile,
        @JsonInclude(JsonInclude.Include.NON_NULL) List<String> fromResultFiles,
        @JsonInclude(JsonInclude.Include.NON_NULL) Integer exitCode,
        @JsonInclude(JsonInclude.Include.NON_NULL) String error,
        @JsonInclude(JsonInclude.Include.NON_NULL) List<Outcome> outcomes,
        @JsonInclude(JsonInclude.Include.NON_NULL) RunLockFate runLock) {

    /** 2 adds runLock, and commandLine holds what an {@code @file} argument expands to. */
    public static final int VERSION = 2;

    /** The default file name, in the directory of the plan (or of the result or salvage the command takes). */
    public static final String FILE_NAME = "kafka-unclean-recovery-audit.jsonl";

    private static final StrictJsonFile<AuditLine> FORMAT = new StrictJsonFile<>(AuditLine.class, "audit line", 1,
            VERSION, "a run that changes the cluster", PlanFormatException::new);

    public enum Event {
        /** Before the run's first change. */
        STARTED,
        /** recover: its plan is on disk, before the first election. */
        PLANNED,
        /** After the run's last change, whatever its end. */
        FINISHED
    }

    /**
     * What became of one partition.
     *
     * @param outcome ELECTED, REFUSED, ... as in the result file; RESET, ACTIVE_GROUP, ... for a consumer group's
     *                offset (then {@code group}); ABORTED or NOT_ABORTED for a hanging transaction; REPLAYED for
     *                records produced back
     * @param leader  the partition's leader after the run, where the run elected or read it
     */
    public record Outcome(
            @Required String topic,
            @Required int partition,
            @Required String outcome,
            @JsonInclude(JsonInclude.Include.NON_NULL) Integer leader,
            @JsonInclude(JsonInclude.Include.NON_NULL) String group,
            @JsonInclude(JsonInclude.Include.NON_NULL) String detail) {
    }

    /**
     * The approval {@code execute --require-approval} accepted.
     *
     * @param signature      how its SSH signature was checked: ssh-keygen's words, or absent when no
     *                       {@code --allowed-signers} was given (the name alone)
     * @param allowedOptions the options that weaken a safeguard it allows (version 2); absent when none
     */
    public record Approval(@Required String by, @Required String file, @Required Instant approvedAt,
                           @JsonInclude(JsonInclude.Include.NON_NULL) String signature,
                           @JsonInclude(JsonInclude.Include.NON_EMPTY) List<String> allowedOptions) {
        public Approval {
            allowedOptions = allowedOptions == null ? List.of() : List.copyOf(allowedOptions);
        }
    }

    public AuditLine {
        commandLine = List.copyOf(commandLine);
        fromResultFiles = fromResultFiles == null ? null : List.copyOf(fromResultFiles);
        outcomes = outcomes == null ? null : List.copyOf(outcomes);
    }

    /** The same run's next line. */
    public AuditLine next(Event next, Instant endedAt, Integer exitCode, String error, List<Outcome> outcomes) {
        return new AuditLine(version, runId, next, command, startedAt, endedAt, user, host, pid, reason, commandLine,
                planFile, planSha256, approval, salvageDir, resultFile, fromResultFiles, exitCode, error, outcomes,
                runLock);
    }

    public AuditLine withPlan(String file, String sha256) {
        return new AuditLine(version, runId, event, command, startedAt, endedAt, user, host, pid, reason, commandLine,
                file, sha256, approval, salvageDir, resultFile, fromResultFiles, exitCode, error, outcomes, runLock);
    }

    public AuditLine withApproval(Approval accepted) {
        return new AuditLine(version, runId, event, command, startedAt, endedAt, user, host, pid, reason, commandLine,
                planFile, planSha256, accepted, salvageDir, resultFile, fromResultFiles, exitCode, error, outcomes,
                runLock);
    }

    public AuditLine withFiles(String salvage, String result, List<String> fromResults) {
        return new AuditLine(version, runId, event, command, startedAt, endedAt, user, host, pid, reason, commandLine,
                planFile, planSha256, approval, salvage, result, fromResults, exitCode, error, outcomes, runLock);
    }

    /** The same line with what became of the run lock. */
    public AuditLine withRunLock(RunLockFate fate) {
        return new AuditLine(version, runId, event, command, startedAt, endedAt, user, host, pid, reason, commandLine,
                planFile, planSha256, approval, salvageDir, resultFile, fromResultFiles, exitCode, error, outcomes,
                fate);
    }

    /** The line as written: compact JSON, one line (a newline in the reason is escaped), and the newline. */
    public byte[] toBytes() {
        return JsonLines.line(this);
    }

    /** Appends this line to {@code log}, on the disk before this returns (see {@link DurableFiles#appendLine}). */
    public void appendTo(Path log) throws IOException {
        DurableFiles.appendLine(log, toBytes());
    }

    /** One line of an audit log, read as strictly as the tool's other files. */
    public static AuditLine parse(String source, String line) {
        return FORMAT.parse(source, line.getBytes(StandardCharsets.UTF_8));
    }

    /** Every line of an audit log. */
    public static List<AuditLine> readAll(Path log) throws IOException {
        return JsonLines.readAll(log, FORMAT);
    }
}
