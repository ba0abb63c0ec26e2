// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

/**
 * The local cluster could not do what was asked (a node did not start or stop in time, a state was
 * not reached). The message says which node, what was seen, and where its log is.
 */
public class LocalClusterException extends RuntimeException {

    public LocalClusterException(String message) {
        super(message);
    }

    public LocalClusterException(String message, Throwable cause) {
        super(message, cause);
    }
}
