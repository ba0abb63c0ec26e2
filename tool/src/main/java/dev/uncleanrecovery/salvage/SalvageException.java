// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.salvage;

/** A doomed range that could not be kept whole: the partition it belongs to must not be elected. */
public class SalvageException extends Exception {

    public SalvageException(String message) {
        super(message);
    }

    public SalvageException(String message, Throwable cause) {
        super(message, cause);
    }
}
