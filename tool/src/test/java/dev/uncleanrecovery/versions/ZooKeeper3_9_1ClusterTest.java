// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.versions;

import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.MetadataMode;

@KafkaClusterTest(kafkaVersion = "3.9.1", metadataMode = MetadataMode.ZOOKEEPER)
class ZooKeeper3_9_1ClusterTest extends ZooKeeperModeSuite {
}
