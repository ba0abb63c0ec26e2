// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One node of the local cluster: its fixed identity (id, role, address, directory, configuration)
 * and the JVM currently running it, if any. A node keeps its port and directory across restarts.
 *
 * <pre>
 * &lt;node dir&gt;/server.properties   the configuration Kafka runs with
 * &lt;node dir&gt;/data/               log.dirs (replica logs, meta.properties, .kafka_cleanshutdown)
 * &lt;node dir&gt;/node.log            everything the node printed, all starts appended
 * &lt;node dir&gt;/format.log          output of kafka-storage format
 * </pre>
 */
final class KafkaNode {

    static final String DATA = "data";

    private final int id;
    private final NodeRole role;
    private final NodeProgram program;
    private final String host;
    private final int port;
    private final Path directory;
    private final SortedMap<String, String> properties;
    private final List<String> jvmArgs;
    private final NodeLog log;

    private RunningNode process;
    private long logLengthAtStart;
    private long controllerLogLengthAtStop;
    private StopMode lastStopMode;
    private int starts;
    private boolean paused;

    KafkaNode(int id, NodeRole role, NodeProgram program, String host, int port, Path directory,
              Map<String, String> properties, List<String> jvmArgs) {
        this.id = id;
        this.role = role;
        this.program = program;
        this.host = host;
        this.port = port;
        this.directory = directory;
        this.properties = new TreeMap<>(properties);
        this.jvmArgs = List.copyOf(jvmArgs);
        this.log = new NodeLog(directory.resolve("node.log"));
    }

    int id() {
        return id;
    }

    NodeRole role() {
        return role;
    }

    /** What the JVM runs: a KRaft node, a ZooKeeper-mode broker or the ZooKeeper server. */
    NodeProgram program() {
        return program;
    }

    int port() {
        return port;
    }

    String address() {
        return host + ":" + port;
    }

    /** "broker 2", "controller 1000" or "zookeeper 1000", as messages name it. */
    String name() {
        return program == NodeProgram.ZOOKEEPER_SERVER ? "zookeeper " + id : nameOf(role, id);
    }

    static String nameOf(NodeRole role, int id) {
        return role.processRoles() + " " + id;
    }

    Path directory() {
        return directory;
    }

    Path dataDirectory() {
        return directory.resolve(DATA);
    }

    Path propertiesFile() {
        return directory.resolve("server.properties");
    }

    Path formatLogFile() {
        return directory.resolve("format.log");
    }

    NodeLog log() {
        return log;
    }

    List<String> jvmArgs() {
        return jvmArgs;
    }

    void writeConfiguration() {
        StringBuilder text = new StringBuilder("# ").append(name())
                .append(" of a kafka-unclean-recovery local cluster; written by LocalKafkaCluster\n");
        properties.forEach((key, value) -> text.append(key).append('=').append(value).append('\n'));
        try {
            Files.createDirectories(dataDirectory());
            Files.writeString(propertiesFile(), text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("could not write " + propertiesFile(), e);
        }
    }

    boolean isRunning() {
        return process != null && process.isAlive();
    }

    RunningNode process() {
        return process;
    }

    void started(RunningNode process, long logLengthAtStart) {
        this.process = process;
        this.paused = false;
        this.logLengthAtStart = logLengthAtStart;
        this.starts++;
    }

    boolean isPaused() {
        return paused && isRunning();
    }

    void paused(boolean paused) {
        this.paused = paused;
    }

    void stopped(StopMode mode, long controllerLogLength) {
        this.process = null;
        this.paused = false;
        this.lastStopMode = mode;
        this.controllerLogLengthAtStop = controllerLogLength;
    }

    long logLengthAtStart() {
        return logLengthAtStart;
    }

    long controllerLogLengthAtStop() {
        return controllerLogLengthAtStop;
    }

    StopMode lastStopMode() {
        return lastStopMode;
    }

    int starts() {
        return starts;
    }
}
