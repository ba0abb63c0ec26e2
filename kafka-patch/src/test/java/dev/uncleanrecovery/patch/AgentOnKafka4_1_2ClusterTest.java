// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.patch;

import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.NodeRole;

/** The agent's RPCs on Kafka 4.1.2, whose KafkaApis.handle takes Scala's RequestChannel$Request. */
@KafkaClusterTest(kafkaVersion = "4.1.2", brokers = 3, patchAgentOn = {NodeRole.BROKER, NodeRole.CONTROLLER})
class AgentOnKafka4_1_2ClusterTest extends AgentOnBrokersAndControllerClusterTest {
}
