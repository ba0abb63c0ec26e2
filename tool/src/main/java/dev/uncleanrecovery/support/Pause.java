// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.support;

/** The waits between two polls of the cluster. */
public final class Pause {

    private Pause() {
    }

    /**
     * Sleeps; an interrupt (Ctrl-C, a shutdown) keeps the thread's interrupt flag and ends the wait with
     * an exception naming what was being waited for.
     */
    public static void millis(long ms, String waitingFor) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + waitingFor, e);
        }
    }
}
