// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

import java.nio.file.Path;

/** What {@link DiskFaults#truncateReplicaLog} did to one segment file on disk. */
public record SegmentTruncation(Path segment, long lengthBefore, long lengthAfter) {

    public long bytesRemoved() {
        return lengthBefore - lengthAfter;
    }
}
