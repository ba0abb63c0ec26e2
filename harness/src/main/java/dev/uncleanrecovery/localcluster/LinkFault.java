// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

/**
 * Packets from one host to another that the cluster's router drops: all of them (a cut) or each with a chance (a
 * lossy link). The other direction is a fault of its own: a partition is two cuts, a one-way drop one.
 *
 * @param dropPercent 1 to 100; 100 is a cut
 */
public record LinkFault(NetworkHost from, NetworkHost to, int dropPercent) {

    public LinkFault {
        if (dropPercent < 1 || dropPercent > 100) {
            throw new IllegalArgumentException("a link drops 1 to 100 percent of its packets, not " + dropPercent);
        }
        if (from.equals(to)) {
            throw new IllegalArgumentException("a link joins two hosts; " + from + " twice is no link");
        }
    }

    public boolean isCut() {
        return dropPercent == 100;
    }

    @Override
    public String toString() {
        return from.name() + " -> " + to.name() + (isCut() ? " cut" : " drops " + dropPercent + "%");
    }
}
