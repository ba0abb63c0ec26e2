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
 * until the process exits; the last value read is the peak up to then).
 */
final class MeasuredProcess {

    record Measurement(int exitCode, long launchNanos, long wallMillis, long peakRssKib, Path stdout, Path stderr) {
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
        Path stdout = Path.of(outputPrefix + ".out");
        Path stderr = Path.of(outputPrefix + ".err");
        long launch = System.nanoTime();
        Process process = new ProcessBuilder(command)
                .redirectOutput(stdout.toFile()).redirectError(stderr.toFile()).start();
        onLaunch.accept(launch);
        process.getOutputStream().close();
        Path status = Path.of("/proc", String.valueOf(process.pid()), "status");
        long peak = 0;
        long deadline = launch + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        while (process.isAlive() && System.nanoTime() < deadline) {
            peak = Math.max(peak, vmHwmKib(status));
            process.waitFor(20, TimeUnit.MILLISECONDS);
        }
        if (process.isAlive()) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            throw new IllegalStateException(command.get(command.size() - 1) + " did not finish within " + timeoutSeconds
                    + " s; see " + stderr);
        }
        long wall = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - launch);
        return new Measurement(process.exitValue(), launch, wall, peak, stdout, stderr);
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
