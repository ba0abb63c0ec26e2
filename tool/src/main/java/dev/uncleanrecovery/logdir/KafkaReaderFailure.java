// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

/**
 * A file Kafka 4.4's own reader fails on, and how: with an IOException, or with another exception (a number or an id
 * that does not parse, a line that is not there, a negative count). Which of the two decides what the broker does.
 */
final class KafkaReaderFailure extends LogDirReadException {

    private final boolean ioException;

    KafkaReaderFailure(String message, boolean ioException) {
        super(message);
        this.ioException = ioException;
    }

    /** Kafka's reader throws an IOException; otherwise a runtime exception. */
    boolean isIoException() {
        return ioException;
    }

    /** For a file Kafka reads while it loads one partition (leader-epoch-checkpoint, partition.metadata). */
    KafkaLoadFailure whenLoadingAPartition() {
        return ioException ? KafkaLoadFailure.LOG_DIR_OFFLINE : KafkaLoadFailure.BROKER_DOES_NOT_START;
    }
}
