// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.workflow;

import dev.uncleanrecovery.cluster.BrokerConnections;
import dev.uncleanrecovery.cluster.ClusterDiscovery;
import dev.uncleanrecovery.cluster.ClusterSnapshot;
import dev.uncleanrecovery.cluster.PartitionSelection;
import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.execute.DesignatedElector;
import dev.uncleanrecovery.execute.ExecutionResult;
import dev.uncleanrecovery.execute.PartitionStateReader;
import dev.uncleanrecovery.execute.PlanExecution;
import dev.uncleanrecovery.execute.ReplicaReprobe;
import dev.uncleanrecovery.execute.StockElector;
import dev.uncleanrecovery.plan.Plan;
import dev.uncleanrecovery.probe.PartitionToProbe;
import dev.uncleanrecovery.probe.ProbeFanOut;
import dev.uncleanrecovery.probe.ProbeResult;
import dev.uncleanrecovery.probe.ProbeSettings;
import dev.uncleanrecovery.probe.ReplicaEvidence;
import dev.uncleanrecovery.probe.StockLogInfoSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.apache.kafka.common.TopicPartition;

/** Re-validate → re-probe the designated replicas → elect → verify, for a reviewed plan. */
public final class RecoveryExecution {

    /**
     * @param reprobe       deadline for probing each designated replica once more
     * @param verifyTimeout how long to wait for elected partitions to show their new leader
     */
    public record Options(boolean allowUnprobedLeader, ProbeSettings reprobe, Duration verifyTimeout) {
    }

    private final ClusterDiscovery discovery;

    public RecoveryExecution(ClusterDiscovery discovery) {
        this.discovery = discovery;
    }

    public ExecutionResult execute(Plan plan, String planFile, Options options, Consumer<String> progress) {
        PartitionStateReader reader = partitions -> discovery.describe(new PartitionSelection.Explicit(partitions));
        DesignatedElector elector = new StockElector(discovery.admin(), reader, options.verifyTimeout(), progress);
        return new PlanExecution(reader, reprobe(options.reprobe()), elector, options.allowUnprobedLeader(), progress)
                .run(plan, planFile);
    }

    private ReplicaReprobe reprobe(ProbeSettings settings) {
        return designated -> {
            if (designated.isEmpty()) {
                return Map.of();
            }
            ClusterSnapshot snapshot = discovery.describe(new PartitionSelection.Explicit(
                    designated.keySet().stream().map(TopicPartitionState::topicPartition).collect(java.util.stream.Collectors.toSet())));
            Map<Integer, List<PartitionToProbe>> byBroker = new TreeMap<>();
            designated.forEach((partition, broker) ->
                    byBroker.computeIfAbsent(broker, b -> new ArrayList<>()).add(PartitionToProbe.of(partition)));
            BrokerConnections connections = discovery.connections(snapshot.brokers());
            ProbeResult result = new ProbeFanOut(new StockLogInfoSource(connections), settings, connections::describe)
                    .run(byBroker, p -> { });
            Map<TopicPartition, ReplicaEvidence> answers = new HashMap<>();
            designated.forEach((partition, broker) -> result.evidenceFor(partition.topicPartition()).stream()
                    .filter(e -> e.broker() == broker).findFirst()
                    .ifPresent(e -> answers.put(partition.topicPartition(), e)));
            return answers;
        };
    }
}
