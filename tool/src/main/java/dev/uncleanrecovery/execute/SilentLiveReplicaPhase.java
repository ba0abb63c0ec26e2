// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import dev.uncleanrecovery.cluster.ClusterSnapshot;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;

/**
 * A replica whose broker the controller sees unfenced but that did not answer this host (a network split): once
 * another replica is elected, that broker learns it from the controller and truncates at once, so nothing can copy
 * what it loses first, and how much that is is not known. Such a partition is refused unless --accept-unknown-loss;
 * a down broker's unknown loss is left to the warning, since 'inspect --salvage-beyond' can copy it before it restarts.
 */
final class SilentLiveReplicaPhase {

    private SilentLiveReplicaPhase() {
    }

    static Map<TopicPartition, Verdict> judge(List<Candidate> going, ClusterSnapshot now, boolean acceptUnknownLoss) {
        return Verdict.each(going, c -> {
            List<Integer> silent = c.doomed().unknown().keySet().stream().sorted().filter(broker -> {
                var registered = now.brokersById().get(broker);
                return registered != null && !registered.fenced();
            }).toList();
            if (silent.isEmpty() || acceptUnknownLoss) {
                return new Verdict.Proceed(c);
            }
            String brokers = silent.stream().map(String::valueOf).collect(Collectors.joining(", "));
            return new Verdict.Refused("broker(s) " + brokers + " did not answer this host but the controller sees"
                    + " them unfenced: the election would make them truncate at once, by an amount not known and"
                    + " before anything can copy it; run from a host that reaches them, or pass --accept-unknown-loss");
        });
    }
}
