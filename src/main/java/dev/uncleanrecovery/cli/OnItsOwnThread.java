// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;

/** Output work (writing a file, printing a plan) that runs beside the cluster work on a named daemon thread. */
final class OnItsOwnThread {

    private OnItsOwnThread() {
    }

    /** @return completes with the task's value, or exceptionally with whatever it threw */
    static <T> CompletableFuture<T> run(String name, Callable<T> task) {
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
}
