// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import dev.uncleanrecovery.probe.ProbeProgress;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Progress on stderr for long work: silent for the first second (a quick probe prints nothing), then at
 * most one line per second, and the final count.
 */
final class ProgressLine implements Consumer<ProbeProgress> {

    private static final long QUIET_MS = 1000;

    private final PrintWriter err;
    private final long startedAt = System.currentTimeMillis();
    private long lastPrinted;

    ProgressLine(PrintWriter err) {
        this.err = err;
    }

    @Override
    public synchronized void accept(ProbeProgress p) {
        long now = System.currentTimeMillis();
        boolean slow = now - startedAt >= QUIET_MS;
        if (slow && (now - lastPrinted >= 1000 || p.isComplete())) {
            lastPrinted = now;
            err.printf("probing: %d/%d brokers answered, %d/%d replicas known%n", p.brokersAnswered(), p.brokersTotal(),
                    p.replicasKnown(), p.replicasTotal());
            err.flush();
        }
    }

    /** A step of a longer job, always printed. */
    static Consumer<String> steps(PrintWriter err) {
        return step -> {
            err.println("... " + step);
            err.flush();
        };
    }

    /**
     * {@code steps}, holding every step back until {@code until} completes (however it completes), then showing
     * them in order: steps of work that runs while something else is printing wait for it.
     */
    static Consumer<String> heldUntil(CompletableFuture<?> until, Consumer<String> steps) {
        List<String> held = new ArrayList<>();
        until.whenComplete((ignored, failure) -> {
            synchronized (held) {
                held.forEach(steps);
                held.clear();
            }
        });
        return step -> {
            synchronized (held) {
                if (until.isDone() && held.isEmpty()) {
                    steps.accept(step);
                } else {
                    held.add(step);
                }
            }
        };
    }
}
