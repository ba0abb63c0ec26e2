// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.harness;

import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

/** Keeps what a failed test needs to be understood: each node's log and configuration. */
final class NodeLogArchive {

    static final int TAIL_LINES = 40;
    private static final List<String> KEPT_FILES = List.of("node.log", "server.properties", "format.log");

    private NodeLogArchive() {
    }

    /** {@code target/cluster-logs/<testClass>/<test>/}, under the module's directory. */
    static Path directoryFor(String testClass, String test) {
        Path moduleDirectory = Path.of(System.getProperty("basedir", ""));
        return moduleDirectory.resolve("target").resolve("cluster-logs").resolve(testClass).resolve(safe(test));
    }

    /** Copies every node's files to {@code destination}/{@code <node dir name>}/. */
    static Path keep(LocalKafkaCluster cluster, Path destination) {
        try {
            for (int nodeId : cluster.nodes().ids()) {
                Path nodeDirectory = cluster.nodes().directory(nodeId);
                Path target = destination.resolve(nodeDirectory.getFileName().toString());
                Files.createDirectories(target);
                for (String name : KEPT_FILES) {
                    Path file = nodeDirectory.resolve(name);
                    if (Files.exists(file)) {
                        Files.copy(file, target.resolve(name), StandardCopyOption.REPLACE_EXISTING);
                    }
                }
            }
            return destination;
        } catch (IOException e) {
            throw new UncheckedIOException("could not keep the node logs in " + destination, e);
        }
    }

    /** The last lines of every node's log, one block per node, for the test report. */
    static String tails(LocalKafkaCluster cluster, int lines) {
        StringBuilder text = new StringBuilder();
        for (int nodeId : cluster.nodes().ids()) {
            text.append("==== last ").append(lines).append(" lines of node ").append(nodeId)
                    .append(cluster.isRunning(nodeId) ? " (running)" : " (stopped)")
                    .append(": ").append(cluster.nodes().logFile(nodeId)).append('\n');
            cluster.nodes().logTail(nodeId, lines).forEach(line -> text.append(line).append('\n'));
        }
        return text.toString();
    }

    private static String safe(String name) {
        return name.replaceAll("[^A-Za-z0-9._-]", "_");
    }
}
