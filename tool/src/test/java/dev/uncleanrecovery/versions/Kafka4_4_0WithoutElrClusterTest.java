// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.versions;

import dev.uncleanrecovery.harness.KafkaClusterTest;

/** Kafka 4.4.0 without ELR, as every cluster upgraded from 3.x runs until someone enables it. */
@KafkaClusterTest(kafkaVersion = "4.4.0", formatFeatures = "eligible.leader.replicas.version=0")
class Kafka4_4_0WithoutElrClusterTest extends KafkaVersionSuite {
}
