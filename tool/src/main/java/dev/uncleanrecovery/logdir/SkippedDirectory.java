// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

import java.nio.file.Path;

/** A directory inside a log dir that inspect did not read as a partition, and why. */
public record SkippedDirectory(Path logDir, String directory, String reason) {
}
