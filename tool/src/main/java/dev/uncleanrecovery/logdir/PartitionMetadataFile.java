// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import org.apache.kafka.common.Uuid;

/**
 * {@code <partition dir>/partition.metadata}: {@code version: 0} then {@code topic_id: <base64 uuid>}. The topic
 * id tells a partition of a deleted-and-recreated topic apart from the current one with the same name.
 *
 * <p>Kafka 4.4 reads it whenever it loads the partition, and how it fails on a damaged one decides what the broker
 * does (see {@link KafkaReaderFailure}): parsed here the way its reader parses it.
 */
final class PartitionMetadataFile {

    static final String FILE_NAME = "partition.metadata";

    private static final Pattern SEPARATOR = Pattern.compile(":\\s+");

    private PartitionMetadataFile() {
    }

    /** @throws java.nio.file.NoSuchFileException when the partition has none */
    static Uuid readTopicId(Path partitionDir) throws IOException {
        Path file = partitionDir.resolve(FILE_NAME);
        List<String> lines = LogDirFile.lines(LogDirFile.text(file, LogDirFile.SMALL_FILE_BYTES));
        // Kafka splits the line it read without checking that there was one: a missing line is a NullPointerException
        String versionLine = line(file, lines, 0);
        String[] version = SEPARATOR.split(versionLine);
        if (version.length != 2) {
            throw malformed(file, versionLine);
        }
        int number;
        try {
            number = Integer.parseInt(version[1]);
        } catch (NumberFormatException e) {
            throw malformed(file, versionLine);
        }
        if (number < 0) {
            throw new KafkaReaderFailure(file + " has version " + number, true);
        }
        String topicIdLine = line(file, lines, 1);
        String[] topicId = SEPARATOR.split(topicIdLine);
        if (topicId.length != 2) {
            throw malformed(file, topicIdLine);
        }
        Uuid id;
        try {
            id = Uuid.fromString(topicId[1]);
        } catch (IllegalArgumentException e) {
            throw new KafkaReaderFailure(file + ": topic id '" + CheckpointFile.printable(topicId[1]) + "' is not a base64"
                    + " topic id", false);
        }
        if (id.equals(Uuid.ZERO_UUID)) {
            throw new KafkaReaderFailure(file + " holds the zero topic id", true);
        }
        return id;
    }

    private static String line(Path file, List<String> lines, int index) {
        if (lines.size() <= index) {
            throw new KafkaReaderFailure(file + " ends before line " + (index + 1) + " ('"
                    + (index == 0 ? "version" : "topic_id") + ": ...')", false);
        }
        return lines.get(index);
    }

    private static KafkaReaderFailure malformed(Path file, String line) {
        return new KafkaReaderFailure(file + " line '" + CheckpointFile.printable(line) + "' is not 'key: value'",
                true);
    }
}
