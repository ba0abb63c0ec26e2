// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import dev.uncleanrecovery.localcluster.ClusterNetwork;
import dev.uncleanrecovery.localcluster.NetworkHost;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * The tool in a JVM of its own, as an operator runs it, with its request log on: a test acts the moment the log
 * shows a request or an answer (kill the tool, kill a broker or the active controller) while the tool goes on.
 */
public final class ToolJvm {

    /**
     * @param triggered the request log showed the trigger line before the tool ended (or the deadline)
     * @param exitCode  the tool's exit code; -1 when it was killed
     */
    public record Run(boolean triggered, int exitCode, String output) {
    }

    /**
     * What to do when the trigger shows: kill the tool after the action, let it run on while the action runs, or freeze
     * it (SIGSTOP) while the action runs and let it go on after (SIGCONT), so the action lands at that very step.
     */
    public enum AtTrigger { KILL_THE_TOOL, LET_IT_RUN, PAUSE_THE_TOOL }

    private ToolJvm() {
    }

    /**
     * @param trigger a request log line fragment, e.g. "Received ALTER_PARTITION_REASSIGNMENTS response"
     * @param action  runs the moment the trigger shows, before the tool is killed (if it is)
     */
    static Run run(Path dir, String trigger, Runnable action, AtTrigger then, String... args)
            throws IOException, InterruptedException {
        return run(dir, List.of(), trigger, action, then, args);
    }

    /**
     * @param jvmArgs  options of the tool's JVM ("-Xmx256m", "-Dkafka.unclean.recovery...")
     * @param trigger  a fragment of a request log line or of the tool's own output ("salvaging 1 doomed range")
     */
    static Run run(Path dir, List<String> jvmArgs, String trigger, Runnable action, AtTrigger then, String... args)
            throws IOException, InterruptedException {
        return run(dir, List.of(), jvmArgs, trigger, action, then, args);
    }

    /** {@link #run} on a host of a cluster of hosts: the action can fail the network under the running tool. */
    public static Run runOn(ClusterNetwork network, NetworkHost host, Path dir, String trigger, Runnable action,
                     AtTrigger then, String... args) throws IOException, InterruptedException {
        return run(dir, network.commandOn(host, List.of()), List.of(), trigger, action, then, args);
    }

    /**
     * @param launcher what the tool's JVM is started through ("unshare", "--pid", ...; the JVM's command line follows
     *                 it); signals reach the JVM among the launcher's descendants
     */
    static Run run(Path dir, List<String> launcher, List<String> jvmArgs, String trigger, Runnable action,
                   AtTrigger then, String... args) throws IOException, InterruptedException {
        Path requestLog = newRequestLog(dir);
        Path output = Files.createTempFile(dir, "tool-", ".out");
        Process tool = start(launcher, requestLog, output, jvmArgs, args);
        boolean triggered = false;
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (!triggered && tool.isAlive() && System.nanoTime() < deadline) {
                triggered = Files.exists(requestLog) && Files.readString(requestLog).contains(trigger)
                        || Files.readString(output).contains(trigger);
                if (!triggered) {
                    Thread.onSpinWait();
                }
            }
            if (triggered && then == AtTrigger.PAUSE_THE_TOOL) {
                signal(tool, "STOP");
                try {
                    action.run();
                } finally {
                    signal(tool, "CONT");
                }
            } else if (triggered) {
                action.run();
            }
            if (then == AtTrigger.KILL_THE_TOOL || !triggered) {
                tool.destroyForcibly(); // SIGKILL: no shutdown hook, no finally block runs in the tool
            }
            if (!tool.waitFor(120, TimeUnit.SECONDS)) {
                tool.destroyForcibly();
                throw new IllegalStateException("the tool did not finish within 120 s: " + Files.readString(output));
            }
        } finally {
            if (tool.isAlive()) {
                tool.destroyForcibly();
                tool.waitFor(30, TimeUnit.SECONDS);
            }
        }
        boolean killed = then == AtTrigger.KILL_THE_TOOL || !triggered;
        return new Run(triggered, killed ? -1 : tool.exitValue(), Files.readString(output));
    }

    /**
     * kill(1): SIGSTOP holds every thread of the tool where it is, SIGCONT lets it go on; the tool's JVM and whatever
     * launched it.
     */
    private static void signal(Process tool, String signal) {
        try {
            List<String> command = new ArrayList<>(List.of("kill", "-" + signal, String.valueOf(tool.pid())));
            tool.descendants().forEach(p -> command.add(String.valueOf(p.pid())));
            Process kill = new ProcessBuilder(command).inheritIO().start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed");
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * Runs the tool to its end, with no trigger ({@code triggered} is false).
     *
     * @param jvmOptions the tool JVM's options, e.g. {@code -Xmx256m}
     */
    static Run runToTheEnd(Path dir, List<String> jvmOptions, Duration timeout, String... args)
            throws IOException, InterruptedException {
        return runToTheEnd(command -> command, dir, jvmOptions, timeout, args);
    }

    /**
     * Runs the tool to its end on a host of a cluster of hosts, as an operator on that machine would: the clients'
     * host, or a broker's for {@code inspect} of its disk.
     */
    public static Run runToTheEndOn(ClusterNetwork network, NetworkHost host, Path dir, Duration timeout,
                                    String... args) throws IOException, InterruptedException {
        return runToTheEnd(command -> network.commandOn(host, command), dir, List.of(), timeout, args);
    }

    private static Run runToTheEnd(UnaryOperator<List<String>> onHost, Path dir, List<String> jvmOptions,
                                   Duration timeout, String... args) throws IOException, InterruptedException {
        Path output = Files.createTempFile(dir, "tool-", ".out");
        Process tool = start(onHost.apply(List.of()), newRequestLog(dir), output, jvmOptions, args);
        try {
            if (!tool.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("the tool did not finish within " + timeout.toSeconds() + " s: "
                        + Files.readString(output));
            }
        } finally {
            if (tool.isAlive()) {
                tool.destroyForcibly();
                tool.waitFor(30, TimeUnit.SECONDS);
            }
        }
        return new Run(false, tool.exitValue(), Files.readString(output));
    }

    /** A name no file has: the tool creates its request log itself, and refuses an existing file. */
    static Path newRequestLog(Path dir) {
        return dir.resolve("requests-" + UUID.randomUUID() + ".log");
    }

    /** @param launcher what the java command runs under (a host's {@code ip netns exec ...}); empty: nothing */
    private static Process start(List<String> launcher, Path requestLog, Path output, List<String> jvmOptions,
                                 String... args) throws IOException {
        List<String> command = new ArrayList<>(launcher);
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.addAll(List.of("-Dkafka.unclean.recovery.request.log=" + requestLog, "-cp",
                System.getProperty("java.class.path"), "dev.uncleanrecovery.cli.Main"));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
    }
}
