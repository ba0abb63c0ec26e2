// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

import java.nio.file.Path;

/**
 * How Kafka 4.4's log loading at start-up fails on a file it cannot read. Its LogManager loads every partition
 * directory in a job and treats the two kinds of exception differently.
 */
enum KafkaLoadFailure {

    /**
     * An IOException (a checkpoint or partition.metadata that does not parse): the log dir is marked failed, so every
     * replica in it is offline, and a broker left without a working log dir shuts down.
     */
    LOG_DIR_OFFLINE,

    /** Any other exception escapes the log loading (a file name or number that does not parse): the broker does not start. */
    BROKER_DOES_NOT_START;

    /** What the broker will do, in one clause for a person. */
    String consequence(Path logDir) {
        return switch (this) {
            case LOG_DIR_OFFLINE -> "Kafka marks log dir " + logDir + " failed when it loads this partition: its"
                    + " replicas go offline, and a broker with no other log dir shuts down";
            case BROKER_DOES_NOT_START -> "Kafka's log loading fails on it and the broker does not start";
        };
    }
}
