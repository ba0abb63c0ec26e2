// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

/**
 * A record batch of a log on disk as its header gives it: its offsets and its stored CRC (which covers everything
 * from the attributes on: producer id, sequence, timestamps, records; not the offset or the leader epoch).
 */
public record LoggedBatch(long baseOffset, long lastOffset, long crc) {
}
