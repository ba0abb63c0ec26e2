// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

/** What happened to one partition of a plan. */
public enum Outcome {
    /** The designated replica leads, with leader epoch = planned + 1. */
    ELECTED,
    /** It was already led by the designated replica (the plan ran before): nothing done. */
    ALREADY_RECOVERED,
    /** Not touched: the partition changed since the plan, or a guard rail said no (see detail). */
    REFUSED,
    /** The controller elected a different replica than the designated one. Needs a human. */
    ELECTED_OTHER,
    /** A step failed; the detail says exactly what state was left behind. */
    FAILED,
    /** Dry run: it passed every check and would be elected; nothing was done. */
    WOULD_ELECT;

    public boolean needsAttention() {
        return this == REFUSED || this == ELECTED_OTHER || this == FAILED;
    }
}
