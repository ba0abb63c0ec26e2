// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

/**
 * Where one replica truncates under the leader just elected: as planned, and as the brokers answer after the
 * election (the new leader's epoch cache, with its new epoch, against the replica's last written epoch — the look-up
 * the follower itself makes before it cuts).
 *
 * @param plannedFrom  the first offset the plan said it loses; -1 when the plan did not know
 * @param measuredFrom the first offset it loses as read after the election; -1 when the brokers did not answer
 * @param logEnd       its log end offset before the election
 */
public record MeasuredTruncation(int broker, long plannedFrom, long measuredFrom, long logEnd) {

    public boolean isMeasured() {
        return measuredFrom >= 0;
    }

    /** Offsets it loses as measured; -1 when not measured. */
    public long measuredRecords() {
        return isMeasured() ? logEnd - measuredFrom : -1;
    }

    public long plannedRecords() {
        return plannedFrom >= 0 ? logEnd - plannedFrom : -1;
    }

    /** Measured and the same as planned. */
    public boolean asPlanned() {
        return isMeasured() && measuredFrom == plannedFrom;
    }
}
