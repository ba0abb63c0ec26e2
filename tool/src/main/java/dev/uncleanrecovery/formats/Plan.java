// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.formats;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.uncleanrecovery.election.Strategy;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/**
 * The plan file: the contract between the dry run and {@code execute}, and at the same time a valid
 * {@code kafka-leader-election.sh --path-to-json-file} input. Only partitions to elect go in {@code partitions}.
 *
 * @param tool              e.g. "kafka-unclean-recovery 0.1.0"
 * @param unansweredBrokers brokers the probe got no answer from, in broker id order; plans written before the field
 *                          existed have none, and read as an empty list
 * @param notes             what a reviewer must know before the partitions, most urgent first (offline
 *                          __consumer_offsets partitions, consumer groups whose offsets could not be read)
 * @param bootstrapServer   the --bootstrap-server the plan was made through, for the commands the tool shows with
 *                          it (plan version 5); execute connects where it is told
 */
public record Plan(
        @Required int version,
        @Required Instant createdAt,
        @Required String clusterId,
        @Required String tool,
        @Required Strategy strategy,
        List<PlanUnansweredBroker> unansweredBrokers,
        @Required List<PlannedElection> partitions,
        @Required List<SkippedPartition> skipped,
        List<String> notes,
        @JsonInclude(JsonInclude.Include.NON_NULL) String bootstrapServer) {

    /** A plan that does not say which --bootstrap-server it was made through, as those before version 5. */
    public Plan(int version, Instant createdAt, String clusterId, String tool, Strategy strategy,
                List<PlanUnansweredBroker> unansweredBrokers, List<PlannedElection> partitions,
                List<SkippedPartition> skipped, List<String> notes) {
        this(version, createdAt, clusterId, tool, strategy, unansweredBrokers, partitions, skipped, notes, null);
    }

    /** A plan without notes, as version-1 plans are. */
    public Plan(int version, Instant createdAt, String clusterId, String tool, Strategy strategy,
                List<PlanUnansweredBroker> unansweredBrokers, List<PlannedElection> partitions,
                List<SkippedPartition> skipped) {
        this(version, createdAt, clusterId, tool, strategy, unansweredBrokers, partitions, skipped, null, null);
    }

    /**
     * The plan format version this tool writes: 2 adds high watermarks and committed losses, 3 drops the expected
     * state's partitionEpoch, which no RPC gives, and adds each election's topicId; 4 states each known truncation's
     * unknownCommitmentRecords instead of leaving them to subtraction; 5 records each partition's ISR, ELR and
     * LastKnownELR, whether an unanswered broker is fenced, and the --bootstrap-server the plan was made through.
     */
    public static final int VERSION = 5;
    /** The oldest plan format version this tool still reads and executes. */
    public static final int OLDEST_READ = 1;

    public Plan {
        if (version < OLDEST_READ || version > VERSION) {
            throw Checks.invalid("version", "is " + version + ", but this tool reads version " + OLDEST_READ
                    + " to " + VERSION + " plans; use the tool version that wrote it");
        }
        // a plan written without one could never be executed: its file would lack the field
        Objects.requireNonNull(clusterId, "clusterId");
        unansweredBrokers = Checks.listOrEmpty(unansweredBrokers);
        Set<Integer> unanswered = new HashSet<>();
        for (int i = 0; i < unansweredBrokers.size(); i++) {
            if (!unanswered.add(unansweredBrokers.get(i).broker())) {
                throw Checks.invalid("unansweredBrokers[" + i + "]", "is broker " + unansweredBrokers.get(i).broker()
                        + " again; keep one of them");
            }
        }
        partitions = Checks.list(partitions);
        skipped = Checks.list(skipped);
        notes = Checks.listOrEmpty(notes);
        // kafka-leader-election.sh rejects duplicates ("Replica election data contains duplicate partitions"),
        // and a partition both elected and skipped would be a contradiction.
        Map<TopicPartition, String> seen = new HashMap<>();
        for (int i = 0; i < partitions.size(); i++) {
            refuseDuplicate(seen, partitions.get(i).topicPartition(), "partitions[" + i + "]");
        }
        for (int i = 0; i < skipped.size(); i++) {
            refuseDuplicate(seen, skipped.get(i).topicPartition(), "skipped[" + i + "]");
        }
    }

    private static void refuseDuplicate(Map<TopicPartition, String> seen, TopicPartition tp, String where) {
        String first = seen.putIfAbsent(tp, where);
        if (first != null) {
            throw Checks.invalid(where, "is " + tp + " again (already " + first + "); keep one of them");
        }
    }
}
