// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.versions;

import dev.uncleanrecovery.harness.KafkaClusterTest;

@KafkaClusterTest(kafkaVersion = "4.3.1")
class Kafka4_3_1ClusterTest extends KafkaVersionSuite {
}
