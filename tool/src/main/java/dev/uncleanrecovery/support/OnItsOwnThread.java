// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.support;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Work that runs beside the main work on a named daemon thread: writing a file while the outcomes are printed,
 * reading topic configs while the partitions are read, choosing the elector during the second look. A daemon, so an
 * abandoned task (its caller failed first) never keeps the JVM alive.
 */
public final class OnItsOwnThread {

    private OnItsOwnThread() {
    }

    /** @return completes with the task's value, or exceptionally with whatever it threw */
    public static <T> CompletableFuture<T> run(String name, Callable<T> task) {
        CompletableFuture<T> done = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                done.complete(task.call());
            } catch (Throwable t) {
                done.completeExceptionally(t);
            }
        }, name);
        thread.setDaemon(true);
        thread.start();
        return done;
    }

    /**
     * Waits for the task and returns its value; what the task threw is thrown again as it was (a
     * {@link UserInputException} stays one), so a caller reports it as if it had done the work itself.
     */
    public static <T> T join(CompletableFuture<T> task) {
        try {
            return task.join();
        } catch (CompletionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw e;
        }
    }
}
