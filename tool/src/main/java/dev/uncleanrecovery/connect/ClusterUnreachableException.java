// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.connect;

import dev.uncleanrecovery.support.Durations;
import java.time.Duration;

/**
 * No broker of the cluster could be reached, or none answered in time (connection refused, no answer within the
 * timeout): printed as one line, exit code 4. Unlike a {@code UserInputException} the command itself may be right,
 * and the same command run again once the cluster answers can succeed.
 */
public class ClusterUnreachableException extends RuntimeException {

    public ClusterUnreachableException(String message, Throwable cause) {
        super(message, cause);
    }

    /** "could not describe the cluster: no answer from --bootstrap-server B within 15 s (...)". */
    public static ClusterUnreachableException noAnswer(String what, String bootstrapServers, Duration within,
                                                       Throwable cause) {
        return new ClusterUnreachableException("could not " + what + ": no answer from --bootstrap-server "
                + bootstrapServers + " within " + Durations.human(within) + " (is it reachable, and is the listener's"
                + " security.protocol right in --command-config?)", cause);
    }
}
