// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

/** One line of a leader-epoch-checkpoint: the first offset written in {@code epoch}. */
public record EpochEntry(int epoch, long startOffset) {
}
