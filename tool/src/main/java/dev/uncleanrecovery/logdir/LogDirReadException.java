// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

import dev.uncleanrecovery.UserInputException;

/**
 * A file or directory of a Kafka log dir that cannot be used: its message says which one, why, and what to
 * do. Inside one partition it becomes that partition's error; for the log dirs themselves (a path that is
 * not a log dir, log dirs of two different brokers) {@link LogDirInspector} throws it.
 */
public class LogDirReadException extends UserInputException {
    public LogDirReadException(String message) {
        super(message);
    }

    public LogDirReadException(String message, Throwable cause) {
        super(message, cause);
    }
}
