// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

import java.util.Optional;

/** Where the nodes of a {@link LocalKafkaCluster} listen, and so what can stand between them. */
public enum NodeNetwork {
    /** Every node on 127.0.0.1, a port each: every node always reaches every other. */
    LOOPBACK,
    /**
     * Every node a host of its own: a network namespace the cluster makes, with its own address, joined to the
     * others through a router namespace whose firewall {@link ClusterNetwork} cuts, makes lossy and heals. Clients
     * and the tool get a host of their own too. Needs root, {@code ip} and {@code iptables}, and processes.
     */
    HOSTS;

    /** Why this network cannot be made on this machine (not root, no {@code ip netns}), empty when it can. */
    public Optional<String> unavailableReason() {
        return this == HOSTS ? NetworkNamespaces.unavailableReason() : Optional.empty();
    }
}
