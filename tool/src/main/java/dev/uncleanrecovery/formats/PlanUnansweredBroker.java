// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.formats;

import dev.uncleanrecovery.probe.UnansweredBroker;

/**
 * A broker that did not answer the probe (in time, or at all), once for the whole plan: the partitions' reasons
 * only say its replica is unknown, because a broker that is down or hung fails every partition the same way.
 *
 * @param address         host:port the tool asked; absent for a broker the controller did not list
 * @param replicas        its replicas the plan needed to know
 * @param replicasUnknown those left UNREACHABLE
 * @param reason          why, naming the broker: "broker 2 (127.0.0.1:9093) did not answer ListOffsets within 3 s"
 */
public record PlanUnansweredBroker(
        @Required int broker,
        String address,
        @Required int replicas,
        @Required int replicasUnknown,
        @Required String reason) {

    public PlanUnansweredBroker {
        Checks.atLeast(broker, 0, "broker");
        Checks.atLeast(replicasUnknown, 0, "replicasUnknown");
        Checks.atLeast(replicas, replicasUnknown, "replicas");
    }

    public static PlanUnansweredBroker from(UnansweredBroker broker, String address) {
        return new PlanUnansweredBroker(broker.broker(), address, broker.replicas(), broker.replicasUnknown(),
                broker.reason());
    }
}
