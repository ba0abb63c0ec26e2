// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import dev.uncleanrecovery.probe.ProbeProgress;
import dev.uncleanrecovery.probe.UnansweredBroker;
import dev.uncleanrecovery.view.Table;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Progress on stderr for long work: silent for the first second (a quick probe prints nothing), then at
 * most one line per second, and the final count. A probe that got no answer from a broker always ends with the
 * final count and names the broker, however quick: that is what the operator must not miss.
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
        boolean last = p.isComplete();
        if (slow && (now - lastPrinted >= 1000 || last) || last && !p.unansweredBrokers().isEmpty()) {
            lastPrinted = now;
            err.println(line(p));
            err.flush();
        }
    }

    /**
     * "probing: 2/3 brokers answered, 2/3 replicas known", and once the probe is over, the brokers that did not
     * answer: "; broker 2 (127.0.0.1:9093) did not answer in time".
     */
    static String line(ProbeProgress p) {
        StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "probing: %d/%d brokers answered, %d/%d replicas known",
                p.brokersAnswered(), p.brokersTotal(), p.replicasKnown(), p.replicasTotal()));
        if (p.isComplete()) {
            unanswered(p.unansweredBrokers().stream().filter(UnansweredBroker::timedOut).toList(), "did not answer in time")
                    .ifPresent(said -> line.append("; ").append(said));
            unanswered(p.unansweredBrokers().stream().filter(b -> !b.timedOut()).toList(), "could not be asked")
                    .ifPresent(said -> line.append("; ").append(said));
        }
        return line.toString();
    }

    private static Optional<String> unanswered(List<UnansweredBroker> brokers, String what) {
        if (brokers.isEmpty()) {
            return Optional.empty();
        }
        List<String> names = brokers.stream().map(b -> b.replicasUnknown() == b.replicas() ? b.name()
                : b.name() + " (" + b.replicasUnknown() + " of its " + b.replicas() + " replicas)").toList();
        String joined = names.size() == 1 ? names.get(0)
                : String.join(", ", names.subList(0, names.size() - 1)) + " and " + names.get(names.size() - 1);
        return Optional.of(joined + " " + what);
    }

    /** A step of a longer job, always printed. */
    static Consumer<String> steps(PrintWriter err) {
        return step -> {
            Table.printWrapped(err, "... " + step, 4);
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
