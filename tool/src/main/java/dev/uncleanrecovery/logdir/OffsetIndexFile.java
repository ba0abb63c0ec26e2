// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

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
        try (FileChannel channel = LogDirFile.open(indexFile)) {
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
        try (FileChannel channel = LogDirFile.open(indexFile)) {
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

    /** Entries Kafka's index search keeps in its "warm" section: the last 8 KiB of the index. */
    private static final int WARM_ENTRIES = 8192 / ENTRY_SIZE;

    /**
     * Where Kafka 4.4 starts reading a segment it did not recover to find its last offset ({@code readNextOffset}): it
     * looks up the offset of the index's last entry in the index, as it reads any existing index, trusting whatever
     * the whole 8-byte entries hold. An empty index gives the segment's base offset at position 0.
     *
     * @param target   the offset Kafka looks for: that of the last entry
     * @param position where the lookup points (a negative one counts as 0)
     */
    record KafkaLookup(long target, int position) {
    }

    static KafkaLookup kafkaLookupOfLastEntry(FileChannel channel, long baseOffset) throws IOException {
        long entries = channel.size() / ENTRY_SIZE;
        if (entries == 0) {
            return new KafkaLookup(baseOffset, 0);
        }
        long target = baseOffset + relativeOffset(read(channel, entries - 1, ByteBuffer.allocate(ENTRY_SIZE)));
        return new KafkaLookup(target, kafkaPosition(channel, baseOffset, target));
    }

    /**
     * The file position Kafka's offset index gives for {@code target} ({@code OffsetIndex.lookup}): that of the last
     * entry at or below it as its search finds it, 0 when there is none; negative positions count as 0, as Kafka
     * counts them when it reads from there.
     */
    static int kafkaPosition(FileChannel channel, long baseOffset, long target) throws IOException {
        long entries = channel.size() / ENTRY_SIZE;
        ByteBuffer buffer = ByteBuffer.allocate(ENTRY_SIZE);
        if (entries == 0) {
            return 0;
        }
        long slot = largestLowerBoundSlot(channel, entries, baseOffset, target, buffer);
        return slot < 0 ? 0 : Math.max(0, position(read(channel, slot, buffer)));
    }

    /** Kafka's binary search for the last entry at or below {@code target}: the warm section first, then the rest. */
    private static long largestLowerBoundSlot(FileChannel channel, long entries, long baseOffset, long target,
                                              ByteBuffer buffer) throws IOException {
        long firstHot = Math.max(0, entries - 1 - WARM_ENTRIES);
        if (offsetAt(channel, firstHot, baseOffset, buffer) < target) {
            return binarySearch(channel, firstHot, entries - 1, baseOffset, target, buffer);
        }
        if (offsetAt(channel, 0, baseOffset, buffer) > target) {
            return -1;
        }
        return binarySearch(channel, 0, firstHot, baseOffset, target, buffer);
    }

    private static long binarySearch(FileChannel channel, long begin, long end, long baseOffset, long target,
                                     ByteBuffer buffer) throws IOException {
        long low = begin;
        long high = end;
        while (low < high) {
            long middle = (low + high + 1) >>> 1;
            int compared = Long.compare(offsetAt(channel, middle, baseOffset, buffer), target);
            if (compared > 0) {
                high = middle - 1;
            } else if (compared < 0) {
                low = middle;
            } else {
                return middle;
            }
        }
        return low;
    }

    private static long offsetAt(FileChannel channel, long entry, long baseOffset, ByteBuffer buffer) throws IOException {
        return baseOffset + relativeOffset(read(channel, entry, buffer));
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
