// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.formats;

import dev.uncleanrecovery.election.Alternative;
import java.util.List;

/**
 * Another replica the plan could have designated, and what electing it instead would destroy on each other replica
 * (plan version 2): a reviewer who edits {@code designatedLeader} to it sees the cost first.
 */
public record PlanAlternative(
        @Required int broker,
        @Required List<PlanTruncation> expectedTruncation) {

    public PlanAlternative {
        Checks.atLeast(broker, 0, "broker");
        expectedTruncation = Checks.list(expectedTruncation);
    }

    public static PlanAlternative from(Alternative alternative) {
        return new PlanAlternative(alternative.broker(),
                alternative.truncations().stream().map(PlanTruncation::from).toList());
    }
}
