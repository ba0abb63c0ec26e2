// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * What {@code execute} did with a plan: per partition the state before, the action, the state after.
 *
 * @param elector how elections were made (stock reorder + UNCLEAN, or native ElectLeaders v3)
 */
public record ExecutionResult(String clusterId, String planFile, Instant startedAt, Duration elapsed,
                              String elector, List<PartitionOutcome> partitions) {

    public ExecutionResult {
        partitions = List.copyOf(partitions);
    }

    public long count(Outcome outcome) {
        return partitions.stream().filter(p -> p.outcome() == outcome).count();
    }

    public boolean anyUncleanElection() {
        return count(Outcome.ELECTED) + count(Outcome.ELECTED_OTHER) > 0;
    }

    public boolean needsAttention() {
        return partitions.stream().anyMatch(p -> p.outcome().needsAttention());
    }

    /** What the operator must act on after this run. */
    public List<String> warnings(String bootstrapServer) {
        List<String> warnings = new java.util.ArrayList<>();
        if (anyUncleanElection()) {
            warnings.add("Unclean elections happened: transactions whose markers were lost may hang and block"
                    + " read_committed consumers. Check with: kafka-transactions.sh --bootstrap-server " + bootstrapServer
                    + " find-hanging --broker-id <each broker id>");
        }
        if (anyElectedOther()) {
            warnings.add("The controller elected a replica other than the designated one for some partitions"
                    + " (ELECTED_OTHER): check them now; their log may be shorter than the one the plan chose.");
        }
        return warnings;
    }

    public dev.uncleanrecovery.plan.ResultFile toResultFile(String tool, String bootstrapServer) {
        return new dev.uncleanrecovery.plan.ResultFile(dev.uncleanrecovery.plan.ResultFile.VERSION, clusterId, planFile, tool,
                startedAt, elapsed.toMillis(), elector,
                new dev.uncleanrecovery.plan.ResultFile.Summary(count(Outcome.ELECTED), count(Outcome.ALREADY_RECOVERED),
                        count(Outcome.REFUSED), count(Outcome.ELECTED_OTHER), count(Outcome.FAILED),
                        count(Outcome.WOULD_ELECT)),
                partitions.stream().map(p -> new dev.uncleanrecovery.plan.ResultFile.Partition(p.topicPartition().topic(),
                        p.topicPartition().partition(), p.designatedLeader(), p.outcome().name(), p.detail(),
                        state(p.before()), state(p.after()))).toList(),
                warnings(bootstrapServer));
    }

    private static dev.uncleanrecovery.plan.ResultFile.State state(dev.uncleanrecovery.cluster.TopicPartitionState s) {
        return s == null ? null : new dev.uncleanrecovery.plan.ResultFile.State(s.leader(), s.leaderEpoch(), s.replicas(),
                s.isr(), s.eligibleLeaderReplicas(), s.lastKnownElr());
    }

    /** The controller elected someone else somewhere: the worst case, exit 1. */
    public boolean anyElectedOther() {
        return count(Outcome.ELECTED_OTHER) > 0;
    }
}
