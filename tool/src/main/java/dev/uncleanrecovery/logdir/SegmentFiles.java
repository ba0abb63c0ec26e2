// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

import dev.uncleanrecovery.support.BoundedFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The segments of one partition directory as Kafka 4.4's log loading sees them, listed without following a link and
 * without opening anything.
 *
 * <p>Kafka takes every regular file whose name ends in {@code .log}, {@code .index}, {@code .timeindex} or
 * {@code .txnindex} for a segment file and parses the text before the first dot as its base offset; a name that does
 * not parse ({@code 99999999999999999999.log} is beyond a long) fails its log loading and the broker does not start.
 * It skips what is not a regular file (a FIFO, a directory), and follows symbolic links, which inspect does not:
 * a link named like a segment file makes this partition's evidence unknown.
 *
 * @param segments by base offset
 * @param notes    what a person should know about the listing (files Kafka skips, interrupted swaps)
 */
record SegmentFiles(List<Segment> segments, List<String> notes) {

    /** Kafka's FileRecords reads int positions: a larger segment file fails to open. */
    private static final long MAX_SEGMENT_BYTES = Integer.MAX_VALUE;
    /** Version, producer id, first, last and last stable offset: one aborted transaction in a .txnindex. */
    private static final int ABORTED_TXN_BYTES = 34;
    private static final int ABORTED_TXN_LAST_OFFSET = 18;

    /**
     * One segment.
     *
     * @param hasOffsetIndex its {@code .index} exists; Kafka recovers a segment without one at every start-up
     * @param txnIndex       its {@code .txnindex} when it is a regular file; null when it has none
     */
    record Segment(long baseOffset, Path log, long sizeInBytes, Path offsetIndex, boolean hasOffsetIndex, Path txnIndex) {
    }

    SegmentFiles {
        segments = List.copyOf(segments);
        notes = List.copyOf(notes);
    }

    boolean isEmpty() {
        return segments.isEmpty();
    }

    Segment last() {
        return segments.get(segments.size() - 1);
    }

    /**
     * @throws LogDirReadException when a file makes Kafka's log loading fail, or inspect cannot tell what Kafka makes
     *                             of it (a symbolic link, a name Kafka reads as another segment's)
     */
    static SegmentFiles list(Path partitionDir) throws IOException {
        Map<String, BasicFileAttributes> files = new HashMap<>();
        List<String> notes = new ArrayList<>();
        int swapFiles = 0;
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(partitionDir)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                if (name.endsWith(".swap")) {
                    swapFiles++;
                }
                if (segmentFileSuffix(name) == null) {
                    continue;
                }
                BasicFileAttributes attributes = Files.readAttributes(entry, BasicFileAttributes.class,
                        LinkOption.NOFOLLOW_LINKS);
                if (attributes.isSymbolicLink()) {
                    throw new LogDirReadException(entry + " is " + LogDirFile.describeType(entry) + ": Kafka follows"
                            + " it and loads what it points to as part of this log, inspect does not follow links out of"
                            + " the log dir — replace the link with the file itself or move it out, then inspect again");
                }
                if (!attributes.isRegularFile()) {
                    notes.add(entry.getFileName() + " is " + BoundedFiles.describe(entry, attributes,
                            LinkOption.NOFOLLOW_LINKS) + ", not a regular file: Kafka's log loading skips it, and"
                            + " inspect did not open it");
                    continue;
                }
                baseOffset(entry, name);
                files.put(name, attributes);
            }
        }
        if (swapFiles > 0) {
            // .swap files come from a log cleaner pass or segment split cut short; the cleaner never touches
            // the active segment, so the log end offset does not depend on them.
            notes.add(swapFiles + " .swap file(s): a compaction or segment split was interrupted; Kafka completes"
                    + " it at start-up");
        }
        List<Segment> segments = new ArrayList<>();
        for (var file : files.entrySet()) {
            String name = file.getKey();
            if (!name.endsWith(".log")) {
                continue;
            }
            Path log = partitionDir.resolve(name);
            long base = baseOffset(log, name);
            if (!name.equals(fileName(base, ".log"))) {
                throw new LogDirReadException(log + " is not a name Kafka writes, yet Kafka reads it as segment " + base
                        + " (" + fileName(base, ".log") + "), which inspect does not predict — move it out of the"
                        + " partition directory, then inspect again");
            }
            long size = file.getValue().size();
            if (size > MAX_SEGMENT_BYTES) {
                throw new LogDirReadException(log + " holds " + size + " bytes, more than the 2 GiB a segment can: "
                        + KafkaLoadFailure.BROKER_DOES_NOT_START.consequence(partitionDir.getParent()));
            }
            Path index = partitionDir.resolve(fileName(base, ".index"));
            Path txnIndex = partitionDir.resolve(fileName(base, ".txnindex"));
            segments.add(new Segment(base, log, size, index, files.containsKey(index.getFileName().toString())
                    || Files.exists(index, LinkOption.NOFOLLOW_LINKS),
                    files.containsKey(txnIndex.getFileName().toString()) ? txnIndex : null));
        }
        segments.sort(Comparator.comparingLong(Segment::baseOffset));
        return new SegmentFiles(segments, notes);
    }

    /**
     * Why Kafka recovers this segment even after a clean shutdown, before anything else; null when it does not. Kafka
     * checks that the offset index exists and that the transaction index's aborted transactions end in the segment.
     *
     * @throws LogDirReadException when the transaction index holds an entry of a version Kafka does not know: its
     *                             check throws and the broker does not start
     */
    static String recoveredAtLoad(Segment segment) throws IOException {
        if (!segment.hasOffsetIndex()) {
            return "its offset index " + segment.offsetIndex().getFileName() + " is missing";
        }
        if (segment.txnIndex() == null) {
            return null;
        }
        try (FileChannel channel = LogDirFile.open(segment.txnIndex())) {
            long entries = channel.size() / ABORTED_TXN_BYTES;
            ByteBuffer entry = ByteBuffer.allocate(ABORTED_TXN_BYTES);
            for (long i = 0; i < entries; i++) {
                entry.clear();
                while (entry.hasRemaining()) {
                    if (channel.read(entry, i * ABORTED_TXN_BYTES + entry.position()) < 0) {
                        throw new IOException(segment.txnIndex() + " ended while reading entry " + i);
                    }
                }
                short version = entry.getShort(0);
                if (version > 0) {
                    throw new LogDirReadException(segment.txnIndex() + " entry " + i + " has version " + version
                            + ", which Kafka's index check rejects: " + KafkaLoadFailure.BROKER_DOES_NOT_START
                            .consequence(segment.log().getParent().getParent()));
                }
                long lastOffset = entry.getLong(ABORTED_TXN_LAST_OFFSET);
                if (lastOffset < segment.baseOffset()) {
                    return "its transaction index " + segment.txnIndex().getFileName() + " is corrupt (entry " + i
                            + " ends at offset " + lastOffset + ", before the segment)";
                }
            }
        }
        return null;
    }

    static String fileName(long baseOffset, String suffix) {
        return String.format("%020d", baseOffset) + suffix;
    }

    private static String segmentFileSuffix(String name) {
        for (String suffix : List.of(".log", ".index", ".timeindex", ".txnindex")) {
            if (name.endsWith(suffix)) {
                return suffix;
            }
        }
        return null;
    }

    /** The base offset Kafka reads from a segment file's name: the text before the first dot. */
    private static long baseOffset(Path file, String name) {
        String prefix = name.substring(0, name.indexOf('.'));
        try {
            return Long.parseLong(prefix);
        } catch (NumberFormatException e) {
            throw new LogDirReadException(file + " is named like a segment file, but '" + CheckpointFile.printable(prefix)
                    + "' is not a base offset Kafka can read (a 64-bit number): "
                    + KafkaLoadFailure.BROKER_DOES_NOT_START.consequence(file.getParent().getParent())
                    + " — move the file out of the partition directory");
        }
    }
}
