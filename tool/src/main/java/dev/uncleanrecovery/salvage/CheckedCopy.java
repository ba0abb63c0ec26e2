// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.salvage;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * A copy of a doomed range checked whole: every batch's CRC, offsets increasing from a batch holding
 * {@code fromOffset} (or the first one after it, where compaction left a gap) to {@code toOffset - 1}, and the last
 * batch in the epoch the probe saw. Its bytes are the chunks concatenated, cut into files at batch boundaries.
 */
final class CheckedCopy {

    /** One segment file of the copy: whole batches from {@code baseOffset} on. */
    record Part(long baseOffset, ByteBuffer bytes, String sha256) {

        /** Kafka's segment file name: the base offset in 20 digits. */
        String fileName() {
            return String.format("%020d.log", baseOffset);
        }
    }

    final List<Part> parts;
    final long firstOffset;
    final long lastOffset;
    final int firstBatchLeaderEpoch;
    final int lastBatchLeaderEpoch;
    final long records;
    final int batches;
    final long bytes;

    private CheckedCopy(List<Part> parts, long firstOffset, long lastOffset, int firstBatchLeaderEpoch,
                        int lastBatchLeaderEpoch, long records, int batches, long bytes) {
        this.parts = List.copyOf(parts);
        this.firstOffset = firstOffset;
        this.lastOffset = lastOffset;
        this.firstBatchLeaderEpoch = firstBatchLeaderEpoch;
        this.lastBatchLeaderEpoch = lastBatchLeaderEpoch;
        this.records = records;
        this.batches = batches;
        this.bytes = bytes;
    }

    /**
     * @param maxFileBytes a new file starts at the first batch that would make the current one larger (a file of one
     *                     batch may be larger); Kafka's own segments are at most 1 GiB and FileRecords reads int positions
     */
    static CheckedCopy check(CopiedBatches copied, long maxFileBytes) throws SalvageException {
        DoomedRange range = copied.range();
        String who = "broker " + range.broker() + " " + range.partition() + ": ";
        ByteBuffer content = concatenate(copied.chunks(), who);
        if (!content.hasRemaining()) {
            throw new SalvageException(who + "the copy holds no batch; the log holds [" + range.fromOffset() + ", "
                    + range.toOffset() + ")");
        }
        List<Part> parts = new ArrayList<>();
        long firstOffset = -1;
        long lastOffset = -1;
        int firstEpoch = -1;
        int lastEpoch = -1;
        long records = 0;
        int batches = 0;
        int position = 0;
        int partStart = 0;
        long partBase = -1;
        var iterator = MemoryRecords.readableRecords(content.duplicate()).batches().iterator();
        while (true) {
            MutableRecordBatch batch;
            try {
                if (!iterator.hasNext()) {
                    break;
                }
                batch = iterator.next();
            } catch (CorruptRecordException e) {
                // a batch header Kafka cannot read (size below the header's, bad magic byte)
                throw new SalvageException(who + "the copy is corrupt " + (batches == 0 ? "at its start"
                        : "after offset " + lastOffset) + " (" + e.getMessage() + ")", e);
            }
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
                firstEpoch = batch.partitionLeaderEpoch();
                partBase = firstOffset;
            } else if (batch.baseOffset() <= lastOffset) {
                throw new SalvageException(who + "the batch at offset " + batch.baseOffset()
                        + " does not follow the one ending at " + lastOffset + "; offsets must increase");
            }
            if (batches > 0 && position + batch.sizeInBytes() - partStart > maxFileBytes) {
                parts.add(part(content, partBase, partStart, position));
                partStart = position;
                partBase = batch.baseOffset();
            }
            lastOffset = batch.lastOffset();
            lastEpoch = batch.partitionLeaderEpoch();
            Integer count = batch.countOrNull();
            records += count == null ? 0 : count;
            batches++;
            position += batch.sizeInBytes();
        }
        if (batches == 0) {
            throw new SalvageException(who + "the copy holds no whole batch (" + content.remaining()
                    + " bytes); the log holds [" + range.fromOffset() + ", " + range.toOffset() + ")");
        }
        if (position != content.remaining()) {
            // MemoryRecords stops quietly at a batch cut short: the bytes left over are the evidence.
            throw new SalvageException(who + "the copy ends in a partial batch (" + (content.remaining() - position)
                    + " bytes after offset " + lastOffset + "); the log holds [" + range.fromOffset() + ", "
                    + range.toOffset() + ")");
        }
        if (lastOffset != range.toOffset() - 1) {
            throw new SalvageException(who + "the copy ends at offset " + (lastOffset + 1) + ", the log at "
                    + range.toOffset());
        }
        // Older is fine: a replica made leader caches its new epoch before it writes a batch of it (KIP-101), and the
        // probe reads that cache; a newer epoch was written after the probe.
        if (range.lastWrittenLeaderEpoch() >= 0 && lastEpoch > range.lastWrittenLeaderEpoch()) {
            throw new SalvageException(who + "the copy's last batch is of leader epoch " + lastEpoch
                    + ", newer than the log's " + range.lastWrittenLeaderEpoch() + " the plan saw; it is not the log the"
                    + " plan saw");
        }
        parts.add(part(content, partBase, partStart, position));
        return new CheckedCopy(parts, firstOffset, lastOffset, firstEpoch, lastEpoch, records, batches, position);
    }

    private static ByteBuffer concatenate(List<ByteBuffer> chunks, String who) throws SalvageException {
        long total = 0;
        for (ByteBuffer chunk : chunks) {
            total += chunk.remaining();
        }
        if (total > Integer.MAX_VALUE) {
            throw new SalvageException(who + "the copy is " + total + " bytes, more than one buffer holds");
        }
        ByteBuffer content = ByteBuffer.allocate((int) total);
        for (ByteBuffer chunk : chunks) {
            content.put(chunk.duplicate());
        }
        return content.flip();
    }

    private static Part part(ByteBuffer content, long baseOffset, int from, int to) {
        ByteBuffer bytes = content.duplicate().position(from).limit(to).slice().asReadOnlyBuffer();
        return new Part(baseOffset, bytes, sha256(bytes));
    }

    static String sha256(ByteBuffer bytes) {
        return sha256(List.of(bytes));
    }

    /** The SHA-256 of {@code parts} joined, in lower-case hex as manifests carry it. */
    static String sha256(List<ByteBuffer> parts) {
        MessageDigest digest = digest();
        parts.forEach(p -> digest.update(p.duplicate()));
        return HexFormat.of().formatHex(digest.digest());
    }

    static MessageDigest digest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }
}
