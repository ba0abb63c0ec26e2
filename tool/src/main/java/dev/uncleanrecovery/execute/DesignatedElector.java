// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import dev.uncleanrecovery.cluster.ClusterSnapshot;
import java.time.Duration;
import java.util.List;

/** Makes each target's designated replica the leader of its offline partition, and verifies it did. */
public interface DesignatedElector {

    /** How the elector works, for the output ("stock: reorder + UNCLEAN election"). */
    String describe();

    /**
     * @param targets           partitions that passed {@link Revalidation}; each gets exactly one outcome
     * @param validated         the read they passed it against, just now. An elector that must read the partitions
     *                          again right before its one irreversible step (the native election) does; one that
     *                          reads again anyway after a preparing step (the stock reorder) starts from this read
     * @param beforeFirstChange runs once the elector has done what changes nothing (deciding which partitions need a
     *                          reorder, say) and right before its first change to the cluster; if it throws, the
     *                          exception propagates and nothing was changed ('recover' waits there until its plan is
     *                          on disk, while the elector's own preparation goes on)
     */
    List<PartitionOutcome> elect(List<ElectionTarget> targets, ClusterSnapshot validated, Runnable beforeFirstChange);

    /** {@link #elect(List, ClusterSnapshot, Runnable)} with nothing to wait for. */
    default List<PartitionOutcome> elect(List<ElectionTarget> targets, ClusterSnapshot validated) {
        return elect(targets, validated, () -> { });
    }

    /**
     * After {@link #elect}: how long after the controller's answer to the last election request the brokers' metadata
     * showed a leader for every partition it elected; null when it elected none, or some showed none by the timeout.
     */
    Duration leadersShownAfter();

    /** After {@link #elect}: the live brokers whose metadata still showed some elected partition leaderless. */
    default List<MetadataLag> metadataLag() {
        return List.of();
    }

    /**
     * Told as soon as there are partitions to elect, before their designated replicas are probed once more, so
     * that slow set-up (asking the brokers what they offer) overlaps that probe. Changes
     * nothing in the cluster; a failure here shows again when the elector is used.
     */
    default void prepare() {
    }
}
