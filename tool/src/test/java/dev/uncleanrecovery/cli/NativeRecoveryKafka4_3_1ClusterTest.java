// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.NodeRole;

/** The native path on Kafka 4.3.1 with the kafka-patch agent on every node: plan and execute as on 4.4. */
@KafkaClusterTest(kafkaVersion = "4.3.1", brokers = 3, patchAgentOn = {NodeRole.BROKER, NodeRole.CONTROLLER})
class NativeRecoveryKafka4_3_1ClusterTest extends NativeRecoveryClusterTest {
}
