// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.recovery;

import dev.uncleanrecovery.evidence.ReplicaEvidence;
import dev.uncleanrecovery.execute.CutLookUp;
import dev.uncleanrecovery.probe.BrokerLookUps;
import dev.uncleanrecovery.probe.ProbeSettings;
import dev.uncleanrecovery.probe.TruncationPoints;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.TopicPartition;

/**
 * The look-ups of followers whose last written epoch differs from the leader's, asked before the salvage: where they
 * cut says what to copy. Kept for after the election too: a follower cuts using its own epoch cache, and once it
 * has truncated and caught up that cache no longer shows where it cut. Usually no partition needs them.
 */
final class BrokerCutLookUp implements CutLookUp {

    private final BrokerLookUps brokers;
    private final ProbeSettings settings;
    private final Map<TopicPartition, TruncationPoints> lookUps = new ConcurrentHashMap<>();

    /** @param brokers sends every partition's look-ups to a broker together, a Fetch for many partitions */
    BrokerCutLookUp(BrokerLookUps brokers, ProbeSettings settings) {
        this.brokers = brokers;
        this.settings = settings;
    }

    @Override
    public Map<TopicPartition, Map<Integer, Long>> cuts(Map<TopicPartition, Ask> asks) {
        Map<TopicPartition, Map<Integer, Long>> cuts = new ConcurrentHashMap<>();
        asks.forEach((tp, ask) -> {
            TruncationPoints points = TruncationPoints.over(brokers, ask.partition());
            lookUps.put(tp, points);
            for (ReplicaEvidence follower : ask.followers()) {
                points.lossFrom(ask.leader(), follower).thenAccept(cut -> cut.ifPresent(offset ->
                        cuts.computeIfAbsent(tp, k -> new ConcurrentHashMap<>()).put(follower.broker(), offset)));
            }
        });
        // what was not answered stays a bound, and the partition is refused its salvage
        brokers.settle(settings.timeout());
        Map<TopicPartition, Map<Integer, Long>> answered = new HashMap<>();
        cuts.forEach((tp, byFollower) -> answered.put(tp, Map.copyOf(byFollower)));
        return answered;
    }

    /**
     * Per partition asked about, its look-ups: the answers of its brokers from before the election; asked again
     * through the same {@link BrokerLookUps}.
     */
    Map<TopicPartition, TruncationPoints> lookUps() {
        return lookUps;
    }
}
