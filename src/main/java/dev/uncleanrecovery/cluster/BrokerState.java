// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cluster;

/**
 * A registered broker as the controller sees it.
 *
 * @param fenced true when the controller fenced it (its heartbeats stopped, or it is starting)
 */
public record BrokerState(int id, String host, int port, String rack, boolean fenced) {

    public String address() {
        return host + ":" + port;
    }
}
