// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.salvage;

import java.nio.file.Path;
import java.util.List;

/**
 * One doomed range as it now sits in the salvage directory: a segment file of the original batches and the manifest
 * that describes it.
 *
 * @param segment     the segment file of the first batch (a copy larger than a Kafka segment continues in further
 *                    files beside it, each named by its first batch's base offset, all listed in the manifest)
 * @param firstOffset the first batch's base offset (at or before {@code range.fromOffset()})
 * @param lastOffset  the last batch's last offset ({@code range.toOffset() - 1})
 * @param records     records in the batches, control records included
 * @param bytes       the copy's size, all its files together
 * @param sha256      SHA-256 of the copy, all its files concatenated (lower-case hex)
 * @param manifestSha256 SHA-256 of the manifest file (lower-case hex): the result file records it, so that
 *                       {@code replay} can tell the salvage is the one this run made
 */
public record SalvagedFile(DoomedRange range, List<SalvageSource> sources, Path segment, Path manifest,
                           long firstOffset, long lastOffset, long records, int batches, long bytes, String sha256,
                           String manifestSha256) {
}
