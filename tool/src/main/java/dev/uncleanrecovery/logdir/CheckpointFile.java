// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * Kafka's text checkpoint files: a version line ({@code 0}), an entry count line, then one entry per line with
 * space-separated fields. Two kinds are read here:
 * <ul>
 *   <li>{@code <partition dir>/leader-epoch-checkpoint}: {@code epoch startOffset};</li>
 *   <li>{@code <log dir>/log-start-offset-checkpoint} and {@code recovery-point-offset-checkpoint}:
 *       {@code topic partition offset} (topic names cannot contain spaces).</li>
 * </ul>
 * Parsing is strict, like Kafka's: a wrong version, a count that does not match the lines, or a field that is
 * not a number makes the whole file unusable.
 */
final class CheckpointFile {

    static final String LEADER_EPOCH = "leader-epoch-checkpoint";
    static final String LOG_START_OFFSET = "log-start-offset-checkpoint";
    static final String RECOVERY_POINT = "recovery-point-offset-checkpoint";

    private static final String SUPPORTED_VERSION = "0";

    private CheckpointFile() {
    }

    /**
     * The entries of a leader-epoch-checkpoint, in file order. Kafka writes them ascending but does not check
     * the order when it loads them (it keys them by epoch), so neither does this reader.
     */
    static List<EpochEntry> readLeaderEpochs(Path file) throws IOException {
        List<EpochEntry> entries = new ArrayList<>();
        for (Line line : readEntries(file, 2)) {
            entries.add(new EpochEntry(line.intField(0), line.longField(1)));
        }
        return entries;
    }

    /** The offsets of a per-log-dir offset checkpoint (log start offsets, recovery points), by partition. */
    static Map<TopicPartition, Long> readOffsets(Path file) throws IOException {
        Map<TopicPartition, Long> offsets = new HashMap<>();
        for (Line line : readEntries(file, 3)) {
            offsets.put(new TopicPartition(line.fields[0], line.intField(1)), line.longField(2));
        }
        return offsets;
    }

    private static List<Line> readEntries(Path file, int fieldsPerEntry) throws IOException {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        if (lines.size() < 2) {
            throw new LogDirReadException(file + " is truncated: it needs a version line and a count line");
        }
        if (!lines.get(0).trim().equals(SUPPORTED_VERSION)) {
            throw new LogDirReadException(file + " has version '" + lines.get(0).trim() + "'; inspect knows version "
                    + SUPPORTED_VERSION);
        }
        int expected;
        try {
            expected = Integer.parseInt(lines.get(1).trim());
        } catch (NumberFormatException e) {
            throw new LogDirReadException(file + " line 2: entry count '" + lines.get(1) + "' is not a number");
        }
        List<Line> entries = new ArrayList<>();
        for (int i = 2; i < lines.size(); i++) {
            if (lines.get(i).isBlank()) {
                continue;
            }
            String[] fields = lines.get(i).trim().split("\\s+");
            Line line = new Line(file, i + 1, lines.get(i), fields);
            if (fields.length != fieldsPerEntry) {
                throw line.malformed("expected " + fieldsPerEntry + " fields");
            }
            entries.add(line);
        }
        if (entries.size() != expected) {
            throw new LogDirReadException(file + " says it has " + expected + " entries but holds " + entries.size()
                    + " (a write was cut short?)");
        }
        return entries;
    }

    private record Line(Path file, int number, String text, String[] fields) {
        int intField(int i) {
            try {
                return Integer.parseInt(fields[i]);
            } catch (NumberFormatException e) {
                throw malformed("field " + (i + 1) + " is not a number");
            }
        }

        long longField(int i) {
            try {
                return Long.parseLong(fields[i]);
            } catch (NumberFormatException e) {
                throw malformed("field " + (i + 1) + " is not a number");
            }
        }

        LogDirReadException malformed(String why) {
            return new LogDirReadException(file + " line " + number + " '" + text.trim() + "': " + why);
        }
    }
}
