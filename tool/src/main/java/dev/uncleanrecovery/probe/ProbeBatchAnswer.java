// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.probe;

import dev.uncleanrecovery.evidence.ReplicaEvidence;
import java.util.Collections;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * What one broker said about one batch. A partition of the batch that is in neither map was not
 * answered this time (for example a paged answer) and is asked again at once.
 *
 * <p>The maps are taken over, not copied (a batch answer holds a thousand entries, and hundreds arrive at once):
 * the source hands over maps it built for this answer and no longer changes; the engine only reads them.
 *
 * @param settled final evidence: answered, or an error that asking again cannot fix
 * @param retry   partitions worth asking again, with why and what to report if retries run out
 */
public record ProbeBatchAnswer(Map<TopicPartition, ReplicaEvidence> settled, Map<TopicPartition, PartitionRetry> retry) {

    /**
     * @param reason          why the answer is not final yet (for the last-error text)
     * @param ifRetriesRunOut the evidence to report when the attempts or the deadline run out
     *                        (ERROR, or STALE with the values seen); null reports UNREACHABLE
     */
    public record PartitionRetry(String reason, ReplicaEvidence ifRetriesRunOut) {
    }

    public ProbeBatchAnswer {
        settled = Collections.unmodifiableMap(settled);
        retry = Collections.unmodifiableMap(retry);
    }
}
