// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import dev.uncleanrecovery.harness.KafkaClusterTest;

/**
 * A failed log directory under a running broker on Kafka 3.7.2, the first release whose KRaft brokers keep running
 * when one of several log directories fails (KIP-858): no ELR, so the replica stays the leaderless ISR.
 */
@KafkaClusterTest(kafkaVersion = "3.7.2", failableLogDirOn = FailedLogDir.ON_THE_FAILED_DISK)
class FailedLogDir3_7_2ClusterTest extends FailedLogDir {
}
