// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.formats;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.uncleanrecovery.probe.UnansweredBroker;

/**
 * A broker that did not answer the probe (in time, or at all), once for the whole plan: the partitions' reasons
 * only say its replica is unknown, because a broker that is down or hung fails every partition the same way.
 *
 * @param address         host:port the tool asked; absent for a broker the controller did not list
 * @param replicas        its replicas the plan needed to know
 * @param replicasUnknown those left UNREACHABLE
 * @param reason          why, naming the broker: "broker 2 (127.0.0.1:9093) did not answer ListOffsets within 3 s"
 * @param fenced          true when the controller had fenced it, or did not list it at all (down, or fenced on 3.x):
 *                        it comes back only by a restart, and then follows the new leaders; false when it was
 *                        registered and unfenced (hung, or cut off from this host); absent when not known (plans
 *                        before version 5)
 */
public record PlanUnansweredBroker(
        @Required int broker,
        String address,
        @Required int replicas,
        @Required int replicasUnknown,
        @Required String reason,
        @JsonInclude(JsonInclude.Include.NON_NULL) Boolean fenced) {

    /** A broker of a plan before version 5, which does not say whether it was fenced. */
    public PlanUnansweredBroker(int broker, String address, int replicas, int replicasUnknown, String reason) {
        this(broker, address, replicas, replicasUnknown, reason, null);
    }

    public PlanUnansweredBroker {
        Checks.atLeast(broker, 0, "broker");
        Checks.atLeast(replicasUnknown, 0, "replicasUnknown");
        Checks.atLeast(replicas, replicasUnknown, "replicas");
    }

    public static PlanUnansweredBroker from(UnansweredBroker broker, String address, Boolean fenced) {
        return new PlanUnansweredBroker(broker.broker(), address, broker.replicas(), broker.replicasUnknown(),
                broker.reason(), fenced);
    }
}
