// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.salvage;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * The record batches of a {@link DoomedRange} as the replica stores them, byte for byte, in offset order: the first
 * holds {@code range.fromOffset()} (a follower truncates whole batches, so it may start before it), the last ends at
 * {@code range.toOffset() - 1}. {@code chunks} are the record sets as read (one per Fetch response or segment file),
 * each a sequence of whole batches; their concatenation is what is salvaged.
 *
 * @param sources how each part was read, in order (e.g. DEBUG below the high watermark, then FUTURE above it)
 */
public record CopiedBatches(DoomedRange range, List<SalvageSource> sources, List<ByteBuffer> chunks) {

    public CopiedBatches {
        if (range == null || sources == null || sources.isEmpty() || chunks == null) {
            throw new IllegalArgumentException("range, at least one source and the chunks are required");
        }
        sources = List.copyOf(sources);
        chunks = List.copyOf(chunks);
    }
}
