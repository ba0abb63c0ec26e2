// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.chaos;

import dev.uncleanrecovery.logdir.ReplicaDisks;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.TopicPartition;

/**
 * Which replicas held each acknowledged write when the outage had formed, read from every broker's disk before any
 * recovery ({@link ReplicaDisks}: the tool's log reader, checked against Kafka's own log loading). A write is held by
 * a replica when that replica's log has the write's value at the write's offset.
 */
record Oracle(List<Workload.AckedWrite> acked, Map<Integer, Map<TopicPartition, Map<Long, String>>> replicas,
              int deadBroker) {

    static Oracle read(Path snapshot, List<Integer> brokers, int deadBroker, Path scratch,
                       List<Workload.AckedWrite> acked) throws Exception {
        Map<Integer, Map<TopicPartition, Map<Long, String>>> replicas = new HashMap<>();
        try (ReplicaDisks disks = ReplicaDisks.open()) {
            for (int broker : brokers) {
                Path logDir = snapshot.resolve(Integer.toString(broker));
                Path brokerScratch = Files.createDirectories(scratch.resolve(Integer.toString(broker)));
                Map<TopicPartition, Map<Long, String>> held = new HashMap<>();
                for (ReplicaDisks.ReplicaLog log : disks.read(logDir, ChaosTrial.TOPICS, brokerScratch)) {
                    held.put(log.partition(), log.values());
                }
                replicas.put(broker, held);
            }
        } finally {
            FaultSchedule.deleteRecursively(scratch);
        }
        return new Oracle(List.copyOf(acked), replicas, deadBroker);
    }

    /** The broker's replica of the partition, offset to value; null when it holds none. */
    Map<Long, String> replica(int broker, TopicPartition tp) {
        return replicas.getOrDefault(broker, Map.of()).get(tp);
    }

    /** The brokers whose replica holds the write. */
    Set<Integer> holders(Workload.AckedWrite write) {
        Set<Integer> holders = new TreeSet<>();
        replicas.forEach((broker, logs) -> {
            Map<Long, String> log = logs.get(write.partition());
            if (log != null && write.value().equals(log.get(write.offset()))) {
                holders.add(broker);
            }
        });
        return holders;
    }

    boolean heldByLiveReplica(Workload.AckedWrite write) {
        return holders(write).stream().anyMatch(b -> b != deadBroker);
    }

    String describe() {
        long live = acked.stream().filter(this::heldByLiveReplica).count();
        long deadOnly = acked.stream().filter(w -> holders(w).equals(Set.of(deadBroker))).count();
        long none = acked.stream().filter(w -> holders(w).isEmpty()).count();
        return acked.size() + " acknowledged writes: " + live + " on a live replica, " + deadOnly + " only on broker "
                + deadBroker + " (down), " + none + " on no replica";
    }
}
