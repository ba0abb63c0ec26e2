// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

import java.io.IOException;
import java.io.StringReader;
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

    /**
     * @throws java.nio.file.NoSuchFileException when the log dir has none
     * @throws LogDirReadException                when it is not a properties file with a node id
     */
    static BrokerMetaProperties read(Path logDir) throws IOException {
        Path file = logDir.resolve(FILE_NAME);
        Properties properties = new Properties();
        try {
            properties.load(new StringReader(LogDirFile.text(file, LogDirFile.SMALL_FILE_BYTES)));
        } catch (IllegalArgumentException e) {
            // Properties.load rejects a malformed unicode escape; Kafka's loader reads the file with it and fails the same way
            throw new LogDirReadException(file + " is not a valid properties file (" + e.getMessage() + ")", e);
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
