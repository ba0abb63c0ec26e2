// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.salvage;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * Record batches of a {@link DoomedRange} held in memory, as a test builds them: {@code chunks} are the reads (one
 * per Fetch answer or segment file) in offset order, each a run of whole batches, as a reader hands them to a
 * {@link RangeWriter}.
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

    /** Writes the chunks through {@code store}'s writer, one append each, as a reader would. */
    public SalvagedFile writeTo(SalvageStore store) throws SalvageException {
        try (RangeWriter writer = store.writer(range)) {
            for (ByteBuffer chunk : chunks) {
                writer.append(chunk);
            }
            return writer.finish(sources);
        }
    }
}
