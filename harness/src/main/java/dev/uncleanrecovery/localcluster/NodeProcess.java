// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One JVM of the local cluster, started under the {@code node-watchdog.sh} wrapper.
 *
 * <p>The wrapper holds the read end of a pipe whose only write end is in this JVM, and SIGKILLs
 * the node when the pipe reaches end-of-file. So a node never outlives the JVM that started it:
 * not on {@link #release()}, not on a normal exit (shutdown hook), and not on {@code kill -9} of
 * this JVM, when no hook runs but the kernel still closes the pipe.
 */
final class NodeProcess implements RunningNode {

    private static final String WATCHDOG_SCRIPT = readWatchdogScript();
    private static final Set<NodeProcess> LIVE = ConcurrentHashMap.newKeySet();
    private static final Duration WATCHDOG_EXIT_TIMEOUT = Duration.ofSeconds(10);

    static {
        // Faster than waiting for the watchdogs to notice the pipes closing, and covers a wrapper
        // that was itself killed.
        Runtime.getRuntime().addShutdownHook(new Thread(NodeProcess::killAllLive, "local-kafka-reaper"));
    }

    private final Process watchdog;
    private final long pid;
    private final Optional<ProcessHandle> node;

    private NodeProcess(Process watchdog, long pid, Optional<ProcessHandle> node) {
        this.watchdog = watchdog;
        this.pid = pid;
        this.node = node;
    }

    /** Starts {@code javaCommand} with its output appended to {@code logFile}. */
    static NodeProcess launch(List<String> javaCommand, Path logFile) {
        List<String> command = new ArrayList<>(List.of(
                "bash", "-c", WATCHDOG_SCRIPT, "kafka-node-watchdog", logFile.toString()));
        command.addAll(javaCommand);
        Process watchdog;
        try {
            watchdog = new ProcessBuilder(command)
                    .redirectError(Redirect.appendTo(logFile.toFile()))
                    .start();
        } catch (IOException e) {
            throw new LocalClusterException("could not start bash to run " + javaCommand.get(0)
                    + " (" + e.getMessage() + "); the local cluster needs bash on the PATH", e);
        }
        long pid = readNodePid(watchdog, logFile);
        NodeProcess started = new NodeProcess(watchdog, pid, ProcessHandle.of(pid));
        LIVE.add(started);
        return started;
    }

    @Override
    public long pid() {
        return pid;
    }

    @Override
    public boolean isAlive() {
        return node.map(ProcessHandle::isAlive).orElse(false);
    }

    /** SIGKILL, then wait until the JVM and its wrapper are gone. */
    @Override
    public void kill() {
        node.ifPresent(ProcessHandle::destroyForcibly);
        awaitNodeExit(WATCHDOG_EXIT_TIMEOUT);
        release();
    }

    /**
     * SIGTERM, then wait up to {@code timeout} for the JVM to exit.
     *
     * @return false if it was still running after {@code timeout} (it is left running)
     */
    @Override
    public boolean terminate(Duration timeout) {
        node.ifPresent(ProcessHandle::destroy);
        if (!awaitNodeExit(timeout)) {
            return false;
        }
        release();
        return true;
    }

    /** Waits for the JVM to exit by itself; returns its exit status, or empty on timeout. */
    @Override
    public Optional<Integer> awaitExit(Duration timeout) {
        try {
            if (!watchdog.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                return Optional.empty();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LocalClusterException("interrupted while waiting for process " + pid, e);
        }
        release();
        return Optional.of(watchdog.exitValue());
    }

    /** Closes the pipe (the wrapper kills the JVM if still alive) and reaps the wrapper. */
    @Override
    public void release() {
        try {
            watchdog.getOutputStream().close();
        } catch (IOException alreadyClosed) {
            // the wrapper is gone already; nothing left to signal
        }
        try {
            if (!watchdog.waitFor(WATCHDOG_EXIT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                watchdog.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            watchdog.destroyForcibly();
        }
        closeQuietly(watchdog.getInputStream());
        LIVE.remove(this);
    }

    // The JDK has no SIGSTOP/SIGCONT; kill(1) has.
    @Override
    public void signal(String signal) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, String.valueOf(pid))
                    .redirectErrorStream(true).start();
            String output = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (kill.waitFor() != 0) {
                throw new LocalClusterException("kill -" + signal + " " + pid + " failed: " + output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not run kill -" + signal + " " + pid, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LocalClusterException("interrupted while signalling process " + pid, e);
        }
    }

    private boolean awaitNodeExit(Duration timeout) {
        if (node.isEmpty()) {
            return true;
        }
        try {
            node.get().onExit().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException stillRunning) {
            return false;
        } catch (ExecutionException e) {
            throw new LocalClusterException("could not watch process " + pid + " exit: " + e.getCause(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LocalClusterException("interrupted while waiting for process " + pid + " to exit", e);
        }
    }

    private static long readNodePid(Process watchdog, Path logFile) {
        try {
            BufferedReader reader = new BufferedReader(
                    new InputStreamReader(watchdog.getInputStream(), StandardCharsets.US_ASCII));
            String line = reader.readLine();
            if (line == null || !line.trim().matches("\\d+")) {
                watchdog.destroyForcibly();
                throw new LocalClusterException("the node watchdog did not report a process id (got "
                        + line + "); see " + logFile);
            }
            return Long.parseLong(line.trim());
        } catch (IOException e) {
            watchdog.destroyForcibly();
            throw new LocalClusterException("could not read the node's process id from its watchdog: "
                    + e.getMessage() + "; see " + logFile, e);
        }
    }

    private static void killAllLive() {
        for (NodeProcess process : LIVE) {
            process.node.ifPresent(ProcessHandle::destroyForcibly);
        }
    }

    private static void closeQuietly(InputStream stream) {
        try {
            stream.close();
        } catch (IOException ignored) {
            // only our end of a pipe
        }
    }

    private static String readWatchdogScript() {
        try (InputStream script = NodeProcess.class.getResourceAsStream("/localcluster/node-watchdog.sh")) {
            if (script == null) {
                throw new IllegalStateException("resource /localcluster/node-watchdog.sh is missing from the build");
            }
            return new String(script.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
