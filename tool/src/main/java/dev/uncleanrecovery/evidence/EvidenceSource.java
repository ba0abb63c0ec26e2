// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.evidence;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** Where a replica's log facts came from. */
public enum EvidenceSource {
    /** GetReplicaLogInfo answered by a broker running the companion patch. */
    NATIVE,
    /** ListOffsets(ReplicaId -2) plus the Fetch DivergingEpoch search on a stock broker. */
    STOCK,
    /** Read from a stopped broker's log directory by {@code inspect}. */
    DISK;

    /** As the plan file spells it, the word of {@code --probe-mode}: {@code native}. */
    @JsonValue
    public String spelling() {
        return name().toLowerCase(Locale.ROOT);
    }
}
