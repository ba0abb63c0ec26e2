// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cluster;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.errors.InterruptException;

/** Waiting on Admin futures for the readers whose failures become lines of a report, not errors. */
final class AdminCalls {

    private AdminCalls() {
    }

    /** The value, or the Kafka exception the call failed with (TimeoutException a second after {@code timeout}). */
    static <T> T get(KafkaFuture<T> future, Duration timeout) {
        try {
            return future.get(timeout.toMillis() + 1_000, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        } catch (TimeoutException e) {
            throw new org.apache.kafka.common.errors.TimeoutException("no answer within " + timeout.toSeconds() + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptException(e);
        }
    }

    /** Admin's per-call {@code timeoutMs}. */
    static int millis(Duration timeout) {
        return (int) Math.min(Integer.MAX_VALUE, timeout.toMillis());
    }

    static String message(RuntimeException e) {
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }
}
