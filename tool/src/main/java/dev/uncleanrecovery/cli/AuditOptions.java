// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import dev.uncleanrecovery.UserInputException;
import dev.uncleanrecovery.formats.AuditLine;
import java.nio.file.Path;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/** {@code --reason} and {@code --audit-log}, as every command that can change the cluster takes them. */
final class AuditOptions {

    @Option(names = "--reason", paramLabel = "TEXT",
            description = "Why this run changes the cluster (an incident ticket, what is offline), written to the"
                    + " audit log. Required unless it changes nothing (a dry run).")
    String reason;

    @Option(names = "--audit-log", paramLabel = "FILE",
            description = "The audit log this run appends its lines to (JSON Lines, created 0600; default: "
                    + AuditLine.FILE_NAME + " beside the plan, or the result file or salvage directory taken).")
    Path auditLog;

    /**
     * Starts the audit of a run that changes the cluster: refuses it without a reason, then appends its STARTED line.
     *
     * @param besideThis the file or directory the log goes beside by default
     */
    AuditTrail start(CommandSpec spec, Path besideThis, java.util.function.UnaryOperator<AuditLine> details) {
        requireReason(spec);
        Path log = auditLog != null ? auditLog : besideThis.toAbsolutePath().resolveSibling(AuditLine.FILE_NAME);
        return AuditTrail.start(log, spec, reason, details);
    }

    /** A run that changes the cluster says why: refused (exit 2, nothing done) without {@code --reason}. */
    void requireReason(CommandSpec spec) {
        if (reason == null || reason.isBlank()) {
            throw new UserInputException("--reason TEXT is required: this run changes the cluster; say why (e.g."
                    + " --reason 'INC-1234 orders offline'), for the audit log. A dry run needs none.");
        }
    }

    /** The work of a command that changes the cluster only when asked; {@code trail} is null for a dry run. */
    @FunctionalInterface
    interface AuditedWork {
        int run(AuditTrail trail) throws Exception;
    }

    /**
     * Runs {@code work}: a dry run as it is, a change between the STARTED and FINISHED lines of its audit log (beside
     * {@code besideThis} unless {@code --audit-log}), and then says where that log is.
     */
    int run(CommandSpec spec, GlobalOptions global, boolean change, Path besideThis,
            java.util.function.UnaryOperator<AuditLine> details, AuditedWork work) throws Exception {
        if (!change) {
            return work.run(null);
        }
        AuditTrail trail = start(spec, besideThis, details);
        int code = trail.around(() -> work.run(trail));
        trail.printWhere(spec.commandLine().getOut(), global);
        return code;
    }
}
