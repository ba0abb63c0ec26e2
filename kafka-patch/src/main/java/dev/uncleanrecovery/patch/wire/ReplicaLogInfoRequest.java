// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.patch.wire;

import dev.uncleanrecovery.patch.AgentMain;
import dev.uncleanrecovery.wire.GetReplicaLogInfoRequest;
import dev.uncleanrecovery.wire.GetReplicaLogInfoResponse.PartitionLogInfo;
import dev.uncleanrecovery.wire.GetReplicaLogInfoResponse.TopicPartitionLogInfo;
import dev.uncleanrecovery.wire.GetReplicaLogInfoResponse;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;

/** A parsed GetReplicaLogInfo request, as Kafka's request channel carries requests. */
public final class ReplicaLogInfoRequest extends AbstractRequest {

    private final ReplicaLogInfoMessage<GetReplicaLogInfoRequest> data;

    public ReplicaLogInfoRequest(GetReplicaLogInfoRequest body, short version) {
        super(ApiKeys.forId(AgentMain.apiKey()), version);
        this.data = ReplicaLogInfoMessage.request(body);
    }

    /** The request as the tool's codec decoded it. */
    public GetReplicaLogInfoRequest body() {
        return data.body();
    }

    @Override
    public ReplicaLogInfoMessage<GetReplicaLogInfoRequest> data() {
        return data;
    }

    /** Every partition asked for (up to the per-request limit) answers the same error. */
    @Override
    public ReplicaLogInfoResponse getErrorResponse(int throttleTimeMs, Throwable e) {
        Errors error = Errors.forException(e);
        List<TopicPartitionLogInfo> topics = new ArrayList<>();
        GetReplicaLogInfoRequest request = body().firstPartitions(dev.uncleanrecovery.wire.GetReplicaLogInfo.MAX_PARTITIONS_PER_REQUEST);
        for (GetReplicaLogInfoRequest.TopicPartitions topic : request.topicPartitions()) {
            List<PartitionLogInfo> partitions = new ArrayList<>();
            for (int partition : topic.partitions()) {
                partitions.add(PartitionLogInfo.failed(partition, error));
            }
            topics.add(new TopicPartitionLogInfo(topic.topicId(), partitions));
        }
        return new ReplicaLogInfoResponse(new GetReplicaLogInfoResponse(throttleTimeMs, -1L,
                request != body(), topics));
    }
}
