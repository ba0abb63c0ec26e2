// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.probe;

import java.time.Duration;
import java.util.List;

/** One batch the engine hands a {@link ReplicaLogInfoSource}: which broker, which partitions, how long. */
public final class ProbeBatch {

    private final int brokerId;
    private final List<PartitionToProbe> partitions;
    private final long deadlineNanos;
    private final Duration maxRequestTimeout;
    private final RequestCounts requests;

    ProbeBatch(int brokerId, List<PartitionToProbe> partitions, long deadlineNanos, Duration maxRequestTimeout,
               RequestCounts requests) {
        this.brokerId = brokerId;
        this.partitions = List.copyOf(partitions);
        this.deadlineNanos = deadlineNanos;
        this.maxRequestTimeout = maxRequestTimeout;
        this.requests = requests;
    }

    /** The same broker, deadline and request count, for some of the partitions (or others) instead. */
    ProbeBatch only(List<PartitionToProbe> partitions) {
        return new ProbeBatch(brokerId, partitions, deadlineNanos, maxRequestTimeout, requests);
    }

    public int brokerId() {
        return brokerId;
    }

    public List<PartitionToProbe> partitions() {
        return partitions;
    }

    /** The timeout for a request sent now: the configured request timeout, cut to what is left of the deadline. */
    public Duration requestTimeout() {
        long leftMs = Math.max(1, (deadlineNanos - System.nanoTime()) / 1_000_000);
        return Duration.ofMillis(Math.min(maxRequestTimeout.toMillis(), leftMs));
    }

    /** Call once per request sent, with the protocol's request name ({@code ListOffsets}, {@code Fetch}, …). */
    public void countRequest(String kind) {
        requests.record(brokerId, kind);
    }
}
