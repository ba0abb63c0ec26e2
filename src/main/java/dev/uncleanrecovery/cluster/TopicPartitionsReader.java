// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cluster;

import dev.uncleanrecovery.UserInputException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.message.DescribeTopicPartitionsRequestData;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeTopicPartitionsRequest;
import org.apache.kafka.common.requests.DescribeTopicPartitionsResponse;

/**
 * Reads partition metadata with DescribeTopicPartitions (3.8+), sent directly to a live broker: unlike
 * Admin's TopicPartitionInfo it carries the leader epoch and the OfflineReplicas the tool must compare
 * a plan against. Follows the response cursor so any number of partitions can be read.
 */
final class TopicPartitionsReader {

    /** The broker's own default page size; pages are cheap, one request per 2000 partitions. */
    private static final int PARTITIONS_PER_PAGE = 2000;

    private final BrokerConnections connections;
    private final BrokerRotation rotation;

    TopicPartitionsReader(BrokerConnections connections, BrokerRotation rotation) {
        this.connections = connections;
        this.rotation = rotation;
    }

    /**
     * @param brokers live brokers to ask; the next is tried when one does not answer
     * @throws UnsupportedVersionException when the brokers are older than 3.8
     */
    List<TopicPartitionState> read(Collection<String> topics, List<BrokerState> brokers) {
        return rotation.ask(brokers, "describe topics", (broker, timeout) -> readFrom(broker.id(), topics, timeout));
    }

    private List<TopicPartitionState> readFrom(int broker, Collection<String> topics, Duration timeout) {
        List<TopicPartitionState> result = new ArrayList<>();
        DescribeTopicPartitionsRequestData.Cursor cursor = null;
        do {
            DescribeTopicPartitionsRequestData request = new DescribeTopicPartitionsRequestData()
                    .setResponsePartitionLimit(PARTITIONS_PER_PAGE)
                    .setCursor(cursor)
                    .setTopics(topics.stream().map(t -> new DescribeTopicPartitionsRequestData.TopicRequest().setName(t)).toList());
            DescribeTopicPartitionsResponse response = BrokerRotation.await(connections.send(broker,
                    new DescribeTopicPartitionsRequest.Builder(request), DescribeTopicPartitionsResponse.class, timeout));
            for (DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponseTopic topic : response.data().topics()) {
                checkTopicError(topic);
                for (DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponsePartition p : topic.partitions()) {
                    result.add(toState(topic.name(), topic.topicId(), p));
                }
            }
            DescribeTopicPartitionsResponseData.Cursor next = response.data().nextCursor();
            cursor = next == null ? null : new DescribeTopicPartitionsRequestData.Cursor()
                    .setTopicName(next.topicName()).setPartitionIndex(next.partitionIndex());
        } while (cursor != null);
        return result;
    }

    private static void checkTopicError(DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponseTopic topic) {
        Errors error = Errors.forCode(topic.errorCode());
        switch (error) {
            case NONE -> { }
            case UNKNOWN_TOPIC_OR_PARTITION, UNKNOWN_TOPIC_ID ->
                    throw new UserInputException("unknown topic '" + topic.name() + "' (check the name with kafka-topics.sh --list)");
            case TOPIC_AUTHORIZATION_FAILED ->
                    throw new UserInputException("not authorized to describe topic '" + topic.name()
                            + "': grant DESCRIBE on it to this principal (see README Permissions)");
            default -> throw error.exception("describing topic '" + topic.name() + "' failed: " + error.message());
        }
    }

    private static TopicPartitionState toState(String topic, Uuid topicId,
                                               DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponsePartition p) {
        return new TopicPartitionState(topic, topicId, p.partitionIndex(), p.leaderId(), p.leaderEpoch(),
                p.replicaNodes(), p.isrNodes(), orEmpty(p.eligibleLeaderReplicas()), orEmpty(p.lastKnownElr()),
                p.offlineReplicas());
    }

    private static List<Integer> orEmpty(List<Integer> ids) {
        return ids == null ? List.of() : ids;
    }
}
