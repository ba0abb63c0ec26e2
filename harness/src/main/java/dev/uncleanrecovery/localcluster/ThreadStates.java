// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The scheduler states of a process's threads, read from {@code /proc/<pid>/task/<tid>/stat}. kill(2) returns as soon
 * as SIGSTOP is queued; each thread enters the stopped state only when it is next scheduled, so on a busy machine a
 * broker can still answer for a moment after {@code kill -STOP} (or {@code docker kill --signal STOP}) returns.
 */
final class ThreadStates {
    private static final Duration POLL = Duration.ofMillis(20);

    private ThreadStates() {
    }

    /**
     * Waits until every thread of {@code pid} is stopped (state {@code T}), or with {@code stopped} false until none
     * is; fails naming the threads still pending. A process not visible here (exited, or in a remote engine's host)
     * has no thread to wait for.
     */
    static void await(long pid, boolean stopped, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<String> pending = pending(pid, stopped);
        while (!pending.isEmpty()) {
            if (System.nanoTime() > deadline) {
                throw new LocalClusterException("process " + pid + ": after " + timeout.toMillis() + " ms, "
                        + pending.size() + " thread(s) still " + (stopped ? "not stopped" : "stopped") + ", e.g. "
                        + pending.subList(0, Math.min(5, pending.size())));
            }
            try {
                Thread.sleep(POLL.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new LocalClusterException("interrupted while waiting on the threads of process " + pid, e);
            }
            pending = pending(pid, stopped);
        }
    }

    /** The state letter of each thread of {@code pid} by thread id; empty for a process not visible here. */
    static Map<String, Character> states(long pid) {
        Map<String, Character> states = new TreeMap<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                char state = state(task);
                if (state != 0) {
                    states.put(task.getFileName().toString(), state);
                }
            }
        } catch (NoSuchFileException gone) {
            return Map.of();
        } catch (IOException e) {
            throw new LocalClusterException("could not read the threads of process " + pid + ": " + e, e);
        }
        return states;
    }

    /** Threads whose state is not yet the one wanted, as "tid:state". */
    private static List<String> pending(long pid, boolean stopped) {
        List<String> pending = new ArrayList<>();
        states(pid).forEach((tid, state) -> {
            if ((state == 'T') != stopped) {
                pending.add(tid + ":" + state);
            }
        });
        return pending;
    }

    /** The state letter, which follows the parenthesised thread name (itself free to hold spaces and ')'). */
    private static char state(Path task) throws IOException {
        String stat;
        try {
            stat = Files.readString(task.resolve("stat"), StandardCharsets.ISO_8859_1);
        } catch (NoSuchFileException exited) {
            return 0;
        }
        int end = stat.lastIndexOf(')');
        return end < 0 || end + 2 >= stat.length() ? 0 : stat.charAt(end + 2);
    }
}
