// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.evidence;

import java.util.ArrayList;
import java.util.List;

/**
 * A record batch as its header gives it: where it lies, and the CRC of everything in it but its offset and leader
 * epoch (producer id, sequence, timestamps, records). Two replicas holding batches with equal heads hold the same
 * records at the same offsets, whatever epoch each was written in.
 */
public record BatchHead(long baseOffset, long lastOffset, long crc) {

    /**
     * The batches of {@code heads} (by offset, perhaps with gaps) from the one starting at {@code offset}, as far as
     * they follow each other without a gap; empty when none starts there.
     */
    public static List<BatchHead> runFrom(List<BatchHead> heads, long offset) {
        List<BatchHead> run = new ArrayList<>();
        long next = offset;
        for (BatchHead head : heads) {
            if (head.lastOffset() < next) {
                continue;
            }
            if (head.baseOffset() != next) {
                break;
            }
            run.add(head);
            next = head.lastOffset() + 1;
        }
        return run;
    }
}
