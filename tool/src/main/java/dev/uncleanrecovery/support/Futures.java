// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.support;

import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Waiting on many requests at once, for callers that read each answer afterwards. */
public final class Futures {

    private Futures() {
    }

    /**
     * Waits until every future is done or {@code timeout} has passed, whichever is first; failures are left in the
     * futures for the caller (an unanswered look-up keeps its estimate).
     */
    public static void awaitAll(Collection<? extends CompletableFuture<?>> futures, Duration timeout) {
        try {
            CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new))
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // each future says for itself what became of it
        }
    }
}
