// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.patch.wire;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.uncleanrecovery.patch.AgentMain;
import dev.uncleanrecovery.wire.ElectLeaders;
import dev.uncleanrecovery.wire.GetReplicaLogInfoRequest;
import dev.uncleanrecovery.wire.GetReplicaLogInfoResponse;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.ElectLeadersRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Readable;
import org.apache.kafka.common.protocol.types.CompactArrayOf;
import org.apache.kafka.common.protocol.types.Field;
import org.apache.kafka.common.protocol.types.Schema;
import org.apache.kafka.common.protocol.types.Type;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ElectLeadersRequest;
import org.apache.kafka.common.requests.ElectLeadersResponse;

/**
 * What the bytecode injected into Kafka's protocol classes calls. Each entry point is reached only
 * after a cheap check on the api key (and version), so stock requests pay one static call at most.
 *
 * <p>No static state that touches Kafka: {@code ApiMessageType}'s static initializer calls in
 * here (for the schemas) while {@code ApiKeys} is still being initialized.
 */
public final class ProtocolHooks {

    private static final short ELECT_LEADERS_V2 = 2;

    private ProtocolHooks() {
    }

    public static boolean isZero(int value) {
        return value == 0;
    }

    // ApiMessageType.newRequest() / newResponse() and the constant's schemas (documentation only)

    public static ApiMessage newRequestData() {
        return ReplicaLogInfoMessage.request(null);
    }

    public static ApiMessage newResponseData() {
        return ReplicaLogInfoMessage.response(null);
    }

    public static Schema[] requestSchemas() {
        Schema topic = new Schema(
                new Field("TopicId", Type.UUID, "the topic"),
                new Field("Partitions", new CompactArrayOf(Type.INT32), "the partitions of that topic"),
                Field.TaggedFieldsSection.of());
        return new Schema[] {new Schema(
                new Field("TopicPartitions", new CompactArrayOf(topic), "partitions whose local replica to describe"),
                Field.TaggedFieldsSection.of())};
    }

    public static Schema[] responseSchemas() {
        Schema partition = new Schema(
                new Field("Partition", Type.INT32, ""),
                new Field("LastWrittenLeaderEpoch", Type.INT32, "latest epoch of the leader-epoch cache, -1 if empty"),
                new Field("CurrentLeaderEpoch", Type.INT32, "the partition's leader epoch in this broker's metadata"),
                new Field("LogEndOffset", Type.INT64, ""),
                new Field("ErrorCode", Type.INT16, ""),
                Field.TaggedFieldsSection.of());
        Schema topic = new Schema(
                new Field("TopicId", Type.UUID, ""),
                new Field("PartitionLogInfo", new CompactArrayOf(partition), ""),
                Field.TaggedFieldsSection.of());
        return new Schema[] {new Schema(
                new Field("ThrottleTimeMs", Type.INT32, ""),
                new Field("BrokerEpoch", Type.INT64, ""),
                new Field("HasMoreData", Type.BOOLEAN, ""),
                new Field("TopicPartitionLogInfoList", new CompactArrayOf(topic), ""),
                Field.TaggedFieldsSection.of())};
    }

    // AbstractRequest.doParseRequest

    public static boolean ownsRequest(ApiKeys apiKey, short version) {
        return apiKey.id == AgentMain.apiKey() || (apiKey == ApiKeys.ELECT_LEADERS && version == ElectLeaders.DESIGNATED_LEADERS_VERSION);
    }

    public static AbstractRequest parseRequest(ApiKeys apiKey, short version, Readable readable) {
        ByteBuffer body = readable.readByteBuffer(readable.remaining());
        if (apiKey.id == AgentMain.apiKey()) {
            return new ReplicaLogInfoRequest(GetReplicaLogInfoRequest.parse(body, version), version);
        }
        return electLeadersV3(dev.uncleanrecovery.wire.ElectLeadersRequest.parse(body, version), version);
    }

    /**
     * ElectLeaders v3 as a stock {@link ElectLeadersRequest}: the v2 fields as Kafka's own data, and,
     * when some topic designates leaders, a {@link DesignatedElectLeadersRequestData} carrying them.
     * Without designations it is exactly the v2 request.
     */
    private static ElectLeadersRequest electLeadersV3(dev.uncleanrecovery.wire.ElectLeadersRequest parsed, short version) {
        ElectLeadersRequestData data;
        if (parsed.hasDesignatedLeaders()) {
            Map<String, List<Integer>> designated = new LinkedHashMap<>();
            Map<String, List<Integer>> partitions = new LinkedHashMap<>();
            for (var topic : parsed.topicPartitions()) {
                if (topic.designatedLeaders() != null) {
                    designated.put(topic.topic(), topic.designatedLeaders());
                    partitions.put(topic.topic(), topic.partitions());
                }
            }
            data = new DesignatedElectLeadersRequestData(designated, partitions);
        } else {
            data = new ElectLeadersRequestData();
        }
        data.setElectionType(parsed.electionType());
        data.setTimeoutMs(parsed.timeoutMs());
        if (parsed.topicPartitions() == null) {
            data.setTopicPartitions(null);
        } else {
            // added through Collection: the collection's own add(E) erases to
            // add(ImplicitLinkedHashCollection.Element), a class 4.4 moved to another package, so a call compiled
            // against it would not link on 4.1 to 4.3
            Collection<ElectLeadersRequestData.TopicPartitions> topics = data.topicPartitions();
            for (var topic : parsed.topicPartitions()) {
                ElectLeadersRequestData.TopicPartitions existing = data.topicPartitions().find(topic.topic());
                if (existing != null) {
                    existing.partitions().addAll(topic.partitions());
                } else {
                    topics.add(new ElectLeadersRequestData.TopicPartitions()
                            .setTopic(topic.topic())
                            .setPartitions(new java.util.ArrayList<>(topic.partitions())));
                }
            }
        }
        try {
            return (ElectLeadersRequest) ElectLeadersRequestConstructor.HANDLE.invoke(data, version);
        } catch (Throwable e) {
            throw new IllegalStateException("cannot build an ElectLeaders v3 request", e);
        }
    }

    /** ElectLeadersRequest's constructor is private; v3 builds the same request object around our data. */
    private static final class ElectLeadersRequestConstructor {

        static final MethodHandle HANDLE;

        static {
            try {
                HANDLE = MethodHandles.privateLookupIn(ElectLeadersRequest.class, MethodHandles.lookup())
                        .findConstructor(ElectLeadersRequest.class,
                                MethodType.methodType(void.class, ElectLeadersRequestData.class, short.class));
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }
    }

    // AbstractResponse.parseResponse / toSend / serializeWithHeader

    public static boolean ownsResponse(ApiKeys apiKey, short version) {
        return ownsRequest(apiKey, version);
    }

    public static AbstractResponse parseResponse(ApiKeys apiKey, Readable readable, short version) {
        if (apiKey.id == AgentMain.apiKey()) {
            ByteBuffer body = readable.readByteBuffer(readable.remaining());
            return new ReplicaLogInfoResponse(GetReplicaLogInfoResponse.parse(body, version));
        }
        // v3 changed only the request: the response bytes are v2's.
        return ElectLeadersResponse.parse(readable, ELECT_LEADERS_V2);
    }

    public static short responseBodyVersion(AbstractResponse response, short version) {
        if (version == ElectLeaders.DESIGNATED_LEADERS_VERSION && response instanceof ElectLeadersResponse) {
            return ELECT_LEADERS_V2;
        }
        return version;
    }

    // RequestConvertToJson.request / response (request log)

    public static boolean isReplicaLogInfo(Object message) {
        return message instanceof ReplicaLogInfoRequest || message instanceof ReplicaLogInfoResponse;
    }

    public static JsonNode requestJson(AbstractRequest request) {
        ObjectNode node = JsonNodeFactory.instance.objectNode();
        ArrayNode topics = node.putArray("topicPartitions");
        for (GetReplicaLogInfoRequest.TopicPartitions topic : ((ReplicaLogInfoRequest) request).body().topicPartitions()) {
            ObjectNode entry = topics.addObject();
            entry.put("topicId", topic.topicId().toString());
            ArrayNode partitions = entry.putArray("partitions");
            topic.partitions().forEach(partitions::add);
        }
        return node;
    }

    public static JsonNode responseJson(AbstractResponse response) {
        GetReplicaLogInfoResponse body = ((ReplicaLogInfoResponse) response).body();
        ObjectNode node = JsonNodeFactory.instance.objectNode();
        node.put("throttleTimeMs", body.throttleTimeMs());
        node.put("brokerEpoch", body.brokerEpoch());
        node.put("hasMoreData", body.hasMoreData());
        ArrayNode topics = node.putArray("topicPartitionLogInfoList");
        for (GetReplicaLogInfoResponse.TopicPartitionLogInfo topic : body.topicPartitionLogInfoList()) {
            ObjectNode entry = topics.addObject();
            entry.put("topicId", topic.topicId().toString());
            ArrayNode partitions = entry.putArray("partitionLogInfo");
            for (GetReplicaLogInfoResponse.PartitionLogInfo partition : topic.partitionLogInfo()) {
                partitions.addObject()
                        .put("partition", partition.partition())
                        .put("lastWrittenLeaderEpoch", partition.lastWrittenLeaderEpoch())
                        .put("currentLeaderEpoch", partition.currentLeaderEpoch())
                        .put("logEndOffset", partition.logEndOffset())
                        .put("errorCode", partition.errorCode());
            }
        }
        return node;
    }
}
