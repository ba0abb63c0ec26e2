// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.patch;

/**
 * Stops the JVM with one line on stderr. A broker or controller that is half-patched would speak a
 * protocol nobody can reason about, so every problem the agent finds before Kafka runs ends here.
 */
public final class FailFast {

    /** Exit status of a JVM the agent refused to patch (EX_CONFIG in sysexits.h). */
    public static final int EXIT_STATUS = 78;

    /** Every line the agent prints starts with this. */
    public static final String PREFIX = "[kafka-unclean-recovery-agent] ";

    private FailFast() {
    }

    /** Prints {@code FATAL: why; what to do} and halts: no shutdown hooks, nothing of Kafka runs. */
    public static void halt(String why) {
        System.err.println(PREFIX + "FATAL: " + why.replace('\n', ' '));
        System.err.flush();
        // exit() would run Kafka's shutdown hooks and, from a transformer, is swallowed by the JVM.
        Runtime.getRuntime().halt(EXIT_STATUS);
    }

    static void info(String message) {
        System.err.println(PREFIX + message);
    }
}
