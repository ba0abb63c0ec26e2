// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

import java.util.Locale;
import java.util.Optional;

/** What runs the nodes of a {@link LocalKafkaCluster}; both give the same cluster, ports and directories. */
public enum ClusterBackend {
    /** Each node a JVM on this machine, started under a watchdog that kills it if this JVM dies. */
    PROCESSES,
    /**
     * Each node a Docker container (Testcontainers) on the host network, its directory bind-mounted from the
     * cluster's directory, so cutting a log on disk and {@code inspect} work as with processes.
     */
    CONTAINERS;

    /** The system property that picks the backend of every cluster a test builds: processes or containers. */
    public static final String PROPERTY = "kafka.test.backend";

    /** {@value #PROPERTY}, processes when unset. */
    public static ClusterBackend fromSystemProperty() {
        String value = System.getProperty(PROPERTY, "").trim();
        if (value.isEmpty()) {
            return PROCESSES;
        }
        try {
            return valueOf(value.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("-D" + PROPERTY + "=" + value + ": expected processes or containers");
        }
    }

    /** Why this backend cannot run a cluster here (containers without a Docker engine), empty when it can. */
    public Optional<String> unavailableReason() {
        return this == CONTAINERS ? ContainerRuntime.unavailableReason() : Optional.empty();
    }

    /** The Kafka version of the image {@code -Dkafka.test.image} names, empty when the nodes run the build's jars. */
    public Optional<String> imageKafkaVersion() {
        return this == CONTAINERS ? ContainerRuntime.configuredImage().flatMap(ContainerRuntime::versionOf) : Optional.empty();
    }
}
