// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.plan;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.uncleanrecovery.election.ExpectedTruncation;
import dev.uncleanrecovery.election.TruncationEstimate;

/**
 * What one replica is expected to lose: offsets {@code [fromOffset, toOffset)}. See {@link ExpectedTruncation}
 * for how the estimate is made and why a different epoch only gives a lower bound ({@code AT_LEAST}).
 *
 * @param records    absent when the estimate is UNKNOWN
 * @param fromOffset absent when the estimate is UNKNOWN
 * @param toOffset   the replica's log end offset; absent when the estimate is UNKNOWN
 * @param committedRecords how many of the lost offsets were committed (below the high watermark of a replica holding
 *                   the same records), at least; absent when no high watermark says (plan version 2)
 * @param neverCommittedRecords how many were certainly never committed (past where the replica's epoch ends on the
 *                   leader of a later epoch); absent in version-1 plans. The rest is of unknown commitment.
 */
public record PlanTruncation(
        @JsonProperty(required = true) int broker,
        Long records,
        Long fromOffset,
        Long toOffset,
        @JsonProperty(required = true) TruncationEstimate estimate,
        Long committedRecords,
        Long neverCommittedRecords) {

    /** An entry of a version-1 plan, which does not split committed from never-committed loss. */
    public PlanTruncation(int broker, Long records, Long fromOffset, Long toOffset, TruncationEstimate estimate) {
        this(broker, records, fromOffset, toOffset, estimate, null, null);
    }

    public PlanTruncation {
        Checks.atLeast(broker, 0, "broker");
        Checks.present(estimate, "estimate");
        if (estimate == TruncationEstimate.UNKNOWN) {
            if (records != null || fromOffset != null || toOffset != null) {
                throw new IllegalArgumentException("estimate UNKNOWN cannot have records, fromOffset or toOffset");
            }
        } else {
            Checks.present(records, "records");
            Checks.present(fromOffset, "fromOffset");
            Checks.present(toOffset, "toOffset");
            if (records < 0 || fromOffset < 0 || toOffset < fromOffset) {
                throw new IllegalArgumentException("records " + records + ", fromOffset " + fromOffset + ", toOffset "
                        + toOffset + " do not describe a range of offsets");
            }
            if (committedRecords != null && (committedRecords < 0 || committedRecords > records)) {
                throw new IllegalArgumentException("committedRecords " + committedRecords + " must be between 0 and"
                        + " records " + records);
            }
            long committed = committedRecords == null ? 0 : committedRecords;
            if (neverCommittedRecords != null && (neverCommittedRecords < 0 || committed + neverCommittedRecords > records)) {
                throw new IllegalArgumentException("neverCommittedRecords " + neverCommittedRecords + " must be between 0"
                        + " and records " + records + " less committedRecords");
            }
        }
    }

    public static PlanTruncation from(ExpectedTruncation truncation) {
        if (!truncation.isKnown()) {
            return new PlanTruncation(truncation.broker(), null, null, null, truncation.estimate());
        }
        return new PlanTruncation(truncation.broker(), truncation.records(), truncation.fromOffset(),
                truncation.toOffset(), truncation.estimate(), truncation.committed() < 0 ? null : truncation.committed(),
                // absent when none: most losses have no superseded suffix, and a plan holds thousands of them
                truncation.neverCommitted() == 0 ? null : truncation.neverCommitted());
    }
}
