// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import dev.uncleanrecovery.cluster.ClusterSnapshot;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/** An elector for tests of the execution: every target it is given is ELECTED, and remembered. */
class ElectingElector implements DesignatedElector {

    final List<ElectionTarget> elected = new CopyOnWriteArrayList<>();
    private final Consumer<String> steps;

    /** @param steps told "elect" when the election happens, for tests of what comes before it */
    ElectingElector(Consumer<String> steps) {
        this.steps = steps;
    }

    @Override
    public String describe() {
        return "fake elector";
    }

    /** The metadata shows its leaders at once. */
    @Override
    public java.time.Duration leadersShownAfter() {
        return elected.isEmpty() ? null : java.time.Duration.ZERO;
    }

    @Override
    public List<PartitionOutcome> elect(List<ElectionTarget> targets, ClusterSnapshot validated, Runnable beforeFirstChange) {
        beforeFirstChange.run();
        steps.accept("elect");
        elected.addAll(targets);
        return targets.stream().map(t -> new PartitionOutcome(t.topicPartition(), t.designatedLeader(), Outcome.ELECTED,
                "elected", null, null)).toList();
    }
}
