// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.formats;

import dev.uncleanrecovery.election.ExpectedTruncation;
import dev.uncleanrecovery.election.TruncationEstimate;

/**
 * What one replica is expected to lose: offsets {@code [fromOffset, toOffset)}. See {@link ExpectedTruncation}
 * for how the estimate is made and why a different epoch only gives a lower bound ({@code AT_LEAST}).
 *
 * <p>A known loss is split three ways, written out so that no reader has to subtract:
 * {@code records = committedRecords + neverCommittedRecords + unknownCommitmentRecords} (an absent count is 0).
 *
 * @param records    absent when the estimate is UNKNOWN
 * @param fromOffset absent when the estimate is UNKNOWN
 * @param toOffset   the replica's log end offset; absent when the estimate is UNKNOWN
 * @param committedRecords how many of the lost offsets were committed (below the high watermark of a replica holding
 *                   the same records), at least; absent when no high watermark says (plan version 2), so 0 always
 *                   means that a high watermark was known and proves none
 * @param neverCommittedRecords how many were certainly never committed (past where the replica's epoch ends on the
 *                   leader of a later epoch); absent when none, and in version-1 plans
 * @param unknownCommitmentRecords how many are neither proven committed nor proven never committed: past every high
 *                   watermark known, which lags on a follower, so they may well have been acknowledged (plan version
 *                   4; present on every known loss, derived from the others when an older plan is read)
 */
public record PlanTruncation(
        @Required int broker,
        Long records,
        Long fromOffset,
        Long toOffset,
        @Required TruncationEstimate estimate,
        Long committedRecords,
        Long neverCommittedRecords,
        Long unknownCommitmentRecords) {

    /** An entry of a version-1 plan, which does not split committed from never-committed loss. */
    public PlanTruncation(int broker, Long records, Long fromOffset, Long toOffset, TruncationEstimate estimate) {
        this(broker, records, fromOffset, toOffset, estimate, null, null, null);
    }

    /** An entry of a version-2 or 3 plan: the records of unknown commitment are what the other two leave. */
    public PlanTruncation(int broker, Long records, Long fromOffset, Long toOffset, TruncationEstimate estimate,
                          Long committedRecords, Long neverCommittedRecords) {
        this(broker, records, fromOffset, toOffset, estimate, committedRecords, neverCommittedRecords, null);
    }

    public PlanTruncation {
        Checks.atLeast(broker, 0, "broker");
        if (estimate == TruncationEstimate.UNKNOWN) {
            if (records != null || fromOffset != null || toOffset != null || committedRecords != null
                    || neverCommittedRecords != null || unknownCommitmentRecords != null) {
                throw Checks.invalid("estimate", "UNKNOWN cannot have records, offsets or commitment counts");
            }
        } else {
            Checks.present(records, "records");
            Checks.present(fromOffset, "fromOffset");
            Checks.present(toOffset, "toOffset");
            if (records < 0 || fromOffset < 0 || toOffset < fromOffset) {
                throw Checks.invalid("", "records " + records + ", fromOffset " + fromOffset + ", toOffset "
                        + toOffset + " do not describe a range of offsets");
            }
            if (committedRecords != null && (committedRecords < 0 || committedRecords > records)) {
                throw Checks.invalid("committedRecords", committedRecords + " must be between 0 and"
                        + " records " + records);
            }
            long committed = committedRecords == null ? 0 : committedRecords;
            if (neverCommittedRecords != null && (neverCommittedRecords < 0 || committed + neverCommittedRecords > records)) {
                throw Checks.invalid("neverCommittedRecords", neverCommittedRecords + " must be between 0"
                        + " and records " + records + " less committedRecords");
            }
            long rest = records - committed - (neverCommittedRecords == null ? 0 : neverCommittedRecords);
            if (unknownCommitmentRecords == null) {
                unknownCommitmentRecords = rest; // a plan written before the field: what the others leave
            } else if (unknownCommitmentRecords != rest) {
                throw Checks.invalid("unknownCommitmentRecords", unknownCommitmentRecords + " must be"
                        + " records " + records + " less committedRecords and neverCommittedRecords: " + rest);
            }
        }
    }

    public static PlanTruncation from(ExpectedTruncation truncation) {
        if (!truncation.isKnown()) {
            return new PlanTruncation(truncation.broker(), null, null, null, truncation.estimate());
        }
        return new PlanTruncation(truncation.broker(), truncation.records(), truncation.fromOffset(),
                truncation.toOffset(), truncation.estimate(),
                // no high watermark known: absent, never 0, which would read as "none committed"
                truncation.committed() < 0 ? null : truncation.committed(),
                // absent when none: most losses have no superseded suffix, and a plan holds thousands of them
                truncation.neverCommitted() == 0 ? null : truncation.neverCommitted(),
                truncation.unknownCommitment());
    }
}
