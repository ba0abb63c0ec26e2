// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code <log dir>/.kafka_cleanshutdown}: Kafka writes it at the end of a controlled shutdown, as
 * {@code {"version":0,"brokerEpoch":N}}, and deletes it once the next start-up has loaded the logs. Present means
 * the broker stopped cleanly: its logs skip recovery and, with ELR (KIP-966), the controller keeps it eligible
 * when the stored broker epoch matches. Absent means Kafka will run log recovery and treat the restart as unclean.
 *
 * @param brokerEpoch the epoch in the file; -1 when the file is absent or has none
 * @param problem     why a present file could not be read; null otherwise
 */
record CleanShutdownMarker(boolean present, long brokerEpoch, String problem) {

    static final String FILE_NAME = ".kafka_cleanshutdown";

    // The file is one tiny JSON object in a fixed shape; a pattern keeps this package free of the plan
    // package's JSON mapper (logdir sits below plan and must not depend on it).
    private static final Pattern BROKER_EPOCH = Pattern.compile("\"brokerEpoch\"\\s*:\\s*(-?\\d+)");

    static CleanShutdownMarker read(Path logDir) {
        Path file = logDir.resolve(FILE_NAME);
        if (!Files.exists(file)) {
            return new CleanShutdownMarker(false, -1, null);
        }
        try {
            Matcher m = BROKER_EPOCH.matcher(LogDirFile.text(file, LogDirFile.SMALL_FILE_BYTES));
            if (m.find()) {
                return new CleanShutdownMarker(true, Long.parseLong(m.group(1)), null);
            }
            return new CleanShutdownMarker(true, -1, file + " holds no brokerEpoch");
        } catch (IOException | NumberFormatException e) {
            return new CleanShutdownMarker(true, -1, file + " is unreadable: " + e.getMessage());
        }
    }
}
