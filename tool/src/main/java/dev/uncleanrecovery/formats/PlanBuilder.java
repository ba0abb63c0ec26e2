// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.formats;

import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.election.Decision;
import dev.uncleanrecovery.election.Strategy;
import dev.uncleanrecovery.evidence.ReplicaEvidence;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.internals.Topic;

/**
 * Turns {@link dev.uncleanrecovery.election.LeaderChoice} decisions into a {@link Plan}: the only place that maps
 * election values to plan records. Entries come out sorted by topic and partition, so the same cluster state
 * gives the same file.
 */
public final class PlanBuilder {

    // Kafka's internal topics first: without __consumer_offsets no group can read or commit its offsets
    private static final Comparator<PlannedElection> ELECTION_ORDER =
            Comparator.comparing((PlannedElection p) -> !Topic.isInternal(p.topic()))
                    .thenComparing(PlannedElection::topic).thenComparingInt(PlannedElection::partition);
    private static final Comparator<SkippedPartition> SKIPPED_ORDER =
            Comparator.comparing((SkippedPartition p) -> !Topic.isInternal(p.topic()))
                    .thenComparing(SkippedPartition::topic).thenComparingInt(SkippedPartition::partition);

    private final Instant createdAt;
    private final String clusterId;
    private final String tool;
    private final Strategy strategy;
    private final List<PlannedElection> partitions = new ArrayList<>();
    private final List<SkippedPartition> skipped = new ArrayList<>();
    private final List<PlanUnansweredBroker> unansweredBrokers = new ArrayList<>();
    private final Map<TopicPartition, List<PlanConsumerGroup>> consumerGroupsAhead = new HashMap<>();
    private final List<String> notes = new ArrayList<>();
    private final java.util.Set<String> tieredTopics = new java.util.HashSet<>();
    private String bootstrapServer;

    /**
     * @param createdAt passed in, not read from a clock, so plans are reproducible in tests
     * @param tool      name and version of the writing tool, e.g. "kafka-unclean-recovery 0.1.0"
     */
    public PlanBuilder(Instant createdAt, String clusterId, String tool, Strategy strategy) {
        this.createdAt = createdAt;
        this.clusterId = clusterId;
        this.tool = tool;
        this.strategy = strategy;
    }

    /**
     * @param partition the state the decision was made from; its leader epoch and replicas become {@code expected}
     * @param evidence  the evidence the decision was made from; entries of other partitions or of brokers outside
     *                  the replica set are left out
     */
    public PlanBuilder add(TopicPartitionState partition, List<ReplicaEvidence> evidence, Decision decision) {
        if (!decision.topicPartition().equals(partition.topicPartition())) {
            throw new IllegalArgumentException("decision for " + decision.topicPartition() + " added with the state of "
                    + partition.topicPartition());
        }
        if (decision instanceof Decision.Elect elect) {
            partitions.add(new PlannedElection(partition.topic(), partition.partition(), elect.designatedLeader(),
                    // No client RPC exposes the partition epoch (DescribeTopicPartitions has none): unknown.
                    new ExpectedState(partition.leaderEpoch(), partition.replicas(), partition.isr(),
                            partition.eligibleLeaderReplicas(), partition.lastKnownElr()),
                    planEvidence(partition, evidence),
                    elect.reason(),
                    elect.truncations().stream().map(PlanTruncation::from).toList(),
                    elect.alternatives().stream().map(PlanAlternative::from).toList(), List.of(), false,
                    PlannedElection.topicIdText(partition.topicId())));
        } else {
            skipped.add(new SkippedPartition(partition.topic(), partition.partition(), decision.reason(),
                    planEvidence(partition, evidence)));
        }
        return this;
    }

    /** The brokers the probe got no answer from; the plan keeps them in broker id order. */
    public PlanBuilder unansweredBrokers(List<PlanUnansweredBroker> brokers) {
        unansweredBrokers.clear();
        unansweredBrokers.addAll(brokers);
        return this;
    }

    /** Consumer groups whose committed offset lies beyond the designated leader's log end, per partition to elect. */
    public PlanBuilder consumerGroupsAhead(TopicPartition tp, List<PlanConsumerGroup> groups) {
        consumerGroupsAhead.put(tp, List.copyOf(groups));
        return this;
    }

    /** Topics with tiered storage: their partitions are flagged. */
    public PlanBuilder tieredStorage(java.util.Collection<String> topics) {
        tieredTopics.addAll(topics);
        return this;
    }

    /** The --bootstrap-server the plan is made through, for the commands shown with it; null: not said. */
    public PlanBuilder bootstrapServer(String servers) {
        bootstrapServer = servers;
        return this;
    }

    /** A line the reviewer must read before the partitions, in the order added. */
    public PlanBuilder note(String note) {
        notes.add(note);
        return this;
    }

    public Plan build() {
        return new Plan(Plan.VERSION, createdAt, clusterId, tool, strategy,
                unansweredBrokers.stream().sorted(Comparator.comparingInt(PlanUnansweredBroker::broker)).toList(),
                partitions.stream()
                        .map(p -> consumerGroupsAhead.containsKey(p.topicPartition())
                                ? p.withConsumerGroupsAhead(consumerGroupsAhead.get(p.topicPartition())) : p)
                        .map(p -> p.withTieredStorage(tieredTopics.contains(p.topic())))
                        .sorted(ELECTION_ORDER).toList(),
                skipped.stream().sorted(SKIPPED_ORDER).toList(),
                notes, bootstrapServer);
    }

    /** In assignment order, then live before disk, then oldest first: how a reviewer reads it. */
    private static List<PlanEvidence> planEvidence(TopicPartitionState partition, List<ReplicaEvidence> evidence) {
        return evidence.stream()
                .filter(e -> e.topicPartition().equals(partition.topicPartition()))
                .filter(e -> partition.replicas().contains(e.broker()))
                .sorted(Comparator.comparingInt((ReplicaEvidence e) -> partition.replicas().indexOf(e.broker()))
                        .thenComparing(ReplicaEvidence::source)
                        .thenComparing(ReplicaEvidence::observedAt, Comparator.nullsLast(Comparator.naturalOrder()))
                        .thenComparing(ReplicaEvidence::status))
                .map(PlanEvidence::from)
                .toList();
    }
}
