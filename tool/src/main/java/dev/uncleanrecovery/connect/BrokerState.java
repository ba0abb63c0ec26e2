// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.connect;

/**
 * A registered broker as the controller sees it.
 *
 * @param fenced true when the controller fenced it (its heartbeats stopped, or it is starting)
 */
public record BrokerState(int id, String host, int port, String rack, boolean fenced) {

    /** {@code host:port}, an IPv6 host in brackets, as bootstrap.servers takes it. */
    public String address() {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
}
