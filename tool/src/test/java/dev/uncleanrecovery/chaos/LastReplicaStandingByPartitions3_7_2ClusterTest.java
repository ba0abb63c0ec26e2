// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.chaos;

import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.NodeNetwork;

/** KIP-966's outage by network partitions on Kafka 3.7.2, the oldest release the tool supports: no ELR at all. */
@KafkaClusterTest(kafkaVersion = "3.7.2", brokers = 4, network = NodeNetwork.HOSTS)
class LastReplicaStandingByPartitions3_7_2ClusterTest extends LastReplicaStandingByPartitions {
}
