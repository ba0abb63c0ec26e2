// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.patch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.NodeRole;
import dev.uncleanrecovery.wire.GetReplicaLogInfo;
import dev.uncleanrecovery.wire.GetReplicaLogInfoRequest;
import java.util.List;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;

/**
 * The agent on the broker but not on the controller: GetReplicaLogInfo (answered by the broker) is
 * there, ElectLeaders v3 is not, because a broker advertises a forwarded API only up to what the
 * controller speaks — once it knows: Kafka's broker learns the controller's versions when its
 * forwarding channel first connects, and until then advertises its own.
 */
@KafkaClusterTest(brokers = 1, patchAgentOn = NodeRole.BROKER)
class AgentOnBrokersOnlyClusterTest {

    @Test
    void a_stock_controller_keeps_elect_leaders_at_v2_while_the_broker_answers_get_replica_log_info(LocalKafkaCluster cluster)
            throws Exception {
        // given: the broker has forwarded a request to the controller (CreateTopics is forwarded)
        try (Admin admin = cluster.createAdmin()) {
            admin.createTopics(List.of(new NewTopic("forwarded", 1, (short) 1))).all().get();
        }

        short electLeadersMax = -1;
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (System.nanoTime() < deadline) {
            try (PatchedBrokers brokers = PatchedBrokers.open(cluster, List.of(1))) { // fresh ApiVersions each time
                ApiVersionsResponseData versions = brokers.apiVersions(1);
                assertThat(PatchedBrokers.range(versions, GetReplicaLogInfo.apiKey())).hasValueSatisfying(range ->
                        assertThat(range.maxVersion()).isEqualTo(GetReplicaLogInfo.VERSION));
                electLeadersMax = PatchedBrokers.range(versions, ApiKeys.ELECT_LEADERS.id).orElseThrow().maxVersion();
                if (electLeadersMax == 2) {
                    assertThat(brokers.getReplicaLogInfo(1, new GetReplicaLogInfoRequest(List.of())).brokerEpoch()).isPositive();
                    return;
                }
            }
            Thread.sleep(500);
        }
        assertThat(electLeadersMax).as("ElectLeaders max version advertised by a patched broker with a stock controller").isEqualTo((short) 2);
    }
}
