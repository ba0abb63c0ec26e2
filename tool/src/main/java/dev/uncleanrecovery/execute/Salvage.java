// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import dev.uncleanrecovery.salvage.DoomedRange;
import dev.uncleanrecovery.salvage.SalvagedFile;
import java.nio.file.Path;
import java.util.List;

/**
 * Copies the records an election will truncate before it changes anything, so no loss is silent. Called only when
 * some range is doomed: a run that truncates nothing does no salvage work at all.
 */
public interface Salvage {

    /** One range: the file it now sits in, or why it could not be kept whole. */
    record Kept(DoomedRange range, SalvagedFile file, String failure) {
        public boolean isKept() {
            return file != null;
        }
    }

    /** Where the copies go. */
    Path directory();

    /** @return one answer per range, in any order */
    List<Kept> keep(List<DoomedRange> ranges);

    /**
     * A copy already in the directory that stands for a range, or why none there does.
     *
     * @param file    the copy, checked against its manifest; null when none stands for the range
     * @param notUsed why each copy found under the range's topic name, partition and broker is not of the same log
     */
    record EarlierCopy(SalvagedFile file, List<String> notUsed) {
        public static final EarlierCopy NONE = new EarlierCopy(null, List.of());

        public EarlierCopy {
            notUsed = List.copyOf(notUsed);
        }
    }

    /**
     * A copy of {@code range} already in the directory (made from a stopped broker's disk by {@code inspect
     * --salvage-beyond}, or by an earlier run), checked against its manifest and of the same log: the same cluster,
     * topic id and epochs (see {@code SalvageDirectory.SalvagedRange.mismatch}).
     */
    EarlierCopy alreadyKept(DoomedRange range);
}
