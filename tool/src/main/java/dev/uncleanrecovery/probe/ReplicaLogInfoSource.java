// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.probe;

import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.evidence.ReplicaEvidence;
import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.CompletableFuture;

/**
 * How one broker is asked about its replicas' logs: stock RPCs ({@link StockLogInfoSource}) or,
 * where the companion patch runs, GetReplicaLogInfo. {@link ProbeFanOut} decides what to ask whom
 * and when (batching, in-flight limit, retries, deadline); a source only turns one batch into
 * requests and answers into {@link ReplicaEvidence}.
 */
public interface ReplicaLogInfoSource {

    /** The source written on evidence the engine makes itself for this broker (UNREACHABLE, retries run out). */
    EvidenceSource kindFor(int brokerId);

    /**
     * Asks {@code batch.brokerId()} about {@code batch.partitions()} (at most
     * {@link ProbeSettings#maxPartitionsPerRequest()}).
     *
     * @return completes normally once the broker answered, even if some partitions carry errors
     *         (those go in the answer). Completes exceptionally when the broker gave no usable answer
     *         (connection, authentication, timeout) — normally with a
     *         {@link dev.uncleanrecovery.connect.BrokerRequestException}, whose retriable flag the
     *         engine honours. Must not block the calling thread.
     */
    CompletableFuture<ProbeBatchAnswer> probe(ProbeBatch batch);

    /**
     * Called once before the first batch, with every broker the run will ask. A source that needs an answer from
     * each broker before its first request (its ApiVersions) asks for it now, so that round trip overlaps with the
     * building of the first batches instead of following it. Must not block; failures are left to {@link #probe}.
     */
    default void prepare(Collection<Integer> brokerIds, Duration timeout) {
    }
}
