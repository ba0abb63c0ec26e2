// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

/** The KRaft {@code process.roles} of a local node; nodes never combine both roles here. */
public enum NodeRole {
    CONTROLLER,
    BROKER;

    String processRoles() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
