// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * {@code <log dir>/meta.properties}, written by {@code kafka-storage.sh format}: which node and cluster a log dir
 * belongs to. KRaft (version=1) writes {@code node.id}; a ZooKeeper-era dir (version=0) has {@code broker.id}.
 *
 * @param directoryId the dir's own id (Kafka 3.7+, used by JBOD); null when absent
 */
record BrokerMetaProperties(int nodeId, String clusterId, String directoryId, int version) {

    static final String FILE_NAME = "meta.properties";

    static BrokerMetaProperties read(Path logDir) throws IOException {
        Path file = logDir.resolve(FILE_NAME);
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            properties.load(reader);
        }
        String id = properties.getProperty("node.id", properties.getProperty("broker.id"));
        if (id == null) {
            throw new LogDirReadException(file + " has neither node.id nor broker.id; is this a Kafka log dir?");
        }
        return new BrokerMetaProperties(parseInt(file, "node.id", id), properties.getProperty("cluster.id"),
                properties.getProperty("directory.id"), parseInt(file, "version", properties.getProperty("version", "0")));
    }

    private static int parseInt(Path file, String key, String value) {
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new LogDirReadException(file + ": " + key + " '" + value + "' is not a number");
        }
    }
}
