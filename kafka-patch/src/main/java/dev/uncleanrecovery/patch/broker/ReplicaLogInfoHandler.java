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
import org.apache.kafka.common.internals.Plugin;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.RequestContext;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.Resource;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.metadata.LeaderAndIsr;
import org.apache.kafka.metadata.MetadataCache;
import org.apache.kafka.server.authorizer.Action;
import org.apache.kafka.server.authorizer.AuthorizationResult;
import org.apache.kafka.server.authorizer.Authorizer;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import scala.util.Either;
import scala.util.Left;

/**
 * GetReplicaLogInfo on a broker: what this broker's replica of each partition holds, whether it
 * leads, follows, or the partition has no leader at all. Called first by {@code KafkaApis.handle};
 * every other request returns straight to the stock dispatch. Written against what 4.1 to 4.4 share:
 * the request object itself, which differs, is reached through {@link KafkaRequestCalls}.
 */
public final class ReplicaLogInfoHandler {

    private ReplicaLogInfoHandler() {
    }

    /**
     * @param request the request object of this Kafka line, whose {@code context} is {@code context}
     * @return true if the request was GetReplicaLogInfo and has been answered
     */
    public static boolean handle(KafkaApis apis, Object request, RequestContext context) throws Throwable {
        if (context.header.data().requestApiKey() != AgentMain.apiKey()) {
            return false;
        }
        KafkaRequestCalls calls = KafkaRequestCalls.ofThisKafka();
        try {
            GetReplicaLogInfoRequest asked = ((ReplicaLogInfoRequest) calls.body(request)).body();
            ReplicaLogInfoResponse response = new ReplicaLogInfoResponse(answer(apis, context, asked));
            calls.sendMaybeThrottle(apis.requestHelper(), request, response);
        } catch (Throwable e) {
            // as KafkaApis.handle does: an error response built by getErrorResponse
            calls.handleError(apis.requestHelper(), request, e);
        } finally {
            // what the skipped finally block of KafkaApis.handle would have recorded
            calls.markLocalComplete(request);
        }
        return true;
    }

    static GetReplicaLogInfoResponse answer(KafkaApis apis, RequestContext context, GetReplicaLogInfoRequest asked) {
        ReplicaManager replicas = apis.replicaManager();
        MetadataCache metadata = apis.metadataCache();
        GetReplicaLogInfoRequest answered = asked.firstPartitions(GetReplicaLogInfo.MAX_PARTITIONS_PER_REQUEST);
        // KIP-966 meant this for the controller (CLUSTER_ACTION); operators with DESCRIBE on a topic may ask too.
        boolean clusterAction = authorized(apis, context, AclOperation.CLUSTER_ACTION, ResourceType.CLUSTER,
                Resource.CLUSTER_NAME);
        List<TopicPartitionLogInfo> topics = new ArrayList<>();
        for (GetReplicaLogInfoRequest.TopicPartitions topic : answered.topicPartitions()) {
            Optional<String> name = metadata.getTopicName(topic.topicId());
            boolean authorized = clusterAction
                    || (name.isPresent()
                            && authorized(apis, context, AclOperation.DESCRIBE, ResourceType.TOPIC, name.get()));
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

    /**
     * What Kafka's AuthHelper.authorize asks the authorizer (allowed when there is none), through the authorizer
     * itself: AuthHelper moved from {@code kafka.server} to {@code org.apache.kafka.server} in 4.4.
     */
    private static boolean authorized(KafkaApis apis, RequestContext context, AclOperation operation, ResourceType type,
                                      String name) {
        scala.Option<Plugin<Authorizer>> authorizer = apis.authorizerPlugin();
        if (authorizer.isEmpty()) {
            return true;
        }
        Action action = new Action(operation, new ResourcePattern(type, name, PatternType.LITERAL), 1, true, true);
        return authorizer.get().get().authorize(context, List.of(action)).get(0) == AuthorizationResult.ALLOWED;
    }

    private static PartitionLogInfo describe(ReplicaManager replicas, MetadataCache metadata, TopicPartition tp) {
        int index = tp.partition();
        if (!metadata.contains(tp)) {
            return PartitionLogInfo.failed(index, Errors.UNKNOWN_TOPIC_OR_PARTITION);
        }
        // KAFKA_STORAGE_ERROR for a replica on an offline log directory, NOT_LEADER_OR_FOLLOWER for none here
        Either<Errors, Partition> hosted = replicas.getPartitionOrError(tp);
        if (hosted instanceof Left<Errors, Partition> error) {
            return PartitionLogInfo.failed(index, error.value());
        }
        Partition partition = hosted.toOption().get();
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
