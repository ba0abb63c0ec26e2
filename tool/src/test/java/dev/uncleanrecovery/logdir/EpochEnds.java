// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

import dev.uncleanrecovery.connect.BrokerConnections;
import dev.uncleanrecovery.connect.BrokerState;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData.OffsetForLeaderPartition;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData.OffsetForLeaderTopic;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData.OffsetForLeaderTopicCollection;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData.EpochEndOffset;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochRequest;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochResponse;

/**
 * A restarted broker's answer to inspect's predicted last written epochs: OffsetsForLeaderEpoch for that epoch returns
 * (that epoch, the log end offset) exactly when it is the latest epoch holding data. The broker, leader again, has
 * already started a new epoch at its log end offset, which holds nothing: asking for the predicted epoch, not for the
 * latest, keeps that new epoch out of the comparison.
 */
final class EpochEnds {

    private EpochEnds() {
    }

    /** The end of each partition's predicted epoch as {@code broker} serves it; partitions predicted without one are left out. */
    static Map<TopicPartition, EpochEndOffset> askedOf(LocalKafkaCluster cluster, int broker,
                                                       List<PartitionLogSummary> predicted) throws Exception {
        OffsetForLeaderTopicCollection topics = new OffsetForLeaderTopicCollection();
        for (var byTopic : predicted.stream().filter(p -> p.lastWrittenLeaderEpoch() >= 0)
                .collect(Collectors.groupingBy(PartitionLogSummary::topic)).entrySet()) {
            OffsetForLeaderTopic topic = new OffsetForLeaderTopic().setTopic(byTopic.getKey());
            for (PartitionLogSummary p : byTopic.getValue()) {
                topic.partitions().add(new OffsetForLeaderPartition().setPartition(p.partition())
                        .setCurrentLeaderEpoch(-1).setLeaderEpoch(p.lastWrittenLeaderEpoch()));
            }
            topics.add(topic);
        }
        Properties client = new Properties();
        client.putAll(cluster.clientProperties());
        String[] hostPort = cluster.brokerAddress(broker).split(":");
        try (BrokerConnections connections = BrokerConnections.open(client,
                List.of(new BrokerState(broker, hostPort[0], Integer.parseInt(hostPort[1]), null, false)))) {
            OffsetsForLeaderEpochResponse response = connections.send(broker,
                    OffsetsForLeaderEpochRequest.Builder.forConsumer(topics), OffsetsForLeaderEpochResponse.class,
                    Duration.ofSeconds(30)).get(60, TimeUnit.SECONDS);
            return response.data().topics().stream().flatMap(t -> t.partitions().stream()
                            .map(e -> Map.entry(new TopicPartition(t.topic(), e.partition()), e)))
                    .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
        }
    }
}
