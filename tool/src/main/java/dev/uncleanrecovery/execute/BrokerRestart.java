// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import dev.uncleanrecovery.evidence.ReplicaEvidence;
import dev.uncleanrecovery.formats.PlanEvidence;
import dev.uncleanrecovery.formats.PlannedElection;
import java.util.Optional;

/**
 * A designated broker that restarted between the plan and the re-probe: its BrokerEpoch (native evidence only;
 * stock brokers do not expose it) changed. Whether that makes the election unsafe is
 * {@link Revalidation#logShrank}'s call; this says why the log may have changed.
 */
public final class BrokerRestart {

    private BrokerRestart() {
    }

    /** A note for the partition's outcome when both broker epochs are known and differ; empty otherwise. */
    public static Optional<String> note(PlannedElection planned, ReplicaEvidence reprobed) {
        if (reprobed == null || reprobed.brokerEpoch() < 0) {
            return Optional.empty();
        }
        return planned.evidence().stream().filter(e -> e.broker() == reprobed.broker()).findFirst()
                .map(PlanEvidence::brokerEpoch)
                .filter(epoch -> epoch != reprobed.brokerEpoch())
                .map(epoch -> "broker " + reprobed.broker() + " restarted since the plan (broker epoch " + epoch
                        + " -> " + reprobed.brokerEpoch() + ")");
    }
}
