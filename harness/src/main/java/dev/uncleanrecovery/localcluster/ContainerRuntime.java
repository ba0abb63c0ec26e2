// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.exception.DockerException;
import com.github.dockerjava.api.exception.NotFoundException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.BindMode;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.startupcheck.StartupCheckStrategy;
import org.testcontainers.containers.wait.strategy.AbstractWaitStrategy;
import org.testcontainers.utility.DockerImageName;

/**
 * Nodes as Docker containers through Testcontainers: one container per JVM, on the host network (listeners stay on
 * 127.0.0.1, no bridge), the cluster's directory bind-mounted at its own path, the JVM as the container's init
 * process writing to the node's log file as a process would. SIGKILL, SIGTERM, SIGSTOP and SIGCONT go through the
 * engine ({@code docker kill --signal}). Every container carries the label {@value #LABEL}, so a run killed before it
 * could clean up leaves containers one command removes; a shutdown hook removes them on a normal exit.
 */
final class ContainerRuntime implements NodeRuntime {

    /** The system property that names an image to run instead of the one made locally, e.g. apache/kafka:4.1.2. */
    static final String IMAGE_PROPERTY = "kafka.test.image";
    static final String LABEL = "dev.uncleanrecovery.harness";
    // Where the official apache/kafka images keep Kafka and its JRE.
    private static final String IMAGE_CLASSPATH = "/opt/kafka/libs/*";
    private static final String IMAGE_JAVA = "/opt/java/openjdk/bin/java";
    private static final Duration POLL = Duration.ofMillis(100);
    private static final Set<NodeContainer> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(NodeContainer::remove), "kafka-container-reaper"));
    }

    private final DockerClient docker;
    private final String image;
    private final boolean localImage;
    private final String classpath;
    private final Path clusterDirectory;
    private final List<Path> readOnlyMounts;
    private final String user;
    private final Set<NodeContainer> started = ConcurrentHashMap.newKeySet();

    private ContainerRuntime(DockerClient docker, String image, boolean localImage, String classpath,
                             Path clusterDirectory, List<Path> readOnlyMounts, String user) {
        this.docker = docker;
        this.image = image;
        this.localImage = localImage;
        this.classpath = classpath;
        this.clusterDirectory = clusterDirectory;
        this.readOnlyMounts = readOnlyMounts;
        this.user = user;
    }

    /** Whether a Docker engine answers; the reason it does not otherwise. */
    static Optional<String> unavailableReason() {
        try {
            return DockerClientFactory.instance().isDockerAvailable() ? Optional.empty()
                    : Optional.of("no Docker engine answers (DOCKER_HOST, or /var/run/docker.sock); start one, e.g."
                            + " dockerd --bridge=none --iptables=false");
        } catch (RuntimeException | LinkageError e) {
            return Optional.of("Testcontainers could not look for a Docker engine: " + e);
        }
    }

    /** The image named by {@value #IMAGE_PROPERTY}, empty when the local one is to be made. */
    static Optional<String> configuredImage() {
        String image = System.getProperty(IMAGE_PROPERTY, "").trim();
        return image.isEmpty() ? Optional.empty() : Optional.of(image);
    }

    /** The Kafka version an image's tag names (apache/kafka:4.1.2 → 4.1.2), empty when the tag says none. */
    static Optional<String> versionOf(String image) {
        String tag = DockerImageName.parse(image).getVersionPart();
        return tag.matches("[34]\\.\\d+\\.\\d+") ? Optional.of(tag) : Optional.empty();
    }

    /**
     * Containers for a cluster in {@code clusterDirectory}; {@code readOnlyMounts} are host files the nodes' command
     * lines name outside it (agent jars, the remote storage's classes).
     */
    static ContainerRuntime open(Path clusterDirectory, String kafkaVersion, KafkaServerClasspath classpath,
                                 List<Path> readOnlyMounts) {
        unavailableReason().ifPresent(reason -> {
            throw new LocalClusterException("the containers backend needs a Docker engine: " + reason);
        });
        DockerClient docker = DockerClientFactory.instance().client();
        Optional<String> configured = configuredImage();
        String image = configured.orElseGet(() -> KafkaImage.ensure(docker, kafkaVersion, classpath));
        String owner;
        try {
            owner = String.valueOf(Files.getAttribute(clusterDirectory, "unix:uid"));
        } catch (IOException | UnsupportedOperationException e) {
            owner = "0";
        }
        return new ContainerRuntime(docker, image, configured.isEmpty(),
                configured.isEmpty() ? classpath.value() : IMAGE_CLASSPATH, clusterDirectory,
                List.copyOf(new LinkedHashSet<>(readOnlyMounts)), owner);
    }

    String image() {
        return image;
    }

    @Override
    public String javaBinary() {
        return localImage ? Path.of(System.getProperty("java.home"), "bin", "java").toString() : IMAGE_JAVA;
    }

    @Override
    public String classpath() {
        return classpath;
    }

    @Override
    public boolean sharesClassData() {
        // the archive is of this machine's classpath file; a node in a container maps it only by chance
        return false;
    }

    @Override
    public RunningNode launch(String name, List<String> javaCommand, Path logFile) {
        List<String> entrypoint = new ArrayList<>(List.of("/bin/sh", "-c", "exec \"$@\" >>\"$0\" 2>&1",
                logFile.toString()));
        @SuppressWarnings("resource") // removed by NodeContainer.remove, which every path reaches
        GenericContainer<?> container = new GenericContainer<>(DockerImageName.parse(image))
                .withNetworkMode("host")
                .withFileSystemBind(clusterDirectory.toString(), clusterDirectory.toString(), BindMode.READ_WRITE)
                .withLabel(LABEL, name)
                .withStartupCheckStrategy(new Started())
                .waitingFor(new NoWait())
                .withCreateContainerCmdModifier(command -> command.withEntrypoint(entrypoint).withUser(user)
                        .withCmd(javaCommand));
        for (Path mount : readOnlyMounts) {
            container.withFileSystemBind(mount.toString(), mount.toString(), BindMode.READ_ONLY);
        }
        try {
            container.start();
        } catch (RuntimeException e) {
            if (container.getContainerId() != null) {
                new NodeContainer(docker, container.getContainerId(), name, -1).remove();
            }
            throw new LocalClusterException("could not start a container of " + image + " for " + name + ": " + e
                    + "; see " + logFile, e);
        }
        Long pid = container.getContainerInfo().getState().getPidLong();
        NodeContainer node = new NodeContainer(docker, container.getContainerId(), name, pid == null ? -1 : pid);
        LIVE.add(node);
        started.add(node);
        return node;
    }

    @Override
    public void close() {
        started.forEach(NodeContainer::remove);
        started.clear();
    }

    /** One JVM in its container. */
    private static final class NodeContainer implements RunningNode {
        private final DockerClient docker;
        private final String id;
        private final String name;
        private final long pid;

        NodeContainer(DockerClient docker, String id, String name, long pid) {
            this.docker = docker;
            this.id = id;
            this.name = name;
            this.pid = pid;
        }

        @Override
        public long pid() {
            return pid;
        }

        @Override
        public boolean isAlive() {
            return state().map(InspectContainerResponse.ContainerState::getRunning).orElse(false);
        }

        @Override
        public void kill() {
            signalIfRunning("KILL");
            awaitExitCode(Duration.ofSeconds(10));
            remove();
        }

        @Override
        public boolean terminate(Duration timeout) {
            signalIfRunning("TERM");
            if (awaitExitCode(timeout).isEmpty()) {
                return false;
            }
            remove();
            return true;
        }

        @Override
        public Optional<Integer> awaitExit(Duration timeout) {
            Optional<Integer> status = awaitExitCode(timeout);
            if (status.isPresent()) {
                remove();
            }
            return status;
        }

        @Override
        public void signal(String signal) {
            try {
                docker.killContainerCmd(id).withSignal(signal).exec();
            } catch (DockerException e) {
                throw new LocalClusterException("docker kill --signal " + signal + " " + id + " (" + name + ") failed: "
                        + e.getMessage(), e);
            }
        }

        @Override
        public void release() {
            remove();
        }

        private void signalIfRunning(String signal) {
            if (isAlive()) {
                try {
                    docker.killContainerCmd(id).withSignal(signal).exec();
                } catch (DockerException exitedMeanwhile) {
                    // the engine refuses to signal a container that is no longer running: it is what was wanted
                }
            }
        }

        private Optional<Integer> awaitExitCode(Duration timeout) {
            Instant deadline = Instant.now().plus(timeout);
            while (true) {
                Optional<InspectContainerResponse.ContainerState> state = state();
                if (state.isEmpty()) {
                    return Optional.of(-1);
                }
                if (!Boolean.TRUE.equals(state.get().getRunning())) {
                    Long code = state.get().getExitCodeLong();
                    return Optional.of(code == null ? -1 : code.intValue());
                }
                if (Instant.now().isAfter(deadline)) {
                    return Optional.empty();
                }
                try {
                    Thread.sleep(POLL.toMillis());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new LocalClusterException("interrupted while waiting for the container of " + name, e);
                }
            }
        }

        private Optional<InspectContainerResponse.ContainerState> state() {
            try {
                return Optional.ofNullable(docker.inspectContainerCmd(id).exec().getState());
            } catch (NotFoundException gone) {
                return Optional.empty();
            }
        }

        void remove() {
            try {
                docker.removeContainerCmd(id).withForce(true).exec();
            } catch (NotFoundException alreadyGone) {
                // removed before
            } catch (DockerException | IllegalStateException e) {
                System.err.println("could not remove container " + id + " (" + name + "): " + e.getMessage()
                        + "; docker rm -f " + id);
            }
            LIVE.remove(this);
        }
    }

    /** The node's own log says when it serves; the container only has to be created and started. */
    private static final class Started extends StartupCheckStrategy {
        @Override
        public StartupStatus checkStartupState(DockerClient dockerClient, String containerId) {
            return StartupStatus.SUCCESSFUL;
        }
    }

    private static final class NoWait extends AbstractWaitStrategy {
        @Override
        protected void waitUntilReady() {
            // LocalKafkaCluster waits for "Kafka Server started" in the node's log
        }
    }
}
