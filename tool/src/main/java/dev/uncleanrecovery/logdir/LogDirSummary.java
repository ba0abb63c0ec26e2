// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

import java.nio.file.Path;
import java.util.List;

/**
 * One log dir as a whole: whose it is (meta.properties) and how its broker stopped (.kafka_cleanshutdown).
 *
 * @param brokerId      node.id from meta.properties; -1 when it could not be read (see {@code error})
 * @param clusterId     null when unknown
 * @param directoryId   null when unknown (written by Kafka 3.7+)
 * @param cleanShutdown the clean-shutdown marker is present: Kafka skips log recovery for this dir
 * @param brokerEpoch   the epoch stored in the marker; -1 when there is none
 * @param error         why Kafka cannot use this log dir as it is (meta.properties unreadable, a log dir checkpoint
 *                      its reader fails on); null when it can
 */
public record LogDirSummary(
        Path path,
        int brokerId,
        String clusterId,
        String directoryId,
        boolean cleanShutdown,
        long brokerEpoch,
        List<String> notes,
        String error) {

    public LogDirSummary {
        notes = List.copyOf(notes);
    }
}
