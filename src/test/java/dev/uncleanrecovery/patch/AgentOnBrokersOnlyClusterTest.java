// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.patch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.cluster.BrokerApiVersions;
import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.NodeRole;
import dev.uncleanrecovery.protocol.GetReplicaLogInfo;
import java.util.List;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;

/**
 * The agent on the broker but not on the controller: GetReplicaLogInfo (answered by the broker) is
 * there, ElectLeaders v3 is not, because a broker advertises a forwarded API only up to what the
 * controller speaks.
 */
@KafkaClusterTest(brokers = 1, patchAgentOn = NodeRole.BROKER)
class AgentOnBrokersOnlyClusterTest {

    @Test
    void a_stock_controller_keeps_elect_leaders_at_v2_while_the_broker_answers_get_replica_log_info(LocalKafkaCluster cluster) {
        try (PatchedBrokers brokers = PatchedBrokers.open(cluster, List.of(1))) {
            BrokerApiVersions versions = brokers.connections().apiVersions(1).join();

            assertThat(versions.advertises(GetReplicaLogInfo.apiKey(), GetReplicaLogInfo.VERSION)).isTrue();
            assertThat(versions.range(ApiKeys.ELECT_LEADERS.id)).hasValueSatisfying(range ->
                    assertThat(range.maxVersion()).isEqualTo((short) 2));
            assertThat(brokers.getReplicaLogInfo(1, new dev.uncleanrecovery.protocol.GetReplicaLogInfoRequest(List.of()))
                    .brokerEpoch()).isPositive();
        }
    }
}
