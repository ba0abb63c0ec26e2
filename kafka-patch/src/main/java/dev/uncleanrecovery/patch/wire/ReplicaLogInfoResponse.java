// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.patch.wire;

import dev.uncleanrecovery.patch.AgentMain;
import dev.uncleanrecovery.wire.GetReplicaLogInfoResponse;
import java.util.EnumMap;
import java.util.Map;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;

/** A GetReplicaLogInfo response, as Kafka's request channel sends, throttles and counts responses. */
public final class ReplicaLogInfoResponse extends AbstractResponse {

    private final ReplicaLogInfoMessage<GetReplicaLogInfoResponse> data;

    public ReplicaLogInfoResponse(GetReplicaLogInfoResponse body) {
        super(ApiKeys.forId(AgentMain.apiKey()));
        this.data = ReplicaLogInfoMessage.response(body);
    }

    public GetReplicaLogInfoResponse body() {
        return data.body();
    }

    @Override
    public ReplicaLogInfoMessage<GetReplicaLogInfoResponse> data() {
        return data;
    }

    /** Per-partition error counts feed the broker's ErrorsPerSec metrics for this API. */
    @Override
    public Map<Errors, Integer> errorCounts() {
        Map<Errors, Integer> counts = new EnumMap<>(Errors.class);
        for (GetReplicaLogInfoResponse.TopicPartitionLogInfo topic : body().topicPartitionLogInfoList()) {
            for (GetReplicaLogInfoResponse.PartitionLogInfo partition : topic.partitionLogInfo()) {
                counts.merge(partition.error(), 1, Integer::sum);
            }
        }
        return counts;
    }

    @Override
    public int throttleTimeMs() {
        return body().throttleTimeMs();
    }

    @Override
    public void maybeSetThrottleTimeMs(int throttleTimeMs) {
        GetReplicaLogInfoResponse b = body();
        data.body(new GetReplicaLogInfoResponse(throttleTimeMs, b.brokerEpoch(), b.hasMoreData(),
                b.topicPartitionLogInfoList(), b.unknownTaggedFields()));
    }
}
