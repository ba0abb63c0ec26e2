// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;

/** The file a node's output goes to; every start of the node appends to it. */
final class NodeLog {

    private static final int TAIL_WINDOW_BYTES = 256 * 1024;

    private final Path file;

    NodeLog(Path file) {
        this.file = file;
    }

    Path file() {
        return file;
    }

    long length() {
        try {
            return Files.exists(file) ? Files.size(file) : 0L;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The text appended since {@code offset} (a {@link #length()} taken earlier). */
    String readSince(long offset) {
        if (!Files.exists(file)) {
            return "";
        }
        try (RandomAccessFile log = new RandomAccessFile(file.toFile(), "r")) {
            long from = Math.min(offset, log.length());
            byte[] bytes = new byte[Math.toIntExact(log.length() - from)];
            log.seek(from);
            log.readFully(bytes);
            return new String(bytes, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    boolean containsSince(long offset, String text) {
        return readSince(offset).contains(text);
    }

    /** The last {@code lines} lines (from the last 256 KiB at most). */
    List<String> tail(int lines) {
        long length = length();
        String text = readSince(Math.max(0, length - TAIL_WINDOW_BYTES));
        List<String> all = Arrays.asList(text.split("\\R"));
        return List.copyOf(all.subList(Math.max(0, all.size() - lines), all.size()));
    }

    void append(String line) {
        try {
            Files.writeString(file, line + System.lineSeparator(), StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
