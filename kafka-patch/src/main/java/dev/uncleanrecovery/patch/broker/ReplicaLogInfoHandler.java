// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.patch.broker;

import dev.uncleanrecovery.patch.AgentMain;
import dev.uncleanrecovery.patch.wire.ReplicaLogInfoRequest;
import dev.uncleanrecovery.patch.wire.ReplicaLogInfoResponse;
import dev.uncleanrecovery.wire.GetReplicaLogInfo;
import dev.uncleanrecovery.wire.GetReplicaLogInfoRequest;
import dev.uncleanrecovery.wire.GetReplicaLogInfoResponse.PartitionLogInfo;
import dev.uncleanrecovery.wire.GetReplicaLogInfoResponse.TopicPartitionLogInfo;
import dev.uncleanrecovery.wire.GetReplicaLogInfoResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import kafka.cluster.Partition;
import kafka.server.KafkaApis;
import kafka.server.ReplicaManager;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.RequestContext;
import org.apache.kafka.common.resource.Resource;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.metadata.LeaderAndIsr;
import org.apache.kafka.metadata.MetadataCache;
import org.apache.kafka.network.Request;
import org.apache.kafka.server.AuthHelper;
import org.apache.kafka.server.HostedPartition;
import org.apache.kafka.storage.internals.log.UnifiedLog;

/**
 * GetReplicaLogInfo on a broker: what this broker's replica of each partition holds, whether it
 * leads, follows, or the partition has no leader at all. Called first by {@code KafkaApis.handle};
 * every other request returns straight to the stock dispatch.
 */
public final class ReplicaLogInfoHandler {

    private ReplicaLogInfoHandler() {
    }

    /** @return true if the request was GetReplicaLogInfo and has been answered */
    public static boolean handle(KafkaApis apis, Request request) {
        if (request.header().data().requestApiKey() != AgentMain.apiKey()) {
            return false;
        }
        try {
            GetReplicaLogInfoRequest asked = ((ReplicaLogInfoRequest) request.body()).body();
            apis.requestHelper().sendMaybeThrottle(request, new ReplicaLogInfoResponse(answer(apis, request.context(), asked)));
        } catch (Throwable e) {
            // as KafkaApis.handle does: an error response built by getErrorResponse
            apis.requestHelper().handleError(request, e);
        } finally {
            // what the skipped finally block of KafkaApis.handle would have recorded
            if (request.apiLocalCompleteTimeNanos() < 0) {
                request.apiLocalCompleteTimeNanos(System.nanoTime());
            }
        }
        return true;
    }

    static GetReplicaLogInfoResponse answer(KafkaApis apis, RequestContext context, GetReplicaLogInfoRequest asked) {
        ReplicaManager replicas = apis.replicaManager();
        MetadataCache metadata = apis.metadataCache();
        AuthHelper auth = apis.authHelper();
        GetReplicaLogInfoRequest answered = asked.firstPartitions(GetReplicaLogInfo.MAX_PARTITIONS_PER_REQUEST);
        // KIP-966 meant this for the controller (CLUSTER_ACTION); operators with DESCRIBE on a topic may ask too.
        boolean clusterAction = auth.authorize(context, AclOperation.CLUSTER_ACTION, ResourceType.CLUSTER, Resource.CLUSTER_NAME);
        List<TopicPartitionLogInfo> topics = new ArrayList<>();
        for (GetReplicaLogInfoRequest.TopicPartitions topic : answered.topicPartitions()) {
            Optional<String> name = metadata.getTopicName(topic.topicId());
            boolean authorized = clusterAction
                    || (name.isPresent() && auth.authorize(context, AclOperation.DESCRIBE, ResourceType.TOPIC, name.get()));
            List<PartitionLogInfo> partitions = new ArrayList<>();
            for (int partition : topic.partitions()) {
                if (name.isEmpty()) {
                    partitions.add(PartitionLogInfo.failed(partition, Errors.UNKNOWN_TOPIC_ID));
                } else if (!authorized) {
                    partitions.add(PartitionLogInfo.failed(partition, Errors.TOPIC_AUTHORIZATION_FAILED));
                } else {
                    partitions.add(describe(replicas, metadata, new TopicPartition(name.get(), partition)));
                }
            }
            topics.add(new TopicPartitionLogInfo(topic.topicId(), partitions));
        }
        long brokerEpoch = ((Number) replicas.brokerEpochSupplier().apply()).longValue();
        return new GetReplicaLogInfoResponse(0, brokerEpoch, answered != asked, topics);
    }

    private static PartitionLogInfo describe(ReplicaManager replicas, MetadataCache metadata, TopicPartition tp) {
        int index = tp.partition();
        if (!metadata.contains(tp)) {
            return PartitionLogInfo.failed(index, Errors.UNKNOWN_TOPIC_OR_PARTITION);
        }
        HostedPartition<Partition> hosted = replicas.getPartition(tp);
        if (hosted instanceof HostedPartition.Offline<Partition>) {
            return PartitionLogInfo.failed(index, Errors.KAFKA_STORAGE_ERROR);
        }
        if (!(hosted instanceof HostedPartition.Online<Partition> online)) {
            return PartitionLogInfo.failed(index, Errors.NOT_LEADER_OR_FOLLOWER);
        }
        Partition partition = online.partition();
        scala.Option<UnifiedLog> log = partition.log();
        if (log.isEmpty()) {
            return PartitionLogInfo.failed(index, Errors.NOT_LEADER_OR_FOLLOWER);
        }
        UnifiedLog unifiedLog = log.get();
        int currentLeaderEpoch = metadata.getLeaderAndIsr(tp.topic(), index)
                .map(LeaderAndIsr::leaderEpoch)
                .orElse(partition.getLeaderEpoch());
        return new PartitionLogInfo(index, unifiedLog.latestEpoch().orElse(-1), currentLeaderEpoch,
                unifiedLog.logEndOffset(), Errors.NONE.code());
    }
}
