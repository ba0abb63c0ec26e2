// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.bench;

import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.connect.BrokerConnections;
import dev.uncleanrecovery.connect.BrokerState;
import dev.uncleanrecovery.connect.ClientProperties;
import dev.uncleanrecovery.election.Decision;
import dev.uncleanrecovery.election.ElectionOptions;
import dev.uncleanrecovery.election.LeaderChoice;
import dev.uncleanrecovery.election.Strategy;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.evidence.ReplicaEvidence;
import dev.uncleanrecovery.formats.Plan;
import dev.uncleanrecovery.formats.PlanBuilder;
import dev.uncleanrecovery.formats.PlanFile;
import dev.uncleanrecovery.probe.PartitionToProbe;
import dev.uncleanrecovery.probe.ProbeFanOut;
import dev.uncleanrecovery.probe.ProbeResult;
import dev.uncleanrecovery.probe.ProbeSettings;
import dev.uncleanrecovery.probe.StockLogInfoSource;
import dev.uncleanrecovery.recovery.PlanFlow;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;

/**
 * The tool's side of the simulated benchmark, in its own JVM (so its heap is the tool's alone): the real
 * probe (ProbeFanOut + StockLogInfoSource + BrokerConnections, the tool's default settings) against the
 * simulated brokers listed in a file ("id port" lines). Prints one "RESULT key=value ..." line.
 */
public final class SimulatedProbeDriver {

    private SimulatedProbeDriver() {
    }

    public static void main(String[] args) throws Exception {
        Path brokersFile = Path.of(args[0]);
        int partitions = Integer.parseInt(args[1]);
        List<BrokerState> brokers = new ArrayList<>();
        for (String line : Files.readAllLines(brokersFile)) {
            String[] f = line.trim().split(" ");
            brokers.add(new BrokerState(Integer.parseInt(f[0]), "127.0.0.1", Integer.parseInt(f[1]), null, false));
        }
        SimulatedLayout layout = new SimulatedLayout(brokers.size(), partitions);
        Map<Integer, List<PartitionToProbe>> byBroker = new TreeMap<>();
        for (int t = 0; t < layout.topics(); t++) {
            // One String per topic, as the tool's metadata read gives: every partition of a topic shares its name.
            String topic = SimulatedLayout.topicName(t);
            for (int p = 0; p < layout.partitionsOf(t); p++) {
                PartitionToProbe probe = new PartitionToProbe(new TopicPartition(topic, p),
                        SimulatedLayout.topicId(t), SimulatedLayout.METADATA_EPOCH);
                for (int k = 0; k < SimulatedLayout.REPLICATION; k++) {
                    byBroker.computeIfAbsent(layout.replica(t, p, k), b -> new ArrayList<>()).add(probe);
                }
            }
        }
        String bootstrap = "127.0.0.1:" + brokers.get(0).port();
        ProbeSettings settings = ProbeSettings.defaults().withTimeout(java.time.Duration.ofSeconds(120));
        // The probe's own CPU and collections: on a machine shared with other work, steadier than its wall time.
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long[] gcBefore = collections();
        long cpuBefore = os.getProcessCpuTime();
        long start = System.nanoTime();
        ProbeResult result;
        long openedAt;
        long probedAt;
        try (BrokerConnections connections = BrokerConnections.open(ClientProperties.load(bootstrap, null, 30_000), brokers)) {
            openedAt = System.nanoTime();
            result = new ProbeFanOut(new StockLogInfoSource(connections), settings, connections::describe).run(byBroker, null);
            probedAt = System.nanoTime();
        }
        long elapsedMs = (System.nanoTime() - start) / 1_000_000;
        long probeCpuMs = (os.getProcessCpuTime() - cpuBefore) / 1_000_000;
        long[] gcAfter = collections();
        // Where the wall time goes: opening the connections, the fan-out itself, closing them.
        System.out.printf("PHASES openMs=%d fanOutMs=%d closeMs=%d%n", (openedAt - start) / 1_000_000,
                (probedAt - openedAt) / 1_000_000, (System.nanoTime() - probedAt) / 1_000_000);

        long ok = 0;
        long wrong = 0;
        for (Map.Entry<TopicPartition, List<ReplicaEvidence>> e : result.evidence().entrySet()) {
            int t = SimulatedLayout.topicIndex(e.getKey().topic());
            for (ReplicaEvidence r : e.getValue()) {
                if (r.status() == EvidenceStatus.OK
                        && r.logEndOffset() == SimulatedLayout.logEndOffset(t, e.getKey().partition(), r.broker())
                        && r.lastWrittenLeaderEpoch() == SimulatedLayout.latestEpoch(t, e.getKey().partition(), r.broker())) {
                    ok++;
                } else {
                    wrong++;
                }
            }
        }
        long peakHeap = peakHeap();
        System.gc();
        Runtime rt = Runtime.getRuntime();
        long liveAfterGc = rt.totalMemory() - rt.freeMemory();

        // Then the plan, as 'plan' makes it from the probe's answers: every partition decided, the file written.
        long requests = result.requests().total();
        long listOffsets = result.requests().total("ListOffsets");
        long fetches = result.requests().total("Fetch");
        int evidence = result.evidence().size();
        ManagementFactory.getMemoryPoolMXBeans().forEach(MemoryPoolMXBean::resetPeakUsage);
        Path planFile = Files.createTempDirectory("simulated-plan").resolve("plan.json");
        long planStart = System.nanoTime();
        PlanMade planned = planAndWrite(layout, result, planFile);
        long planMs = (System.nanoTime() - planStart) / 1_000_000;
        result = null; // from here on the driver holds what the tool holds once it has planned: planned.kept()
        long planPeakHeap = peakHeap();
        long planBytes = Files.size(planFile);
        System.gc();
        long liveWithPlan = rt.totalMemory() - rt.freeMemory();
        histogram();
        Files.delete(planFile);
        Files.delete(planFile.getParent());
        System.out.printf("RESULT elapsedMs=%d replicasOk=%d replicasWrong=%d requests=%d listOffsets=%d fetch=%d"
                        + " peakHeapMiB=%d liveHeapWithResultMiB=%d maxHeapMiB=%d evidence=%d"
                        + " planMs=%d planWriteMs=%d planPeakHeapMiB=%d liveHeapWithPlanMiB=%d planMiB=%d elected=%d"
                        + " probeCpuMs=%d probeGcs=%d probeGcMs=%d%n",
                elapsedMs, ok, wrong, requests, listOffsets, fetches, peakHeap >> 20, liveAfterGc >> 20,
                rt.maxMemory() >> 20, evidence, planMs, planned.writeMs(), planPeakHeap >> 20, liveWithPlan >> 20,
                planBytes >> 20, planned.kept().plan().partitions().size(), probeCpuMs, gcAfter[0] - gcBefore[0],
                gcAfter[1] - gcBefore[1]);
    }

    /** Collections so far and the milliseconds they took, over every collector. */
    private static long[] collections() {
        long[] countAndMs = new long[2];
        for (var gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            countAndMs[0] += Math.max(0, gc.getCollectionCount());
            countAndMs[1] += Math.max(0, gc.getCollectionTime());
        }
        return countAndMs;
    }

    private static long peakHeap() {
        long peak = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                peak += pool.getPeakUsage().getUsed();
            }
        }
        return peak;
    }

    /**
     * @param kept    what PlanFlow hands the commands: the plan, and what it keeps beside it
     * @param writeMs from the last decision to the file on disk
     */
    private record PlanMade(PlanFlow.Result kept, long writeMs) {
    }

    /**
     * Every partition decided by the tool's policy from the probe's answers and the plan file written, as
     * PlanFlow does it (without the look-ups of exact truncation points and the consumer groups, which ask
     * the cluster again).
     */
    private static PlanMade planAndWrite(SimulatedLayout layout, ProbeResult probed, Path file) throws Exception {
        PlanBuilder plan = new PlanBuilder(Instant.now(), "simulated-cluster", "kafka-unclean-recovery bench",
                Strategy.DEFAULT);
        for (int t = 0; t < layout.topics(); t++) {
            String topic = SimulatedLayout.topicName(t);
            for (int p = 0; p < layout.partitionsOf(t); p++) {
                List<Integer> replicas = new ArrayList<>(SimulatedLayout.REPLICATION);
                for (int k = 0; k < SimulatedLayout.REPLICATION; k++) {
                    replicas.add(layout.replica(t, p, k));
                }
                TopicPartitionState state = new TopicPartitionState(topic, SimulatedLayout.topicId(t), p,
                        TopicPartitionState.NO_LEADER, SimulatedLayout.METADATA_EPOCH, replicas, replicas.subList(0, 1),
                        List.of(), List.of(), List.of());
                List<ReplicaEvidence> evidence = probed.evidenceFor(state.topicPartition());
                Decision decision = LeaderChoice.decide(state, evidence, Set.of(), ElectionOptions.defaults());
                plan.add(state, evidence, decision);
            }
        }
        long decided = System.nanoTime();
        Plan built = plan.build();
        PlanFile.write(file, built);
        long writeMs = (System.nanoTime() - decided) / 1_000_000;
        return new PlanMade(new PlanFlow.Result(built, null, PlanFlow.Answered.by(probed.evidence()),
                Map.of(), probed.requests(), probed.elapsed()), writeMs);
    }

    /** With -Dbench.histogram=FILE: the live objects by class, with the plan kept, for where the heap goes. */
    private static void histogram() throws Exception {
        String file = System.getProperty("bench.histogram");
        if (file != null) {
            new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                    String.valueOf(ProcessHandle.current().pid()), "GC.class_histogram")
                    .redirectOutput(Path.of(file).toFile()).start().waitFor();
        }
    }
}
