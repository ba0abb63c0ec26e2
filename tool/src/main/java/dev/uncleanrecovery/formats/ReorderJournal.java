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
 * <p>Bound to what it was made for: the cluster, the plan's exact bytes ({@code planSha256}, as the audit log and
 * approvals name a plan) and the process that wrote it, by what tells its process table from another's (see
 * {@code execute.RunOwner}). Version 1 journals carry neither plan hash nor process table: they are read, but only ever
 * acted on when the operator names them.
 *
 * @param planSha256        the SHA-256 of the plan file the run applied; null only in version 1
 * @param host              and pid: the process that wrote it, for people and, with the three fields after, to tell
 *                          whether it still runs
 * @param bootId            the kernel boot it ran in; null when not known (and in version 1)
 * @param pidNamespace      the inode of its pid namespace; null when not known
 * @param processStartTicks its start in clock ticks since boot; null when not known
 */
public record ReorderJournal(
        @Required int version,
        @Required String clusterId,
        @Required String planFile,
        String planSha256,
        @Required Instant startedAt,
        String host,
        long pid,
        String bootId,
        Long pidNamespace,
        Long processStartTicks,
        @Required List<Reorder> partitions) {

    /** The format this tool writes: 2 binds the journal to its plan's SHA-256 and its writer's process table. */
    public static final int VERSION = 2;
    /** Version 1 is still read, to be named and acted on when asked. */
    public static final int OLDEST_READ = 1;

    private static final StrictJsonFile<ReorderJournal> FORMAT = new StrictJsonFile<>(ReorderJournal.class,
            "reorder journal", OLDEST_READ, VERSION, "'kafka-unclean-recovery.sh execute'", PlanFormatException::new);

    public ReorderJournal {
        partitions = Checks.list(partitions);
        if (version >= 2 && (planSha256 == null || !planSha256.matches("[0-9a-f]{64}"))) {
            throw Checks.invalid("planSha256", planSha256 == null ? "is missing"
                    : "must be 64 lower-case hex digits, found '" + planSha256 + "'");
        }
        if (bootId != null && !bootId.matches("[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}")) {
            throw Checks.invalid("bootId", "must be a boot id as /proc/sys/kernel/random/boot_id has it, found '"
                    + bootId + "'");
        }
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
