// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

/** How a node of the local cluster is stopped. */
public enum StopMode {
    /**
     * SIGKILL of the node's JVM, like a power cut for Kafka: no controlled shutdown, no
     * {@code .kafka_cleanshutdown} marker, so the next start runs log recovery and the controller
     * drops the broker from ELR when it re-registers (KIP-966 unclean shutdown detection).
     * The controller fences it only when its session times out ({@code broker.session.timeout.ms}).
     */
    ABRUPT,
    /**
     * SIGTERM and wait for the JVM to exit: a controlled shutdown that moves leadership away,
     * flushes the logs and writes the clean-shutdown marker.
     */
    CLEAN
}
