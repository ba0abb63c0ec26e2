// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.patch;

import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.NodeRole;

/** KIP-966 conformance with the companion agent on every broker and the controller. */
@KafkaClusterTest(brokers = 3, patchAgentOn = {NodeRole.BROKER, NodeRole.CONTROLLER})
class Kip966ConformancePatchedClusterTest extends Kip966Conformance {
}
