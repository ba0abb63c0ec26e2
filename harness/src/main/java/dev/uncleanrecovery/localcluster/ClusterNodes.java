// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Every node of the cluster as this machine sees it: its process, its directory and what it logged. A node keeps its
 * directory across restarts, and its log gathers every start:
 *
 * <pre>
 * &lt;base dir&gt;/controller-1000/ and broker-N/
 *     server.properties   the configuration Kafka runs with
 *     data/               log.dirs ({@link LocalKafkaCluster#logDir}): replica logs, meta.properties, the marker
 *     node.log            everything the node printed, all starts appended
 *     format.log          output of kafka-storage format
 * </pre>
 */
public final class ClusterNodes {

    private final ClusterLayout layout;
    private final NodeLifecycle lifecycle;

    ClusterNodes(ClusterLayout layout, NodeLifecycle lifecycle) {
        this.layout = layout;
        this.lifecycle = lifecycle;
    }

    /** The controllers first, then the brokers. */
    public List<Integer> ids() {
        return layout.allNodes().map(KafkaNode::id).toList();
    }

    /** The PID of the node's {@code java} process, empty when it is not running. */
    public OptionalLong pid(int nodeId) {
        KafkaNode node = layout.node(nodeId);
        return node.isRunning() ? OptionalLong.of(node.process().pid()) : OptionalLong.empty();
    }

    /** What runs the nodes: processes of this machine or containers. */
    public ClusterBackend backend() {
        return layout.backend;
    }

    /** The image the nodes' containers run, once started on {@link ClusterBackend#CONTAINERS}; empty for processes. */
    public Optional<String> containerImage() {
        return lifecycle.runtime() instanceof ContainerRuntime containers
                ? Optional.of(containers.image()) : Optional.empty();
    }

    /** The directory of every node's directory. */
    public Path baseDirectory() {
        return layout.baseDirectory;
    }

    /** Keeps the cluster's directory after {@link LocalKafkaCluster#close()} even if the cluster created it. */
    public void keepDirectoryOnClose() {
        lifecycle.keepDirectoryOnClose();
    }

    /** The node's own directory: {@code server.properties}, {@code node.log}, {@code format.log}, {@code data/}. */
    public Path directory(int nodeId) {
        return layout.node(nodeId).directory();
    }

    /** Everything the node printed (Kafka's log4j output, JVM errors), across all its starts. */
    public Path logFile(int nodeId) {
        return layout.node(nodeId).log().file();
    }

    /** The last {@code lines} lines of the node's log. */
    public List<String> logTail(int nodeId, int lines) {
        return layout.node(nodeId).log().tail(lines);
    }

    /** What the node logged since its latest start. */
    public String logSinceLastStart(int nodeId) {
        KafkaNode node = layout.node(nodeId);
        return node.log().readSince(node.logLengthAtStart());
    }
}
