// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;

/**
 * The cluster's KRaft controllers: one, or a quorum of three or five with ids {@link #firstId()}, firstId + 1, ...
 * Stopped, started and paused like the brokers, without the brokers' wait for unfencing: a controller is up once it
 * serves requests.
 */
public final class ControllerQuorum {

    private final ClusterLayout layout;
    private final NodeLifecycle lifecycle;
    private final Supplier<Admin> harnessAdmin;

    ControllerQuorum(ClusterLayout layout, NodeLifecycle lifecycle, Supplier<Admin> harnessAdmin) {
        this.layout = layout;
        this.lifecycle = lifecycle;
        this.harnessAdmin = harnessAdmin;
    }

    /** The first controller's id: the only one of a cluster with a single controller. */
    public int firstId() {
        return layout.controller.id();
    }

    /** Every controller of the quorum, lowest id first. */
    public List<Integer> ids() {
        return List.copyOf(layout.controllers.keySet());
    }

    /** The quorum's leader, the active controller, as the brokers' metadata quorum description names it. */
    public int activeId() {
        try {
            return harnessAdmin.get().describeMetadataQuorum().quorumInfo()
                    .get(ClusterMetadata.ADMIN_CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).leaderId();
        } catch (ExecutionException | TimeoutException e) {
            throw new LocalClusterException("could not describe the metadata quorum: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LocalClusterException("interrupted while describing the metadata quorum", e);
        }
    }

    /** Stops controller {@code controllerId} ({@link #activeId()} names the leader) and returns once its JVM exited. */
    public void stop(int controllerId, StopMode mode) {
        lifecycle.stop(layout.controllerNode(controllerId), mode);
    }

    /** Restarts a stopped controller with its port and data; returns once it serves requests. */
    public void start(int controllerId) {
        lifecycle.restart(layout.controllerNode(controllerId));
    }

    /**
     * Starts every stopped controller of the quorum at once and returns once each serves requests: a voter started
     * alone waits for a majority before it logs that it has started, so one at a time would wait out the timeout.
     */
    public void startStopped() {
        synchronized (lifecycle) {
            lifecycle.restartAll(layout.controllers.values().stream().filter(node -> !node.isRunning()).toList());
        }
    }

    /**
     * Freezes controller {@code controllerId} with SIGSTOP, as {@link LocalKafkaCluster#pauseBroker} does a broker:
     * requests the brokers forward to it (reassignments, elections, topic creation) go unanswered until
     * {@link #resume}.
     */
    public void pause(int controllerId) {
        lifecycle.freeze(layout.controllerNode(controllerId));
    }

    /** Thaws a controller frozen by {@link #pause} (SIGCONT). */
    public void resume(int controllerId) {
        lifecycle.thaw(layout.controllerNode(controllerId));
    }
}
