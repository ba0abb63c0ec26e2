// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.salvage;

import java.nio.file.Path;
import java.util.List;

/**
 * One doomed range as it now sits in the salvage directory: a segment file of the original batches and the manifest
 * that describes it.
 *
 * @param firstOffset the first batch's base offset (at or before {@code range.fromOffset()})
 * @param lastOffset  the last batch's last offset ({@code range.toOffset() - 1})
 * @param records     records in the batches, control records included
 */
public record SalvagedFile(DoomedRange range, List<SalvageSource> sources, Path segment, Path manifest,
                           long firstOffset, long lastOffset, long records, int batches, long bytes, String sha256) {
}
