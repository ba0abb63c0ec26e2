// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.stream.Stream;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The nodes' JVMs on the {@link ClusterBackend} of the cluster: formats their storage, launches them, waits until they
 * serve, stops, kills and signals them. Every change to a node holds this object's monitor, so a stop, a start and a
 * fault on disk never interleave.
 */
final class NodeLifecycle {

    private static final Logger LOG = LoggerFactory.getLogger(LocalKafkaCluster.class);
    private static final Duration POLL_INTERVAL = Duration.ofMillis(200);
    private static final Duration SIGNAL_TAKES_EFFECT = Duration.ofSeconds(10);
    private static final int LOG_TAIL_LINES = 40;

    private final ClusterLayout layout;
    private final Path baseDirectory;
    private final boolean ownsBaseDirectory;
    private final KafkaServerClasspath classpath;
    private final ClusterBackend backend;
    private final List<Path> readOnlyMounts;
    private final KafkaNode controller;
    private final SortedMap<Integer, KafkaNode> controllers;
    private final SortedMap<Integer, KafkaNode> brokers;
    private final Duration startupTimeout;
    private final Duration cleanStopTimeout;
    private final ClassDataSharing classDataSharing;
    private final ClusterCertificates certificates;
    private final List<String> formatFeatures;
    private final String kafkaVersion;

    private NodeRuntime runtime;
    private String clusterId;
    private boolean started;
    private boolean closed;
    private boolean keepBaseDirectory;

    NodeLifecycle(ClusterLayout layout) {
        this.layout = layout;
        this.baseDirectory = layout.baseDirectory;
        this.ownsBaseDirectory = layout.ownsBaseDirectory;
        this.classpath = layout.classpath;
        this.backend = layout.backend;
        this.readOnlyMounts = layout.readOnlyMounts;
        this.controller = layout.controller;
        this.controllers = layout.controllers;
        this.brokers = layout.brokers;
        this.startupTimeout = layout.startupTimeout;
        this.cleanStopTimeout = layout.cleanStopTimeout;
        this.classDataSharing = layout.classDataSharing;
        this.certificates = layout.certificates;
        this.formatFeatures = layout.formatFeatures;
        this.kafkaVersion = layout.kafkaVersion;
    }

    String clusterId() {
        return clusterId;
    }

    NodeRuntime runtime() {
        return runtime;
    }

    synchronized boolean isClosed() {
        return closed;
    }

    /** The logging configuration {@link #start} wrote, for the nodes' later starts. */
    Path nodeLoggingConfig() {
        return baseDirectory.resolve(nodeLoggingConfigName());
    }

    /**
     * {@link LocalKafkaCluster#start()}: formats every node's storage, starts the controllers, then the brokers in
     * parallel, and returns once {@code awaitBrokersUnfenced} has. On failure every started JVM is killed, the
     * directory is kept for its logs, and the exception names the node and quotes the end of its log.
     */
    synchronized void start(Runnable awaitBrokersUnfenced) {
        if (started || closed) {
            throw new IllegalStateException("this local cluster was already started; build a new one");
        }
        started = true;
        long began = System.nanoTime();
        try {
            runtime = backend == ClusterBackend.CONTAINERS
                    ? ContainerRuntime.open(baseDirectory, kafkaVersion, classpath, readOnlyMounts)
                    : new ProcessRuntime(classpath);
            Path log4jConfig = writeNodeLoggingConfig();
            if (certificates != null) {
                certificates.create();
            }
            layout.allNodes().forEach(KafkaNode::writeConfiguration);
            layout.loopDisks.values().forEach(LoopDisk::mount);
            clusterId = Uuid.randomUuid().toString();
            formatStorage(log4jConfig);
            long formatted = System.nanoTime();
            // A quorum of several voters elects its leader only once a majority runs: start them all, then wait.
            controllers.values().forEach(node -> launch(node, log4jConfig));
            awaitServerStarted(controllers.values());
            long controllerUp = System.nanoTime();
            brokers.values().forEach(broker -> launch(broker, log4jConfig));
            awaitServerStarted(brokers.values());
            awaitBrokersUnfenced.run();
            classDataSharing.startDumpIfMissing(layout.allNodes().map(KafkaNode::directory).toList(),
                    runtime.javaBinary(), runtime.classpath(), baseDirectory);
            LOG.info("local Kafka cluster {} up in {} ms (format {} ms, controller {} ms, {} brokers {} ms) in {}",
                    clusterId, millisSince(began), (formatted - began) / 1_000_000,
                    (controllerUp - formatted) / 1_000_000, brokers.size(), millisSince(controllerUp), baseDirectory);
        } catch (RuntimeException startFailure) {
            keepBaseDirectory = true;
            killAllNodes();
            layout.loopDisks.values().forEach(LoopDisk::unmount);
            throw startFailure instanceof LocalClusterException
                    ? new LocalClusterException(startFailure.getMessage() + " (the cluster's directory "
                            + baseDirectory + " is kept)", startFailure)
                    : new LocalClusterException("the local Kafka cluster did not start: " + startFailure
                            + "; node logs are in " + baseDirectory, startFailure);
        }
    }

    /** Kills every JVM this cluster started (SIGKILL, by PID) and deletes its directory if it made it. */
    synchronized void close(Runnable closeHarnessAdmin) {
        if (closed) {
            return;
        }
        closed = true;
        closeHarnessAdmin.run();
        killAllNodes();
        // before the directory goes: a failed disk is read-only, and deleting through the mount would fail
        layout.loopDisks.values().forEach(LoopDisk::unmount);
        if (runtime != null) {
            runtime.close();
        }
        if (layout.networkNamespaces != null) {
            layout.networkNamespaces.close();
        }
        classDataSharing.finishDump(baseDirectory);
        if (ownsBaseDirectory && !keepBaseDirectory) {
            deleteRecursively(baseDirectory);
        }
    }

    /** Keeps the cluster's directory after {@link #close} even if the cluster created it. */
    synchronized void keepDirectoryOnClose() {
        keepBaseDirectory = true;
    }

    /** Stops the node as {@code mode} says and returns once its JVM has exited. */
    synchronized void stop(KafkaNode node, StopMode mode) {
        if (!node.isRunning()) {
            throw new IllegalStateException(node.name() + " is not running; start it before stopping it");
        }
        if (node.isPaused()) {
            // A frozen JVM cannot run its controlled shutdown; SIGKILL needs no thawing but is harmless.
            signal(node, "CONT");
            node.paused(false);
        }
        RunningNode process = node.process();
        long controllerLogLength = controller.log().length();
        long began = System.nanoTime();
        switch (mode) {
            case ABRUPT -> process.kill();
            case CLEAN -> {
                if (!process.terminate(cleanStopTimeout)) {
                    process.kill();
                    node.stopped(StopMode.ABRUPT, controllerLogLength);
                    throw new LocalClusterException(node.name() + " (pid " + process.pid()
                            + ") did not finish its controlled shutdown within " + cleanStopTimeout.toSeconds()
                            + " s and was killed with SIGKILL, so it has no clean-shutdown marker; see "
                            + node.log().file());
                }
            }
        }
        node.stopped(mode, controllerLogLength);
        LOG.info("{} stopped ({}) in {} ms", node.name(), mode, millisSince(began));
    }

    /** Starts a stopped node with its port and data; returns once it serves requests. */
    synchronized void restart(KafkaNode node) {
        if (closed) {
            throw new IllegalStateException("this local cluster is closed");
        }
        if (node.isRunning()) {
            throw new IllegalStateException(node.name() + " is already running (pid " + node.process().pid() + ")");
        }
        long began = System.nanoTime();
        launch(node, baseDirectory.resolve(nodeLoggingConfigName()));
        awaitServerStarted(List.of(node));
        LOG.info("{} restarted in {} ms", node.name(), millisSince(began));
    }

    /**
     * Starts stopped nodes all at once, with their ports and data, and returns once each serves requests: JVMs
     * started in parallel take little longer than one on a small machine, and a voter started alone waits for a
     * majority before it logs that it has started.
     */
    synchronized void restartAll(List<KafkaNode> starting) {
        if (closed) {
            throw new IllegalStateException("this local cluster is closed");
        }
        for (KafkaNode node : starting) {
            if (node.isRunning()) {
                throw new IllegalStateException(node.name() + " is already running (pid " + node.process().pid() + ")");
            }
        }
        Path log4jConfig = baseDirectory.resolve(nodeLoggingConfigName());
        starting.forEach(node -> launch(node, log4jConfig));
        awaitServerStarted(starting);
    }

    /**
     * Freezes the node's JVM with SIGSTOP and returns once every thread of it is stopped, not merely when the signal
     * is queued.
     */
    synchronized void freeze(KafkaNode node) {
        signal(node, "STOP");
        node.paused(true);
        awaitThreads(node, true);
    }

    /** Thaws a node frozen by {@link #freeze} (SIGCONT), returning once every thread runs again. */
    synchronized void thaw(KafkaNode node) {
        signal(node, "CONT");
        node.paused(false);
        awaitThreads(node, false);
    }

    void launch(KafkaNode node, Path log4jConfig) {
        if (node.process() != null) {
            node.process().release(); // it died on its own (crash, OOM): reap its watchdog first
        }
        NodeLog log = node.log();
        log.append("---- kafka-unclean-recovery local cluster: starting " + node.name() + " (start #"
                + (node.starts() + 1) + ") at " + Instant.now() + " ----");
        long logLength = log.length();
        List<String> jvmArgs = new ArrayList<>();
        // An agent rewrites Kafka classes as they load; keep it off shared (pre-parsed) classes.
        if (node.jvmArgs().stream().noneMatch(arg -> arg.startsWith("-javaagent:"))) {
            jvmArgs.addAll(classDataSharing.nodeJvmArgs(node.directory()));
        }
        jvmArgs.addAll(node.jvmArgs());
        List<String> command = javaCommand(log4jConfig, jvmArgs);
        command.addAll(List.of(node.program().mainClass(), node.propertiesFile().toString()));
        node.started(runtime.launch(node.name(), layout.commandOnHostOf(node, command), log.file()), logLength);
    }

    void awaitServerStarted(Collection<KafkaNode> nodes) {
        Instant deadline = Instant.now().plus(startupTimeout);
        List<KafkaNode> waiting = new ArrayList<>(nodes);
        while (!waiting.isEmpty()) {
            for (var iterator = waiting.iterator(); iterator.hasNext(); ) {
                KafkaNode node = iterator.next();
                if (node.log().containsSince(node.logLengthAtStart(), node.program().startedLine())) {
                    iterator.remove();
                } else if (!node.process().isAlive()) {
                    Optional<Integer> status = node.process().awaitExit(Duration.ofSeconds(5));
                    throw new LocalClusterException(node.name() + " exited during start-up (status "
                            + status.map(String::valueOf).orElse("unknown") + ") before logging '" + node.program().startedLine()
                            + "'; last lines of " + node.log().file() + ":\n" + tailText(node));
                }
            }
            if (!waiting.isEmpty() && Instant.now().isAfter(deadline)) {
                KafkaNode late = waiting.get(0);
                throw new LocalClusterException(late.name() + " did not log '" + late.program().startedLine() + "' within "
                        + startupTimeout.toSeconds() + " s (the machine may be overloaded; raise startupTimeout);"
                        + " last lines of " + late.log().file() + ":\n" + tailText(late));
            }
            pollPause();
        }
    }

    private void formatStorage(Path log4jConfig) {
        Map<KafkaNode, RunningNode> formats = new LinkedHashMap<>();
        try {
            // One JVM per node, all at once: JVM start-up dominates and the formats are independent.
            layout.allNodes().filter(node -> node.program().formatsStorage()).forEach(node -> {
                List<String> command = javaCommand(log4jConfig, classDataSharing.toolJvmArgs());
                command.addAll(List.of("kafka.tools.StorageTool", "format",
                        "-t", clusterId, "-c", node.propertiesFile().toString()));
                formatFeatures.forEach(feature -> command.addAll(List.of("--feature", feature)));
                formats.put(node, runtime.launch(node.name() + " format", command, node.formatLogFile()));
            });
            Instant deadline = Instant.now().plus(startupTimeout);
            for (Map.Entry<KafkaNode, RunningNode> format : formats.entrySet()) {
                KafkaNode node = format.getKey();
                Duration left = Duration.between(Instant.now(), deadline);
                Optional<Integer> status = format.getValue().awaitExit(left.isNegative() ? Duration.ZERO : left);
                if (status.isEmpty() || status.get() != 0) {
                    throw new LocalClusterException("formatting the storage of " + node.name() + " "
                            + status.map(code -> "failed with status " + code)
                                    .orElse("did not finish within " + startupTimeout.toSeconds() + " s")
                            + "; output in " + node.formatLogFile() + ":\n"
                            + String.join("\n", new NodeLog(node.formatLogFile()).tail(LOG_TAIL_LINES)));
                }
            }
        } finally {
            formats.values().forEach(RunningNode::kill);
        }
    }

    private List<String> javaCommand(Path log4jConfig, List<String> extraJvmArgs) {
        List<String> command = new ArrayList<>();
        command.add(runtime.javaBinary());
        command.addAll(NodeDefaults.SMALL_JVM_FLAGS);
        command.add(kafkaVersion.startsWith("3.") ? "-Dlog4j.configuration=file:" + log4jConfig
                : "-Dlog4j2.configurationFile=" + log4jConfig);
        // Later flags win, so the caller's -Xmx or agent options override the defaults above.
        command.addAll(extraJvmArgs);
        command.add("-cp");
        command.add(runtime.classpath());
        return command;
    }

    private String nodeLoggingConfigName() {
        return kafkaVersion.startsWith("3.") ? "log4j.properties" : "log4j2.properties";
    }

    /** Kafka 4.x logs through log4j2, 3.x through reload4j (log4j 1.x): the configuration for the nodes' version. */
    private Path writeNodeLoggingConfig() {
        String name = nodeLoggingConfigName();
        Path config = baseDirectory.resolve(name);
        try (InputStream template = LocalKafkaCluster.class.getResourceAsStream("/localcluster/" + name)) {
            if (template == null) {
                throw new IllegalStateException("resource /localcluster/" + name + " is missing from the build");
            }
            Files.createDirectories(baseDirectory);
            Files.copy(template, config, StandardCopyOption.REPLACE_EXISTING);
            return config;
        } catch (IOException e) {
            throw new UncheckedIOException("could not write " + config, e);
        }
    }

    private synchronized void killAllNodes() {
        layout.allNodes().filter(node -> node.process() != null).forEach(node -> {
            node.process().kill();
            node.stopped(StopMode.ABRUPT, controller.log().length());
        });
    }

    /** Returns only once the signal has taken effect on every thread, so a paused broker answers nothing. */
    private static void awaitThreads(KafkaNode node, boolean stopped) {
        try {
            ThreadStates.await(node.process().pid(), stopped, SIGNAL_TAKES_EFFECT);
        } catch (LocalClusterException e) {
            throw new LocalClusterException(node.name() + ": " + e.getMessage(), e);
        }
    }

    private static void signal(KafkaNode node, String signal) {
        try {
            node.process().signal(signal);
        } catch (LocalClusterException e) {
            throw new LocalClusterException(node.name() + ": " + e.getMessage(), e);
        }
    }

    KafkaNode requireStopped(KafkaNode node, String action) {
        if (node.isRunning()) {
            throw new IllegalStateException(node.name() + " is running (pid " + node.process().pid()
                    + "); stop it with stopBroker(" + node.id() + ", ...) before you " + action
                    + ": a running broker keeps its segments open and recovers its log only at start-up");
        }
        return node;
    }

    static String tailText(KafkaNode node) {
        return String.join("\n", node.log().tail(LOG_TAIL_LINES));
    }

    private static long millisSince(long nanoTime) {
        return (System.nanoTime() - nanoTime) / 1_000_000;
    }

    static void pollPause() {
        try {
            Thread.sleep(POLL_INTERVAL.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LocalClusterException("interrupted while waiting on the local cluster", e);
        }
    }

    private static void deleteRecursively(Path directory) {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            LOG.warn("could not delete the local cluster directory {}: {}", directory, e.toString());
        }
    }
}
