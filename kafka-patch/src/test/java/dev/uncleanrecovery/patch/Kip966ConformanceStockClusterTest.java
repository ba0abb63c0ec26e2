// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.patch;

import dev.uncleanrecovery.harness.KafkaClusterTest;

/** KIP-966 conformance on stock Kafka 4.4.0: the reference the patched run must match. */
@KafkaClusterTest(brokers = 3)
class Kip966ConformanceStockClusterTest extends Kip966Conformance {
}
