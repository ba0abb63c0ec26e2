// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.formats;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;

/**
 * What the stock elector is about to change, on the disk before its first reorder: the replica order of each
 * partition before and after. A run killed between the reorder and the restore (kill -9, a lost SSH session)
 * leaves it behind, and the next {@code execute} of the same plan puts those orders back before anything else.
 * Deleted once every order it names is restored.
 *
 * @param host and pid the process that wrote it: a record whose writer still runs is not a leftover
 */
public record ReorderJournal(
        @Required int version,
        @Required String clusterId,
        @Required String planFile,
        @Required Instant startedAt,
        String host,
        long pid,
        @Required List<Reorder> partitions) {

    public static final int VERSION = 1;

    private static final StrictJsonFile<ReorderJournal> FORMAT = new StrictJsonFile<>(ReorderJournal.class,
            "reorder journal", VERSION, "'kafka-unclean-recovery.sh execute'", PlanFormatException::new);

    public ReorderJournal {
        partitions = Checks.list(partitions);
    }

    /**
     * @param leaderEpoch the partition's leader epoch before the election: a leader of epoch + 1 was elected by it
     */
    public record Reorder(@Required String topic, @Required int partition,
                          @Required int designatedLeader, int leaderEpoch,
                          @Required List<Integer> originalReplicas,
                          @Required List<Integer> reorderedReplicas) {

        public Reorder {
            Checks.topic(topic, "topic");
            originalReplicas = List.copyOf(originalReplicas);
            reorderedReplicas = List.copyOf(reorderedReplicas);
        }

        public TopicPartition topicPartition() {
            return new TopicPartition(topic, partition);
        }
    }

    /** The journal of the runs of {@code planFile}: {@code <plan>-journal.json} beside it. */
    public static Path pathFor(Path planFile) {
        String name = planFile.getFileName().toString();
        String base = name.endsWith(".json") ? name.substring(0, name.length() - 5) : name;
        return planFile.toAbsolutePath().resolveSibling(base + "-journal.json");
    }

    /** Written whole and flushed before it returns; never over a journal a killed run left (that one comes first). */
    public static void write(Path file, ReorderJournal journal) throws IOException {
        FORMAT.write(file, journal);
    }

    public static Optional<ReorderJournal> readIfPresent(Path file) throws IOException {
        return Files.exists(file) ? Optional.of(FORMAT.read(file)) : Optional.empty();
    }
}
