// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import dev.uncleanrecovery.cluster.UnreadableTopic;
import dev.uncleanrecovery.execute.ExecutionResult;
import dev.uncleanrecovery.execute.Outcome;
import dev.uncleanrecovery.formats.ConsumerOffsetReset;
import dev.uncleanrecovery.recovery.ConsumerOffsetRepair;
import dev.uncleanrecovery.recovery.DiskSalvageFlow;
import dev.uncleanrecovery.recovery.PlanFlow;
import dev.uncleanrecovery.salvage.DiskSalvage;
import java.util.List;

/** The documented exit codes (README "Exit codes"). */
public final class ExitCode {
    /** Done: nothing offline, or everything asked for was done. */
    public static final int OK = 0;
    /** Failure: the tool could not do what was asked (or the controller elected someone else). */
    public static final int FAILURE = 1;
    /** Bad usage or input: unknown topic, malformed file, unresolvable bootstrap server, missing ACL: fix the command. */
    public static final int USAGE = 2;
    /** Partial: some partitions need attention (offline, skipped or refused). */
    public static final int ATTENTION = 3;
    /**
     * The cluster could not be reached or did not answer in time: run the same command again once it answers. Kafka's
     * tools exit 1 for this as for everything; a runbook must tell it from 2, which needs the command changed.
     */
    public static final int UNREACHABLE = 4;

    /** The heading of the "Exit codes" section that ends each command's help. */
    static final String HELP_HEADING = "%nExit codes:%n";
    /** The codes every command's help says in the same words (picocli's "code:meaning"). */
    static final String FAILURE_HELP = "1:failure: the tool could not do what was asked (the error says why)";
    static final String USAGE_HELP = "2:bad usage or input: fix the command";
    static final String UNREACHABLE_HELP = "4:the cluster could not be reached or did not answer in time: run the"
            + " same command again once it answers";

    private ExitCode() {
    }

    /**
     * {@code code} made to say that some topics could not be read: 2 when one needs the operator (an ACL to grant, a
     * topic name they gave that does not exist), which wins over 3 since the answer stays incomplete until it is
     * fixed; else at least 3 (deleted since listed, no leader yet...: run again).
     */
    static int withUnreadableTopics(int code, List<UnreadableTopic> unreadable) {
        if (unreadable.stream().anyMatch(UnreadableTopic::badInput)) {
            return USAGE;
        }
        return unreadable.isEmpty() || code != OK ? code : ATTENTION;
    }

    /** A planning: 3 when partitions were skipped; what the topics not read make of it. */
    static int of(PlanFlow.Result planned) {
        return withUnreadableTopics(planned.plan().skipped().isEmpty() ? OK : ATTENTION,
                planned.snapshot().unreadableTopics());
    }

    /**
     * An execution: 1 when an election failed or the controller elected another replica, 3 when a partition needs
     * attention, else what the offset repair asked for (null: none) makes of it.
     */
    static int of(ExecutionResult result, ConsumerOffsetRepair.Repair repair) {
        if (result.count(Outcome.FAILED) > 0 || result.anyElectedOther()) {
            return FAILURE;
        }
        if (result.needsAttention()) {
            return ATTENTION;
        }
        return repair == null ? OK : of(repair);
    }

    /**
     * An offset repair: 3 when it is incomplete: a group past its divergence point keeps its offset, or a group could
     * not be read, decided or recorded.
     */
    static int of(ConsumerOffsetRepair.Repair repair) {
        return repair.isComplete() ? OK : ATTENTION;
    }

    /** A copy off a stopped broker's disk: 3 when a partition's range could not be copied. */
    static int of(DiskSalvageFlow.Copied copied) {
        return copied.outcomes().stream().anyMatch(o -> o.status() == DiskSalvage.Status.NEEDS_ATTENTION)
                ? ATTENTION : OK;
    }
}
