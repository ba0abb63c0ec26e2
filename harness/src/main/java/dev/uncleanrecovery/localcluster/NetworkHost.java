// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

/**
 * One host of a cluster built with {@link NodeNetwork#HOSTS}: a Kafka node, the clients' host (where the tool and
 * client processes run) or the harness's host (this JVM, which watches the cluster).
 *
 * @param name    "broker 2", "controller 1000", "clients" or "harness", as reports name it
 * @param address its IPv4 address on the cluster's network
 */
public record NetworkHost(String name, String address) {

    @Override
    public String toString() {
        return name + " (" + address + ")";
    }
}
