// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A segment's offset index ({@code <baseOffset>.index}): sorted 8-byte entries, each a relative offset
 * (int32, offset minus the segment's base offset) and the file position (int32) of a batch at or before it.
 * Used only to jump close to the end of a big segment; every entry found is re-checked against the log.
 */
final class OffsetIndexFile {

    static final int ENTRY_SIZE = 8;

    /** One index entry, with the offset made absolute. */
    record Entry(long offset, int position) {
    }

    /**
     * The result of a lookup.
     *
     * @param entry   the last usable entry; null when there is none
     * @param problem why an index with content has no usable entry; null when it has one or is blank (a segment
     *                smaller than {@code index.interval.bytes} has no entry yet, which is normal)
     */
    record Lookup(Entry entry, String problem) {
    }

    private OffsetIndexFile() {
    }

    /**
     * The last entry whose position lies inside a log file of {@code logSize} bytes.
     *
     * <p>Binary search, so a 10 MiB index costs about 20 reads of 8 bytes. Two kinds of tail are skipped:
     * zeros (the active segment's index is preallocated to {@code segment.index.bytes} and only trimmed on
     * clean shutdown, so after a crash its unused part reads as zeros — and Kafka never writes an entry at
     * position 0, because the first entry comes only after {@code index.interval.bytes} of data), and
     * entries that point past the end of the log (the log was cut on disk but its index was not).
     * If the index is garbage the search still returns some entry; the caller validates it against the log.
     */
    static Lookup lastEntryWithin(Path indexFile, long baseOffset, long logSize) throws IOException {
        try (FileChannel channel = FileChannel.open(indexFile, StandardOpenOption.READ)) {
            long entries = channel.size() / ENTRY_SIZE;
            ByteBuffer buffer = ByteBuffer.allocate(ENTRY_SIZE);
            if (entries == 0) {
                return new Lookup(null, null);
            }
            long first = read(channel, 0, buffer);
            if (!isUsable(first, logSize)) {
                return new Lookup(null, first == 0 ? null : "its first entry (relative offset " + relativeOffset(first)
                        + ", position " + position(first) + ") does not point inside the " + logSize + "-byte log");
            }
            long low = 0;
            long high = entries - 1;
            while (low < high) {
                long middle = low + (high - low + 1) / 2;
                if (isUsable(read(channel, middle, buffer), logSize)) {
                    low = middle;
                } else {
                    high = middle - 1;
                }
            }
            long raw = read(channel, low, buffer);
            return new Lookup(new Entry(baseOffset + relativeOffset(raw), position(raw)), null);
        }
    }

    /**
     * The last usable entry at or below {@code offset}: Kafka indexes each entry with a batch's last offset and the
     * batch's position, so the batch holding {@code offset} starts at or after the entry's position.
     */
    static Lookup floorEntry(Path indexFile, long baseOffset, long offset, long logSize) throws IOException {
        Lookup last = lastEntryWithin(indexFile, baseOffset, logSize);
        if (last.entry() == null || last.entry().offset() <= offset) {
            return last;
        }
        try (FileChannel channel = FileChannel.open(indexFile, StandardOpenOption.READ)) {
            ByteBuffer buffer = ByteBuffer.allocate(ENTRY_SIZE);
            long relative = offset - baseOffset;
            long first = read(channel, 0, buffer);
            if (relativeOffset(first) > relative) {
                return new Lookup(null, null);
            }
            // usable entries are a prefix of the file (see lastEntryWithin), sorted by offset
            long low = 0;
            long high = channel.size() / ENTRY_SIZE - 1;
            while (low < high) {
                long middle = low + (high - low + 1) / 2;
                long raw = read(channel, middle, buffer);
                if (isUsable(raw, logSize) && relativeOffset(raw) <= relative) {
                    low = middle;
                } else {
                    high = middle - 1;
                }
            }
            long raw = read(channel, low, buffer);
            return new Lookup(new Entry(baseOffset + relativeOffset(raw), position(raw)), null);
        }
    }

    private static boolean isUsable(long raw, long logSize) {
        int position = position(raw);
        return relativeOffset(raw) >= 0 && position > 0 && position < logSize;
    }

    private static long read(FileChannel channel, long entry, ByteBuffer buffer) throws IOException {
        buffer.clear();
        long at = entry * ENTRY_SIZE;
        while (buffer.hasRemaining()) {
            if (channel.read(buffer, at + buffer.position()) < 0) {
                throw new IOException("offset index ended while reading entry " + entry);
            }
        }
        return buffer.getLong(0);
    }

    private static int relativeOffset(long raw) {
        return (int) (raw >>> 32);
    }

    private static int position(long raw) {
        return (int) raw;
    }
}
