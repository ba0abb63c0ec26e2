// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.formats;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * What became of the cluster's run lock at the end of a run that changes the cluster, as its result file and its
 * audit log's {@code FINISHED} line record it: a lock left in place stops every later run from another host until an
 * operator breaks it.
 *
 * <pre>{@code
 * "runLock": { "lockId": "hk1oX2dvTqCnT0ahVNy6Bg", "fate": "LEFT_IN_PLACE",
 *              "detail": "not removed (TOPIC_DELETION_DISABLED): ... --break-lock hk1oX2dvTqCnT0ahVNy6Bg" }
 * }</pre>
 *
 * @param lockId the lock's topic id; absent when the run took none ({@code --without-lock})
 * @param detail why the lock was left or was gone, and what to do; absent when it was released
 */
public record RunLockFate(
        @JsonInclude(JsonInclude.Include.NON_NULL) String lockId,
        @Required Fate fate,
        @JsonInclude(JsonInclude.Include.NON_NULL) String detail) {

    public enum Fate {
        /** Removed by the run once it changed nothing more. */
        RELEASED,
        /** Gone before the run removed it: someone removed it ({@code --break-lock}) while this run held it. */
        REMOVED_BY_ANOTHER,
        /** Still on the cluster: its deletion was refused or not answered; {@code detail} says how to remove it. */
        LEFT_IN_PLACE,
        /** The run went without it ({@code --without-lock}). */
        NOT_TAKEN
    }

    /** {@code --without-lock}: the operator vouched that no other run was active. */
    public static final RunLockFate NOT_TAKEN = new RunLockFate(null, Fate.NOT_TAKEN, "--without-lock");
}
