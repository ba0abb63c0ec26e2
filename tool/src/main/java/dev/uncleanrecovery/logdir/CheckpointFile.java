// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.apache.kafka.common.TopicPartition;

/**
 * Kafka's text checkpoint files: a version line ({@code 0}), an entry count line, then one entry per line with
 * fields separated by white space. Two kinds are read here:
 * <ul>
 *   <li>{@code <partition dir>/leader-epoch-checkpoint}: {@code epoch startOffset};</li>
 *   <li>{@code <log dir>/log-start-offset-checkpoint} and {@code recovery-point-offset-checkpoint}:
 *       {@code topic partition offset} (topic names cannot contain spaces).</li>
 * </ul>
 * Parsed exactly as Kafka 4.4's CheckpointFile reader parses them, because what Kafka does with a torn file depends on
 * how its reader fails: an empty file, or one with only its version line, is an empty checkpoint; a wrong version, a
 * line with the wrong number of fields or a count that does not match the lines is an IOException (see
 * {@link KafkaLoadFailure}); a field of the right count that is not a number, or a negative count, is a different
 * exception ({@link KafkaReaderFailure}). Lines are not trimmed and blank lines are not skipped: Kafka does neither.
 */
final class CheckpointFile {

    static final String LEADER_EPOCH = "leader-epoch-checkpoint";
    static final String LOG_START_OFFSET = "log-start-offset-checkpoint";
    static final String RECOVERY_POINT = "recovery-point-offset-checkpoint";

    /** A log dir's offset checkpoints hold a line of under 300 bytes per partition: 64 MiB is 200,000 partitions. */
    static final int MAX_BYTES = 64 * 1024 * 1024;

    private static final int SUPPORTED_VERSION = 0;
    private static final Pattern WHITESPACE = Pattern.compile("\\s+");

    private CheckpointFile() {
    }

    /**
     * The entries of a leader-epoch-checkpoint, in file order (Kafka loads them in that order, see
     * {@link LeaderEpochCache#loaded}).
     *
     * @throws java.nio.file.NoSuchFileException when it is missing (Kafka then creates an empty one)
     */
    static List<EpochEntry> readLeaderEpochs(Path file) throws IOException {
        return read(file, 2, fields -> new EpochEntry(Integer.parseInt(fields[0]), Long.parseLong(fields[1])));
    }

    /** The offsets of a per-log-dir offset checkpoint (log start offsets, recovery points), by partition. */
    static Map<TopicPartition, Long> readOffsets(Path file) throws IOException {
        Map<TopicPartition, Long> offsets = new HashMap<>();
        record Offset(TopicPartition partition, long offset) {
        }
        for (Offset entry : read(file, 3, fields -> new Offset(new TopicPartition(fields[0],
                Integer.parseInt(fields[1])), Long.parseLong(fields[2])))) {
            offsets.put(entry.partition(), entry.offset());
        }
        return offsets;
    }

    private static <T> List<T> read(Path file, int fieldsPerEntry, Function<String[], T> entry) throws IOException {
        Iterator<String> lines = LogDirFile.lines(LogDirFile.text(file, MAX_BYTES)).iterator();
        if (!lines.hasNext()) {
            return List.of();
        }
        int version = number(file, 1, lines.next());
        if (version != SUPPORTED_VERSION) {
            throw new KafkaReaderFailure(file + " has version " + version + "; Kafka reads version " + SUPPORTED_VERSION, true);
        }
        if (!lines.hasNext()) {
            return List.of();
        }
        int expected = number(file, 2, lines.next());
        if (expected < 0) {
            throw new KafkaReaderFailure(file + " line 2: the entry count " + expected + " is negative", false);
        }
        List<T> entries = new ArrayList<>();
        int lineNumber = 2;
        while (lines.hasNext()) {
            String line = lines.next();
            lineNumber++;
            String[] fields = WHITESPACE.split(line);
            if (fields.length != fieldsPerEntry) {
                throw new KafkaReaderFailure(file + " line " + lineNumber + " '" + printable(line) + "' is not "
                        + fieldsPerEntry + " fields separated by spaces", true);
            }
            try {
                entries.add(entry.apply(fields));
            } catch (NumberFormatException e) {
                throw new KafkaReaderFailure(file + " line " + lineNumber + " '" + printable(line) + "' has a field that is"
                        + " not a number", false);
            }
        }
        if (entries.size() != expected) {
            throw new KafkaReaderFailure(file + " says it has " + expected + " entries but holds " + entries.size()
                    + " (a write was cut short?)", true);
        }
        return entries;
    }

    private static int number(Path file, int lineNumber, String line) {
        try {
            return Integer.parseInt(line);
        } catch (NumberFormatException e) {
            throw new KafkaReaderFailure(file + " line " + lineNumber + " '" + printable(line) + "' is not a number", true);
        }
    }

    /** A line as a person can read it in one line of output: control characters escaped, long lines cut. */
    static String printable(String line) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < line.length() && out.length() < 80; i++) {
            char c = line.charAt(i);
            out.append(Character.isISOControl(c) ? String.format("\\u%04x", (int) c) : String.valueOf(c));
        }
        return line.length() > 80 ? out + "..." : out.toString();
    }
}
