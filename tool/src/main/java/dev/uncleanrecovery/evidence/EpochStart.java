// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.evidence;

/** One entry of a replica's leader epoch cache: the first offset written in {@code epoch}. */
public record EpochStart(int epoch, long startOffset) {
}
