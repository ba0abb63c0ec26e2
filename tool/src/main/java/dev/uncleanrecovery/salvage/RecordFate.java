// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.salvage;

/** What replay does with one salvaged record. */
public enum RecordFate {
    /** Produced again: not transactional, or its transaction's COMMIT marker is in the salvage. */
    REPLAY,
    /** A transaction marker (control batch): the broker writes its own, producers cannot. */
    CONTROL,
    /** Its transaction's ABORT marker follows in the salvage: consumers never saw it. */
    ABORTED,
    /** Transactional, with no marker of its producer after it in the salvage: never committed, so not replayed. */
    NO_MARKER,
    /** Below the range's fromOffset, in the batch that holds it: the new leader keeps it. */
    BEFORE_RANGE
}
