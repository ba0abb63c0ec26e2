// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.support;

/** Reading a failure's chain of causes, where the reason that matters sits some levels down. */
public final class Causes {

    private Causes() {
    }

    /** The first of {@code failure} and its causes that is a {@code type}, or null. */
    public static <T extends Throwable> T firstOf(Throwable failure, Class<T> type) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (type.isInstance(cause)) {
                return type.cast(cause);
            }
        }
        return null;
    }
}
