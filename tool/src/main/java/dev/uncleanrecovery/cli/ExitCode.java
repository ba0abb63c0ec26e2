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
    /** Bad usage or input: unknown topic, malformed file, unreachable bootstrap server, missing ACL. */
    public static final int USAGE = 2;
    /** Partial: some partitions need attention (offline, skipped or refused). */
    public static final int ATTENTION = 3;

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

    /** An offset repair: 3 when a group past its divergence point keeps its offset. */
    static int of(ConsumerOffsetRepair.Repair repair) {
        return repair.count(ConsumerOffsetReset.Outcome.ACTIVE_GROUP) + repair.count(ConsumerOffsetReset.Outcome.FAILED)
                > 0 ? ATTENTION : OK;
    }

    /** A copy off a stopped broker's disk: 3 when a partition's range could not be copied. */
    static int of(DiskSalvageFlow.Copied copied) {
        return copied.outcomes().stream().anyMatch(o -> o.status() == DiskSalvage.Status.NEEDS_ATTENTION)
                ? ATTENTION : OK;
    }
}
