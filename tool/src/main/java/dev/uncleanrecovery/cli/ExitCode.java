// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

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
}
