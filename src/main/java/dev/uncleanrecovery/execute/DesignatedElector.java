// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import dev.uncleanrecovery.cluster.ClusterSnapshot;
import java.util.List;

/** Makes each target's designated replica the leader of its offline partition, and verifies it did. */
public interface DesignatedElector {

    /** How the elector works, for the output ("stock: reorder + UNCLEAN election"). */
    String describe();

    /** @param targets partitions that passed {@link Revalidation}; each gets exactly one outcome */
    List<PartitionOutcome> elect(List<ElectionTarget> targets);

    /**
     * {@link #elect(List)} for targets just validated against {@code validated}. An elector that re-reads the
     * partitions anyway right before its election may start from this read instead of making its own.
     */
    default List<PartitionOutcome> elect(List<ElectionTarget> targets, ClusterSnapshot validated) {
        return elect(targets);
    }
}
