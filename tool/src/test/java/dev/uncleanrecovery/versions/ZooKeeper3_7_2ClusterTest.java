// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.versions;

import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.MetadataMode;

@KafkaClusterTest(kafkaVersion = "3.7.2", metadataMode = MetadataMode.ZOOKEEPER)
class ZooKeeper3_7_2ClusterTest extends ZooKeeperModeSuite {
}
