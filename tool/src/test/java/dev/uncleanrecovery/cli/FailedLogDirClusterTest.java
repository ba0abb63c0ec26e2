// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import dev.uncleanrecovery.harness.KafkaClusterTest;

/** A failed log directory under a running broker on Kafka 4.4.0, with ELR: its replica was the last ELR member. */
@KafkaClusterTest(failableLogDirOn = FailedLogDir.ON_THE_FAILED_DISK)
class FailedLogDirClusterTest extends FailedLogDir {
}
