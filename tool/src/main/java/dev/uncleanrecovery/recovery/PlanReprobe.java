// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.recovery;

import dev.uncleanrecovery.cluster.ClusterDiscovery;
import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.connect.BrokerConnections;
import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.evidence.ReplicaEvidence;
import dev.uncleanrecovery.execute.ReplicaReprobe;
import dev.uncleanrecovery.formats.Plan;
import dev.uncleanrecovery.formats.PlannedElection;
import dev.uncleanrecovery.probe.PartitionToProbe;
import dev.uncleanrecovery.probe.ProbeFanOut;
import dev.uncleanrecovery.probe.ProbeMode;
import dev.uncleanrecovery.probe.ProbeResult;
import dev.uncleanrecovery.probe.ProbeSettings;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;

/** Probes the replicas with the plan's probe mode; a designated one with what the plan saw of its log. */
final class PlanReprobe implements ReplicaReprobe {

    private final ClusterDiscovery discovery;
    private final Map<TopicPartition, PlannedElection> planned = new HashMap<>();
    private final ProbeSettings settings;
    private final ProbeMode mode;

    PlanReprobe(ClusterDiscovery discovery, Plan plan, ProbeSettings settings, ProbeMode mode) {
        this.discovery = discovery;
        plan.partitions().forEach(p -> planned.put(p.topicPartition(), p));
        this.settings = settings;
        this.mode = mode;
    }

    @Override
    public Map<TopicPartition, List<ReplicaEvidence>> reprobe(Map<TopicPartitionState, List<Integer>> replicas) {
        if (replicas.isEmpty()) {
            return Map.of();
        }
        Map<Integer, List<PartitionToProbe>> byBroker = new TreeMap<>();
        replicas.forEach((partition, brokers) -> brokers.forEach(broker -> byBroker
                .computeIfAbsent(broker, b -> new ArrayList<>())
                .add(asPlanned(planned.get(partition.topicPartition()), partition, broker))));
        // The broker connections exist by now: those of the plan's own probe ('recover', which re-probes while
        // it re-reads) or those the re-read opened ('execute --plan'). The states come from that plan or re-read,
        // so no second discovery round is needed here.
        BrokerConnections connections = discovery.connections();
        ProbeResult result = new ProbeFanOut(mode.source(connections), settings, connections::describe)
                .run(byBroker, p -> { });
        Map<TopicPartition, List<ReplicaEvidence>> answers = new HashMap<>();
        replicas.forEach((partition, brokers) -> answers.put(partition.topicPartition(),
                result.evidenceFor(partition.topicPartition()).stream()
                        .filter(e -> brokers.contains(e.broker())).toList()));
        return answers;
    }

    /**
     * The designated replica to probe once more, with what the plan saw of its log when it answered: a second look
     * then only has to show the log still holds that much (one request on stock brokers instead of three).
     */
    static PartitionToProbe asPlanned(PlannedElection planned, TopicPartitionState partition, int broker) {
        PartitionToProbe probe = PartitionToProbe.of(partition);
        if (planned == null) {
            return probe;
        }
        return planned.evidence().stream()
                // A log read from disk is no hint: the broker may have come back with more, and the hint reports only
                // that the log holds at least what was seen.
                .filter(e -> e.broker() == broker && e.status() == EvidenceStatus.OK && e.source() != EvidenceSource.DISK
                        && e.lastWrittenLeaderEpoch() >= 0)
                .findFirst()
                .map(e -> probe.seenAs(new PartitionToProbe.AsPlanned(e.lastWrittenLeaderEpoch(), e.logEndOffset())))
                .orElse(probe);
    }
}
