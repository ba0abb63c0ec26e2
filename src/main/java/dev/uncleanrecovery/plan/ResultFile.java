// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.plan;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

/**
 * The result file {@code execute} writes next to the plan: per partition the state before, what was done, the
 * state after; a summary; and the warnings an operator must act on.
 */
public record ResultFile(int version, String clusterId, String planFile, String tool, Instant startedAt,
                         long elapsedMs, String elector, Summary summary, List<Partition> partitions,
                         List<String> warnings) {

    public static final int VERSION = 1;

    /** @param wouldElect dry runs only: partitions that passed every check (absent from older files: 0) */
    public record Summary(long elected, long alreadyRecovered, long refused, long electedOther, long failed,
                          Long wouldElect) {
        public Summary {
            wouldElect = wouldElect == null ? 0L : wouldElect;
        }
    }

    /** @param outcome ELECTED, ALREADY_RECOVERED, REFUSED, ELECTED_OTHER, FAILED or (dry run) WOULD_ELECT */
    public record Partition(String topic, int partition, int designatedLeader, String outcome, String detail,
                            State before, State after) {
    }

    /** The partition as the controller described it. */
    public record State(int leader, int leaderEpoch, List<Integer> replicas, List<Integer> isr,
                        List<Integer> eligibleLeaderReplicas, List<Integer> lastKnownElr) {
    }

    /**
     * Written whole or not at all, on the disk before the tool says it is, and never over an earlier result: it is
     * the record of what was done to the cluster. A temporary file is flushed, then linked under the first free name
     * ({@code file}, then {@code <name>-2.json}, {@code -3}, ...; a link never replaces a file that exists).
     *
     * @return where it was written
     */
    public static Path write(Path file, ResultFile result) throws IOException {
        Path absolute = file.toAbsolutePath();
        Path temp = Files.createTempFile(absolute.getParent(), absolute.getFileName().toString(), ".tmp");
        try {
            StrictJsonFile.writeDurably(temp, result);
            for (int n = 1; ; n++) {
                Path target = n == 1 ? absolute : numbered(absolute, n);
                try {
                    Files.createLink(target, temp);
                    return target;
                } catch (FileAlreadyExistsException taken) {
                    // an earlier run's result: try the next name
                }
            }
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    /** {@code plan-result.json} → {@code plan-result-2.json}. */
    static Path numbered(Path file, int n) {
        String name = file.getFileName().toString();
        int dot = name.endsWith(".json") ? name.length() - 5 : name.length();
        return file.resolveSibling(name.substring(0, dot) + "-" + n + name.substring(dot));
    }

    public static ResultFile read(Path file) throws IOException {
        return Json.mapper().readValue(file.toFile(), ResultFile.class);
    }
}
