// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs one command-line tool as its own JVM, the way an operator would, and measures it from outside:
 * wall time from launch to exit, and peak resident memory (VmHWM of /proc/PID/status, polled every 20 ms
 * until the process exits; the last value read is the peak up to then). Each line the process writes to stderr
 * (its progress steps) is stored with the milliseconds since launch in front, {@code +1234 ms re-reading …}, so the
 * report can say where the time went.
 */
final class MeasuredProcess {

    /** @param cpuMillis user + system CPU time of the process, as last read before it exited (10 ms ticks) */
    record Measurement(int exitCode, long launchNanos, long wallMillis, long peakRssKib, long cpuMillis, Path stdout,
                       Path stderr) {
    }

    private MeasuredProcess() {
    }

    static Measurement run(List<String> command, Path outputPrefix, long timeoutSeconds)
            throws IOException, InterruptedException {
        return run(command, outputPrefix, timeoutSeconds, launch -> { });
    }

    /** @param onLaunch told the launch time (System.nanoTime) right after the process started */
    static Measurement run(List<String> command, Path outputPrefix, long timeoutSeconds,
                           java.util.function.LongConsumer onLaunch) throws IOException, InterruptedException {
        return run(command, java.util.Map.of(), outputPrefix, timeoutSeconds, onLaunch);
    }

    /** @param environment added to this JVM's environment for the process */
    static Measurement run(List<String> command, java.util.Map<String, String> environment, Path outputPrefix,
                           long timeoutSeconds, java.util.function.LongConsumer onLaunch)
            throws IOException, InterruptedException {
        Path stdout = Path.of(outputPrefix + ".out");
        Path stderr = Path.of(outputPrefix + ".err");
        long launch = System.nanoTime();
        ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(stdout.toFile());
        builder.environment().putAll(environment);
        Process process = builder.start();
        onLaunch.accept(launch);
        process.getOutputStream().close();
        Thread stderrCopy = timestampLines(process, launch, stderr);
        Path status = Path.of("/proc", String.valueOf(process.pid()), "status");
        Path stat = Path.of("/proc", String.valueOf(process.pid()), "stat");
        long peak = 0;
        long cpu = 0;
        long deadline = launch + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        while (process.isAlive() && System.nanoTime() < deadline) {
            peak = Math.max(peak, vmHwmKib(status));
            cpu = Math.max(cpu, cpuMillis(stat));
            process.waitFor(20, TimeUnit.MILLISECONDS);
        }
        if (process.isAlive()) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            throw new IllegalStateException(command.get(command.size() - 1) + " did not finish within " + timeoutSeconds
                    + " s; see " + stderr);
        }
        long wall = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - launch);
        stderrCopy.join(TimeUnit.SECONDS.toMillis(10));
        return new Measurement(process.exitValue(), launch, wall, peak, cpu, stdout, stderr);
    }

    private static Thread timestampLines(Process process, long launch, Path stderr) {
        Thread copy = new Thread(() -> {
            try (var in = new java.io.BufferedReader(new java.io.InputStreamReader(process.getErrorStream(),
                    java.nio.charset.StandardCharsets.UTF_8));
                 var out = Files.newBufferedWriter(stderr)) {
                // The wall clock at launch, to line the steps up with a request log's timestamps.
                out.write("+0 ms launched at " + java.time.LocalTime.now().minusNanos(System.nanoTime() - launch));
                out.newLine();
                String line;
                while ((line = in.readLine()) != null) {
                    out.write("+" + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - launch) + " ms " + line);
                    out.newLine();
                }
            } catch (IOException e) {
                // the stream closed with the process
            }
        }, "stderr of " + process.pid());
        copy.setDaemon(true);
        copy.start();
        return copy;
    }

    /** Fields 14 and 15 of /proc/PID/stat (utime, stime), in clock ticks of 10 ms. */
    private static long cpuMillis(Path stat) {
        try {
            String text = Files.readString(stat);
            String[] fields = text.substring(text.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * 10;
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    private static long vmHwmKib(Path status) {
        try {
            for (String line : Files.readAllLines(status)) {
                if (line.startsWith("VmHWM:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException | RuntimeException e) {
            // the process exited between isAlive() and the read
        }
        return 0;
    }
}
