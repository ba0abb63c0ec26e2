// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import dev.uncleanrecovery.cluster.UnreadableTopic;
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
}
