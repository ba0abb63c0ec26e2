// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

/**
 * Damage to a partition directory the way crashes and failing disks damage one, seeded: for the fuzz test's built logs
 * and the cluster test's broker-written ones alike. Each kind finds its target in the files as they are (segments by
 * name, batches by their length fields), so damage can follow damage.
 */
enum LogDamage {
    /** The last segment cut at any byte: writes the page cache never flushed. */
    TRUNCATE,
    /** A byte of one batch's CRC field flipped. */
    FLIP_CRC,
    /** Any byte of a segment flipped, header fields outside the CRC included. */
    FLIP_ANY,
    /** The last segment zeroed from any byte on: blocks allocated but never written. */
    ZERO_TAIL,
    /** One 4 KiB page of a segment zeroed: a lost write in the middle. */
    ZERO_PAGE,
    /** Random bytes for an offset index. */
    GARBAGE_INDEX,
    /** An offset index deleted. */
    DELETE_INDEX,
    /** A transaction index of random aborted transactions. */
    GARBAGE_TXN_INDEX,
    /** leader-epoch-checkpoint cut at any byte, zeroed at its end, or with a line added. */
    TORN_EPOCH_CHECKPOINT,
    /** partition.metadata cut at any byte. */
    TORN_PARTITION_METADATA,
    /** Random bytes after the last batch. */
    APPEND_GARBAGE,
    /** A copy of an earlier batch written again after the last one. */
    APPEND_COPY,
    /** A batch's length field set to a huge or negative value. */
    HUGE_LENGTH,
    /** A batch's magic byte set to any value. */
    MAGIC;

    /** Applies this damage to one of the partition's segments (or files), chosen by {@code random}. */
    void applyTo(Path partitionDir, Random random) {
        List<Path> segments = segments(partitionDir);
        if (segments.isEmpty()) {
            return;
        }
        Path last = segments.get(segments.size() - 1);
        Path any = segments.get(random.nextInt(segments.size()));
        List<Integer> positions = batchPositions(any);
        switch (this) {
            case TRUNCATE -> truncate(last, random.nextInt((int) size(last) + 1));
            case FLIP_CRC -> {
                if (!positions.isEmpty()) {
                    flip(any, positions.get(random.nextInt(positions.size())) + 17 + random.nextInt(4), random);
                }
            }
            case FLIP_ANY -> {
                if (size(any) > 0) {
                    flip(any, random.nextInt((int) size(any)), random);
                }
            }
            case ZERO_TAIL -> {
                int from = random.nextInt((int) size(last) + 1);
                write(last, from, new byte[(int) size(last) - from]);
            }
            case ZERO_PAGE -> {
                long from = (long) random.nextInt((int) (size(any) / 4096) + 1) * 4096;
                write(any, from, new byte[(int) Math.min(4096, Math.max(0, size(any) - from))]);
            }
            case GARBAGE_INDEX -> {
                byte[] garbage = new byte[random.nextInt(4096)];
                random.nextBytes(garbage);
                rewrite(sibling(any, ".index"), garbage);
            }
            case DELETE_INDEX -> delete(sibling(any, ".index"));
            case GARBAGE_TXN_INDEX -> {
                long base = Long.parseLong(any.getFileName().toString().substring(0, 20));
                ByteBuffer txns = ByteBuffer.allocate(34 * (1 + random.nextInt(3)));
                while (txns.hasRemaining()) {
                    long first = base + random.nextInt(50) - 10;
                    txns.putShort((short) (random.nextInt(10) == 0 ? 1 : 0)).putLong(random.nextInt(1000))
                            .putLong(first).putLong(first + random.nextInt(20) - 5).putLong(first);
                }
                rewrite(sibling(any, ".txnindex"), txns.array());
            }
            case TORN_EPOCH_CHECKPOINT -> tear(partitionDir.resolve(CheckpointFile.LEADER_EPOCH), random);
            case TORN_PARTITION_METADATA -> {
                Path metadata = partitionDir.resolve(PartitionMetadataFile.FILE_NAME);
                if (Files.exists(metadata)) {
                    truncate(metadata, random.nextInt((int) size(metadata) + 1));
                }
            }
            case APPEND_GARBAGE -> {
                byte[] garbage = new byte[1 + random.nextInt(200)];
                random.nextBytes(garbage);
                append(last, garbage);
            }
            case APPEND_COPY -> {
                if (!positions.isEmpty()) {
                    int at = positions.get(random.nextInt(positions.size()));
                    byte[] bytes = read(any);
                    int length = ByteBuffer.wrap(bytes).getInt(at + 8) + 12;
                    append(last, java.util.Arrays.copyOfRange(bytes, at, at + length));
                }
            }
            case HUGE_LENGTH -> {
                if (!positions.isEmpty()) {
                    int value = switch (random.nextInt(3)) {
                        case 0 -> Integer.MAX_VALUE;
                        case 1 -> Integer.MAX_VALUE - random.nextInt(1 << 20);
                        default -> -1 - random.nextInt(Integer.MAX_VALUE);
                    };
                    write(any, positions.get(random.nextInt(positions.size())) + 8,
                            ByteBuffer.allocate(4).putInt(value).array());
                }
            }
            case MAGIC -> {
                if (!positions.isEmpty()) {
                    write(any, positions.get(random.nextInt(positions.size())) + 16,
                            new byte[] {(byte) random.nextInt(256)});
                }
            }
        }
    }

    /** The segment files of a partition directory, by base offset. */
    static List<Path> segments(Path partitionDir) {
        try (Stream<Path> files = Files.list(partitionDir)) {
            return files.filter(f -> f.getFileName().toString().matches("\\d{20}\\.log")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Where the whole batches of a segment start, by their length fields, up to the first that cannot be one. */
    static List<Integer> batchPositions(Path segment) {
        ByteBuffer bytes = ByteBuffer.wrap(read(segment));
        List<Integer> positions = new ArrayList<>();
        int position = 0;
        while (position + 17 < bytes.limit()) {
            int length = bytes.getInt(position + 8);
            if (length < 14 || (long) position + 12 + length > bytes.limit()) {
                break;
            }
            positions.add(position);
            position += 12 + length;
        }
        return positions;
    }

    private static void tear(Path checkpoint, Random random) {
        if (!Files.exists(checkpoint)) {
            return;
        }
        long size = size(checkpoint);
        switch (random.nextInt(3)) {
            case 0 -> truncate(checkpoint, random.nextInt((int) size + 1));
            case 1 -> {
                int from = random.nextInt((int) size + 1);
                write(checkpoint, from, new byte[(int) size - from + random.nextInt(8)]);
            }
            default -> {
                String[] junk = {"x y\n", "3\n", "7 -1\n", "1 2 3\n", "\n", "99999999999 0\n", "5 12\n"};
                append(checkpoint, junk[random.nextInt(junk.length)].getBytes(StandardCharsets.UTF_8));
            }
        }
    }

    private static Path sibling(Path segment, String suffix) {
        String name = segment.getFileName().toString();
        return segment.resolveSibling(name.substring(0, name.length() - ".log".length()) + suffix);
    }

    private static byte[] read(Path file) {
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static long size(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void truncate(Path file, long length) {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.truncate(length);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void write(Path file, long position, byte[] bytes) {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.wrap(bytes), position);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void flip(Path file, long position, Random random) {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(1);
            if (channel.read(b, position) == 1) {
                b.put(0, (byte) (b.get(0) ^ (1 + random.nextInt(255))));
                channel.write(b.rewind(), position);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void rewrite(Path file, byte[] bytes) {
        try {
            Files.write(file, bytes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void append(Path file, byte[] bytes) {
        try {
            Files.write(file, bytes, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void delete(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
