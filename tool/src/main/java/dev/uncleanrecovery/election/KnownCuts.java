// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.election;

import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * Where replicas of one partition start to lose records under a given leader, as their brokers answered the
 * follower's look-ups and showed their batches there (see {@code probe.TruncationPoints#lossFrom}): offset by
 * follower, by leader. A pair without an answer keeps the estimate
 * from epochs and log ends.
 */
public record KnownCuts(Map<Integer, Map<Integer, Long>> byLeader) {

    public static final KnownCuts NONE = new KnownCuts(Map.of());

    public KnownCuts {
        Map<Integer, Map<Integer, Long>> copy = new HashMap<>();
        byLeader.forEach((leader, cuts) -> copy.put(leader, Map.copyOf(cuts)));
        byLeader = Map.copyOf(copy);
    }

    /** The cuts of the followers of {@code leader} alone. */
    public static KnownCuts under(int leader, Map<Integer, Long> byFollower) {
        return new KnownCuts(Map.of(leader, byFollower));
    }

    public OptionalLong of(int leader, int follower) {
        Long cut = byLeader.getOrDefault(leader, Map.of()).get(follower);
        return cut == null ? OptionalLong.empty() : OptionalLong.of(cut);
    }
}
