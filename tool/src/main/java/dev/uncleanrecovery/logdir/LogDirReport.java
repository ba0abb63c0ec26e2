// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

import dev.uncleanrecovery.UserInputException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * What {@code inspect} read from one stopped broker's log dirs.
 *
 * @param partitions sorted by topic then partition
 * @param skipped    directories that are not a partition's current log, with the reason
 */
public record LogDirReport(
        Instant inspectedAt,
        List<LogDirSummary> logDirs,
        List<PartitionLogSummary> partitions,
        List<SkippedDirectory> skipped) {

    public LogDirReport {
        logDirs = List.copyOf(logDirs);
        partitions = List.copyOf(partitions);
        skipped = List.copyOf(skipped);
    }

    /** node.id shared by the log dirs; -1 when no meta.properties could be read. */
    public int brokerId() {
        return logDirs.stream().mapToInt(LogDirSummary::brokerId).filter(id -> id >= 0).findFirst().orElse(-1);
    }

    /** cluster.id shared by the log dirs; null when none could be read. */
    public String clusterId() {
        return logDirs.stream().map(LogDirSummary::clusterId).filter(Objects::nonNull).findFirst().orElse(null);
    }

    /**
     * The broker stopped cleanly in Kafka's sense: every log dir has a readable marker, all with the same
     * broker epoch. Kafka reads the epoch from all dirs at start-up and sends none if one is missing or they differ,
     * and the controller then treats the restart as unclean.
     */
    public boolean cleanShutdown() {
        return !logDirs.isEmpty()
                && logDirs.stream().allMatch(d -> d.cleanShutdown() && d.brokerEpoch() >= 0)
                && logDirs.stream().mapToLong(LogDirSummary::brokerEpoch).distinct().count() == 1;
    }

    /** The broker epoch of the clean shutdown; -1 when {@link #cleanShutdown()} is false. */
    public long brokerEpoch() {
        return cleanShutdown() ? logDirs.get(0).brokerEpoch() : -1;
    }

    /**
     * Refuses a file the tool would write inside these log dirs: inspect leaves them as it found them, its own
     * output included.
     */
    public void requireOutside(String option, Path file) {
        Path target = realPath(file.toAbsolutePath().normalize());
        for (LogDirSummary dir : logDirs) {
            if (target.startsWith(realPath(dir.path()))) {
                throw new UserInputException(option + " " + file + " is inside log dir " + dir.path()
                        + "; inspect never writes there — write elsewhere");
            }
        }
    }

    /** Resolves symbolic links in the part of {@code path} that exists, so that an alias of a log dir is caught. */
    private static Path realPath(Path path) {
        Path existing = path;
        while (existing != null && !java.nio.file.Files.exists(existing)) {
            existing = existing.getParent();
        }
        if (existing == null) {
            return path;
        }
        try {
            return existing.toRealPath().resolve(existing.relativize(path));
        } catch (java.io.IOException e) {
            return path;
        }
    }
}
