// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery;

/**
 * A problem with what the user gave us (unknown topic, malformed file, unreachable bootstrap server,
 * missing permission): printed as one line, exit code 2. Domain exceptions for bad input extend it.
 */
public class UserInputException extends RuntimeException {
    public UserInputException(String message) {
        super(message);
    }

    public UserInputException(String message, Throwable cause) {
        super(message, cause);
    }
}
