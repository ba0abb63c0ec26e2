// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.probe;

import dev.uncleanrecovery.cluster.TopicPartitionState;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

/**
 * One partition to ask one broker about.
 *
 * @param topicId             Fetch v13+ names topics by id; {@link Uuid#ZERO_UUID} when unknown
 * @param metadataLeaderEpoch the partition's leader epoch in the controller's metadata (-1 unknown):
 *                            the ceiling of the epoch search and the yardstick for stale answers
 * @param asPlanned           what a plan saw of this replica's log, for a second look that only has to show the
 *                            log still holds that much; null for a probe that finds out what the log holds
 */
public record PartitionToProbe(TopicPartition topicPartition, Uuid topicId, int metadataLeaderEpoch,
                               AsPlanned asPlanned) {

    /** The replica's latest leader epoch and log end offset in the plan. */
    public record AsPlanned(int lastWrittenLeaderEpoch, long logEndOffset) {
    }

    public PartitionToProbe {
        topicId = topicId == null ? Uuid.ZERO_UUID : topicId;
    }

    public PartitionToProbe(TopicPartition topicPartition, Uuid topicId, int metadataLeaderEpoch) {
        this(topicPartition, topicId, metadataLeaderEpoch, null);
    }

    /** This partition for a second look at a replica the plan saw at {@code asPlanned}. */
    public PartitionToProbe seenAs(AsPlanned asPlanned) {
        return new PartitionToProbe(topicPartition, topicId, metadataLeaderEpoch, asPlanned);
    }

    /** This partition for a probe that finds out what the log holds. */
    PartitionToProbe withoutPlan() {
        return asPlanned == null ? this : new PartitionToProbe(topicPartition, topicId, metadataLeaderEpoch);
    }

    public static PartitionToProbe of(TopicPartitionState state) {
        return new PartitionToProbe(state.topicPartition(), state.topicId(), state.leaderEpoch());
    }

    /** Every replica of every given partition, grouped by the broker that holds it (brokers in id order). */
    public static Map<Integer, List<PartitionToProbe>> everyReplica(Collection<TopicPartitionState> partitions) {
        Map<Integer, List<PartitionToProbe>> byBroker = new TreeMap<>();
        for (TopicPartitionState state : partitions) {
            PartitionToProbe probe = of(state);
            for (int broker : state.replicas()) {
                byBroker.computeIfAbsent(broker, b -> new ArrayList<>()).add(probe);
            }
        }
        return byBroker;
    }
}
