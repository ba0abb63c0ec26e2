// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.probe;

import java.time.Duration;

/**
 * How a fan-out paces itself.
 *
 * @param timeout                     the one overall deadline ({@code --probe-timeout-ms}); replicas not known by then are UNREACHABLE
 * @param requestTimeout              longest wait for one request, so a silent broker is asked again before the deadline
 * @param maxPartitionsPerRequest     1 to 1000: a broker builds its answer to one request at a time, so a bounded batch bounds each answer
 * @param maxInFlightBatchesPerBroker batches being asked of one broker at once
 * @param initialBackoff              first retry delay; doubles per failure up to maxBackoff
 * @param jitter                      0 to 1: each delay is scaled by a random factor in [1 - jitter, 1 + jitter],
 *                                    so retries against many brokers do not march in step
 * @param maxAttemptsPerPartition     answers with a retriable error before the error is final
 */
public record ProbeSettings(Duration timeout, Duration requestTimeout, int maxPartitionsPerRequest,
                            int maxInFlightBatchesPerBroker, Duration initialBackoff, Duration maxBackoff,
                            double jitter, int maxAttemptsPerPartition) {

    public static final int MAX_PARTITIONS_PER_REQUEST = 1000;
    public static final Duration DEFAULT_TIMEOUT = Duration.ofMillis(30_000);

    public ProbeSettings {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("the probe timeout must be positive, got " + timeout.toMillis() + " ms");
        }
        if (maxPartitionsPerRequest < 1 || maxPartitionsPerRequest > MAX_PARTITIONS_PER_REQUEST) {
            throw new IllegalArgumentException("maxPartitionsPerRequest must be 1.." + MAX_PARTITIONS_PER_REQUEST);
        }
        if (maxInFlightBatchesPerBroker < 1 || maxAttemptsPerPartition < 1) {
            throw new IllegalArgumentException("maxInFlightBatchesPerBroker and maxAttemptsPerPartition must be at least 1");
        }
        if (jitter < 0 || jitter > 1) {
            throw new IllegalArgumentException("jitter must be between 0 and 1");
        }
    }

    public static ProbeSettings defaults() {
        return new ProbeSettings(DEFAULT_TIMEOUT, Duration.ofSeconds(10), MAX_PARTITIONS_PER_REQUEST, 2,
                Duration.ofMillis(100), Duration.ofSeconds(2), 0.2, 5);
    }

    /**
     * The defaults under one overall deadline: the plan's probe and execute's second look. No single request waits
     * longer than the deadline, so a short deadline still gets its retries.
     */
    public static ProbeSettings within(Duration deadline) {
        ProbeSettings defaults = defaults();
        return defaults.withTimeout(deadline).withRequestTimeout(
                deadline.compareTo(defaults.requestTimeout()) < 0 ? deadline : defaults.requestTimeout());
    }

    public ProbeSettings withTimeout(Duration newTimeout) {
        return new ProbeSettings(newTimeout, requestTimeout, maxPartitionsPerRequest, maxInFlightBatchesPerBroker,
                initialBackoff, maxBackoff, jitter, maxAttemptsPerPartition);
    }

    public ProbeSettings withRequestTimeout(Duration newRequestTimeout) {
        return new ProbeSettings(timeout, newRequestTimeout, maxPartitionsPerRequest, maxInFlightBatchesPerBroker,
                initialBackoff, maxBackoff, jitter, maxAttemptsPerPartition);
    }

    public ProbeSettings withBatching(int newMaxPartitionsPerRequest, int newMaxInFlightBatchesPerBroker) {
        return new ProbeSettings(timeout, requestTimeout, newMaxPartitionsPerRequest, newMaxInFlightBatchesPerBroker,
                initialBackoff, maxBackoff, jitter, maxAttemptsPerPartition);
    }

    public ProbeSettings withRetries(Duration newInitialBackoff, Duration newMaxBackoff, double newJitter,
                                     int newMaxAttemptsPerPartition) {
        return new ProbeSettings(timeout, requestTimeout, maxPartitionsPerRequest, maxInFlightBatchesPerBroker,
                newInitialBackoff, newMaxBackoff, newJitter, newMaxAttemptsPerPartition);
    }
}
