// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.formats;

import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.election.ElectionOptions;
import dev.uncleanrecovery.election.LeaderChoice;
import dev.uncleanrecovery.election.Strategy;
import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.evidence.ReplicaEvidence;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

/**
 * A sample plan (examples/plan.json has the same shape), made the way {@code plan} makes it: orders-3 is offline and 2 has the best log;
 * orders-5 waits for its LastKnownELR member 1.
 */
final class SamplePlan {
    static final Instant CREATED_AT = Instant.parse("2026-11-29T03:04:05Z");
    static final Instant PROBED_AT = Instant.parse("2026-11-29T03:04:01Z");
    static final TopicPartition ORDERS_3 = new TopicPartition("orders", 3);
    static final TopicPartition ORDERS_5 = new TopicPartition("orders", 5);
    private static final Uuid ORDERS_ID = new Uuid(42, 7);

    static final TopicPartitionState ORDERS_3_STATE = offline(3, List.of());
    static final TopicPartitionState ORDERS_5_STATE = offline(5, List.of(1));

    static final List<ReplicaEvidence> ORDERS_3_EVIDENCE = List.of(
            ReplicaEvidence.answered(ORDERS_3, 2, EvidenceSource.NATIVE, 1042, 6, 7, 311, PROBED_AT),
            ReplicaEvidence.failed(ORDERS_3, 1, EvidenceSource.STOCK, EvidenceStatus.UNREACHABLE, "timed out after 30000 ms", PROBED_AT),
            ReplicaEvidence.answered(ORDERS_3, 3, EvidenceSource.STOCK, 1059, 5, 7, -1, PROBED_AT));
    static final List<ReplicaEvidence> ORDERS_5_EVIDENCE = List.of(
            ReplicaEvidence.failed(ORDERS_5, 1, EvidenceSource.STOCK, EvidenceStatus.UNREACHABLE, "connection refused", PROBED_AT),
            ReplicaEvidence.answered(ORDERS_5, 2, EvidenceSource.STOCK, 10, 6, 7, -1, PROBED_AT));

    private SamplePlan() {
    }

    static Plan plan() {
        PlanBuilder builder = new PlanBuilder(CREATED_AT, "q1Sh-9_ISia_zwGINzRvyQ", "kafka-unclean-recovery 0.1.0", Strategy.BALANCED);
        // added out of order on purpose: the plan sorts its entries
        builder.add(ORDERS_5_STATE, ORDERS_5_EVIDENCE, decide(ORDERS_5_STATE, ORDERS_5_EVIDENCE));
        builder.add(ORDERS_3_STATE, ORDERS_3_EVIDENCE, decide(ORDERS_3_STATE, ORDERS_3_EVIDENCE));
        builder.unansweredBrokers(List.of(new PlanUnansweredBroker(1, "127.0.0.1:9091", 2, 2,
                "broker 1 (127.0.0.1:9091) did not answer within 30 s: connection refused", true)));
        return builder.bootstrapServer("127.0.0.1:9092").build();
    }

    static Plan empty() {
        return new PlanBuilder(CREATED_AT, "q1Sh-9_ISia_zwGINzRvyQ", "kafka-unclean-recovery 0.1.0", Strategy.PROACTIVE).build();
    }

    private static dev.uncleanrecovery.election.Decision decide(TopicPartitionState state, List<ReplicaEvidence> evidence) {
        return LeaderChoice.decide(state, evidence, Set.of(), ElectionOptions.defaults());
    }

    private static TopicPartitionState offline(int partition, List<Integer> lastKnownElr) {
        return new TopicPartitionState("orders", ORDERS_ID, partition, TopicPartitionState.NO_LEADER, 7,
                List.of(1, 2, 3), List.of(), List.of(), lastKnownElr, List.of(1));
    }
}
