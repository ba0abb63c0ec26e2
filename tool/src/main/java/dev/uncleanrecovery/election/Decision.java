// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.election;

import java.util.List;
import org.apache.kafka.common.TopicPartition;

/** What {@link LeaderChoice} decided for one partition: elect a designated leader, or skip it and say why. */
public sealed interface Decision permits Decision.Elect, Decision.Skip {

    TopicPartition topicPartition();

    /** For people, one line. */
    String reason();

    /**
     * Elect {@code designatedLeader}.
     *
     * @param ranking     every replica of the assignment: known logs best first, then the unknown ones in
     *                    assignment order
     * @param truncations  one entry per other replica, in assignment order
     * @param alternatives the other candidates, best first, with what electing each instead would destroy
     */
    record Elect(TopicPartition topicPartition, int designatedLeader, String reason,
                 List<RankedReplica> ranking, List<ExpectedTruncation> truncations,
                 List<Alternative> alternatives) implements Decision {

        public Elect {
            ranking = List.copyOf(ranking);
            truncations = List.copyOf(truncations);
            alternatives = List.copyOf(alternatives);
        }

        public Loss loss() {
            return Loss.of(truncations);
        }

        /** Offsets the other replicas are known to lose; a lower bound when {@link #totalIsLowerBound()}. */
        public long totalTruncatedRecords() {
            return truncations.stream().filter(ExpectedTruncation::isKnown).mapToLong(ExpectedTruncation::records).sum();
        }

        /** Some replica may lose more than counted: its estimate is AT_LEAST or UNKNOWN. */
        public boolean totalIsLowerBound() {
            return truncations.stream().anyMatch(t -> t.estimate() != TruncationEstimate.EXACT);
        }
    }

    record Skip(TopicPartition topicPartition, SkipCause cause, String reason) implements Decision {
    }
}
