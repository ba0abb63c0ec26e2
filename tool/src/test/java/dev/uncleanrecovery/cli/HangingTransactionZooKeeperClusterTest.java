// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.MetadataMode;

/** The hanging transactions' story on a ZooKeeper-mode cluster: the transaction coordinator is the same there. */
@KafkaClusterTest(kafkaVersion = "3.9.1", metadataMode = MetadataMode.ZOOKEEPER,
        brokerProperties = "transaction.abort.timed.out.transaction.cleanup.interval.ms=500")
class HangingTransactionZooKeeperClusterTest extends HangingTransactionClusterTest {
}
