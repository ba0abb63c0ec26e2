// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.common.Uuid;

/**
 * {@code <partition dir>/partition.metadata}: {@code version: 0} then {@code topic_id: <base64 uuid>}. The topic
 * id tells a partition of a deleted-and-recreated topic apart from the current one with the same name.
 */
final class PartitionMetadataFile {

    static final String FILE_NAME = "partition.metadata";

    private PartitionMetadataFile() {
    }

    static Uuid readTopicId(Path partitionDir) throws IOException {
        Path file = partitionDir.resolve(FILE_NAME);
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        String version = valueOf(file, lines, 0, "version");
        if (!version.equals("0")) {
            throw new LogDirReadException(file + " has version " + version + "; inspect knows version 0");
        }
        String topicId = valueOf(file, lines, 1, "topic_id");
        try {
            return Uuid.fromString(topicId);
        } catch (IllegalArgumentException e) {
            throw new LogDirReadException(file + ": topic_id '" + topicId + "' is not a base64 topic id");
        }
    }

    private static String valueOf(Path file, List<String> lines, int index, String key) {
        String prefix = key + ":";
        if (lines.size() <= index || !lines.get(index).trim().startsWith(prefix)) {
            throw new LogDirReadException(file + " line " + (index + 1) + " should be '" + prefix + " ...'");
        }
        return lines.get(index).trim().substring(prefix.length()).trim();
    }
}
