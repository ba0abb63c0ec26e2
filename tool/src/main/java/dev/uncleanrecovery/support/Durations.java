// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.support;

import java.time.Duration;

/** Durations for people: "250 ms", "3 s", "1.5 s", "45 s", "2.5 min". */
public final class Durations {

    private Durations() {
    }

    public static String human(Duration duration) {
        return human(duration.toMillis());
    }

    /**
     * Milliseconds below a second (where the exact value can matter, e.g. a tight --timeout), tenths of a second
     * up to 10 s, whole seconds up to 2 min, then minutes: a timer's 2996 ms is "3 s", as the operator set it.
     */
    public static String human(long millis) {
        long ms = Math.max(0, millis);
        if (ms < 1000) {
            return ms + " ms";
        }
        if (ms < 9_950) {
            long tenths = Math.round(ms / 100.0);
            return (tenths % 10 == 0 ? Long.toString(tenths / 10) : tenths / 10 + "." + tenths % 10) + " s";
        }
        if (ms < 119_500) {
            return Math.round(ms / 1000.0) + " s";
        }
        long tenthsOfMinutes = Math.round(ms / 6000.0);
        if (tenthsOfMinutes >= 100) {
            return Math.round(ms / 60_000.0) + " min";
        }
        return (tenthsOfMinutes % 10 == 0 ? Long.toString(tenthsOfMinutes / 10)
                : tenthsOfMinutes / 10 + "." + tenthsOfMinutes % 10) + " min";
    }
}
