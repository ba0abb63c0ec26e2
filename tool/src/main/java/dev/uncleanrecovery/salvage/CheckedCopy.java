// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.salvage;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Iterator;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * The checks a copy of a doomed range passes, made batch by batch as the batches arrive: every batch's CRC, magic 2
 * only, offsets increasing from a batch holding {@code fromOffset} (or the first one after it, where compaction left a
 * gap) to {@code toOffset - 1}, and the last batch in no newer epoch than the probe saw. No I/O: {@link RangeWriter}
 * writes what passes; the totals here go into the manifest.
 */
final class CheckedCopy {

    private final DoomedRange range;
    private final String who;
    long firstOffset = -1;
    long lastOffset = -1;
    int firstBatchLeaderEpoch = -1;
    int lastBatchLeaderEpoch = -1;
    long records;
    int batches;
    long bytes;

    CheckedCopy(DoomedRange range) {
        this.range = range;
        this.who = "broker " + range.broker() + " " + range.partition() + ": ";
    }

    /** "broker 3 orders-2: ", the start of every message about this copy. */
    String who() {
        return who;
    }

    /** The next batch of a read, or null after its last whole one. */
    MutableRecordBatch next(Iterator<MutableRecordBatch> read) throws SalvageException {
        try {
            return read.hasNext() ? read.next() : null;
        } catch (CorruptRecordException e) {
            // a batch header Kafka cannot read (size below the header's, bad magic byte)
            throw new SalvageException(who + "the copy is corrupt " + (batches == 0 ? "at its start"
                    : "after offset " + lastOffset) + " (" + e.getMessage() + ")", e);
        }
    }

    /** Checks {@code batch}, the one after those taken before, and counts it in. */
    void take(MutableRecordBatch batch) throws SalvageException {
        if (batch.magic() != RecordBatch.MAGIC_VALUE_V2) {
            throw new SalvageException(who + "the batch at offset " + batch.baseOffset() + " has magic "
                    + batch.magic() + "; only magic 2 batches (Kafka 0.11 and later) are salvaged");
        }
        try {
            batch.ensureValid();
        } catch (CorruptRecordException e) {
            throw new SalvageException(who + "the batch at offsets [" + batch.baseOffset() + ", "
                    + batch.lastOffset() + "] is corrupt (" + e.getMessage() + ")", e);
        }
        if (batches == 0) {
            if (batch.lastOffset() < range.fromOffset()) {
                throw new SalvageException(who + "the copy starts with the batch [" + batch.baseOffset() + ", "
                        + batch.lastOffset() + "], which ends before offset " + range.fromOffset()
                        + " where the range starts");
            }
            firstOffset = batch.baseOffset();
            firstBatchLeaderEpoch = batch.partitionLeaderEpoch();
        } else if (batch.baseOffset() <= lastOffset) {
            throw new SalvageException(who + "the batch at offset " + batch.baseOffset()
                    + " does not follow the one ending at " + lastOffset + "; offsets must increase");
        }
        lastOffset = batch.lastOffset();
        lastBatchLeaderEpoch = batch.partitionLeaderEpoch();
        Integer count = batch.countOrNull();
        records += count == null ? 0 : count;
        batches++;
        bytes += batch.sizeInBytes();
    }

    /** A read must end with a whole batch: Kafka's batch iterator stops quietly at one cut short. */
    void requireWhole(int leftoverBytes) throws SalvageException {
        if (leftoverBytes == 0) {
            return;
        }
        if (batches == 0) {
            throw new SalvageException(who + "the copy holds no whole batch (" + leftoverBytes + " bytes); the log"
                    + " holds [" + range.fromOffset() + ", " + range.toOffset() + ")");
        }
        throw new SalvageException(who + "the copy ends in a partial batch (" + leftoverBytes + " bytes after offset "
                + lastOffset + "); the log holds [" + range.fromOffset() + ", " + range.toOffset() + ")");
    }

    /** The copy ends where the range does, in an epoch the probe saw. */
    void requireComplete() throws SalvageException {
        if (batches == 0) {
            throw new SalvageException(who + "the copy holds no batch; the log holds [" + range.fromOffset() + ", "
                    + range.toOffset() + ")");
        }
        if (lastOffset != range.toOffset() - 1) {
            throw new SalvageException(who + "the copy ends at offset " + (lastOffset + 1) + ", the log at "
                    + range.toOffset());
        }
        // Older is fine: a replica made leader caches its new epoch before it writes a batch of it (KIP-101), and the
        // probe reads that cache; a newer epoch was written after the probe.
        if (range.lastWrittenLeaderEpoch() >= 0 && lastBatchLeaderEpoch > range.lastWrittenLeaderEpoch()) {
            throw new SalvageException(who + "the copy's last batch is of leader epoch " + lastBatchLeaderEpoch
                    + ", newer than the log's " + range.lastWrittenLeaderEpoch() + " the plan saw; it is not the log the"
                    + " plan saw");
        }
    }

    static MessageDigest digest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }
}
