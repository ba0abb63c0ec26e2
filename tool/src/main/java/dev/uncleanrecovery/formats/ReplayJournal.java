// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.formats;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What {@code replay --execute} has done with a salvage directory and one target topic, in that directory:
 * {@code replay-into-<topic>.json}. Written before the first record is produced, with where each partition of the
 * target ended then: every record this salvage's replays put there lies at or after those offsets, so a replay run
 * again reads only from there to find them (by their {@code salvage.*} headers) and skips them. Each range whose
 * records were all acknowledged is added as it completes.
 *
 * <pre>{@code
 * { "version": 1, "tool": "kafka-unclean-recovery 0.1.0", "toTopic": "orders-replayed",
 *   "toTopicId": "m0uMP1nXQ4mAkRTb3e6u1Q", "startedAt": "2026-12-01T10:00:00Z",
 *   "startOffsets": [ { "partition": 0, "offset": 120 } ],
 *   "completed": [ { "topic": "orders", "partition": 3, "broker": 2, "fromOffset": 1042, "toOffset": 1059,
 *                    "manifestSha256": "9f86d0...", "produced": 15, "at": "2026-12-01T10:00:02Z" } ] }
 * }</pre>
 *
 * @param toTopicId    the target's topic id when the first replay began: a topic deleted and re-created under the
 *                     name is another topic, where nothing was replayed
 * @param startOffsets each partition's log end offset when the first replay began
 * @param completed    the ranges whose every record is in the target
 */
public record ReplayJournal(
        @Required int version,
        String tool,
        @Required String toTopic,
        String toTopicId,
        @Required Instant startedAt,
        @Required List<StartOffset> startOffsets,
        @Required List<CompletedRange> completed) {

    public static final int VERSION = 1;

    private static final StrictJsonFile<ReplayJournal> FORMAT = new StrictJsonFile<>(ReplayJournal.class,
            "replay journal", VERSION, "'kafka-unclean-recovery.sh replay --execute'", PlanFormatException::new);

    public ReplayJournal {
        if (version != VERSION) {
            throw Checks.invalid("version", "must be " + VERSION + ", found " + version);
        }
        Checks.topic(toTopic, "toTopic");
        Checks.topicId(toTopicId, "toTopicId");
        startOffsets = Checks.list(startOffsets);
        completed = Checks.list(completed);
    }

    /** A partition of the target and its log end offset when the first replay began. */
    public record StartOffset(@Required int partition,
                              @Required long offset) {
        public StartOffset {
            Checks.atLeast(partition, 0, "partition");
            Checks.atLeast(offset, 0, "offset");
        }
    }

    /** A salvaged range all of whose records are in the target: {@code produced} by the run that completed it. */
    public record CompletedRange(@Required String topic,
                                 @Required int partition,
                                 @Required int broker,
                                 @Required long fromOffset,
                                 @Required long toOffset,
                                 @Required String manifestSha256,
                                 @Required long produced,
                                 @Required Instant at) {
        public CompletedRange {
            Checks.topic(topic, "topic");
            Checks.atLeast(partition, 0, "partition");
            Checks.atLeast(broker, 0, "broker");
            Checks.text(manifestSha256, "manifestSha256");
        }
    }

    /** Where the journal of replays of the salvage in {@code salvageDir} into {@code toTopic} lies. */
    public static Path pathFor(Path salvageDir, String toTopic) {
        Checks.topic(toTopic, "toTopic");
        return salvageDir.resolve("replay-into-" + toTopic + ".json");
    }

    /** This journal with {@code range} added to the completed ones. */
    public ReplayJournal completing(CompletedRange range) {
        List<CompletedRange> all = new ArrayList<>(completed);
        all.add(range);
        return new ReplayJournal(version, tool, toTopic, toTopicId, startedAt, startOffsets, all);
    }

    /** The first journal of replays into a target: a new file, never over one that appeared since it was looked for. */
    public static void create(Path file, ReplayJournal journal) throws IOException {
        FORMAT.write(file, journal);
    }

    /**
     * The journal with one more range: written whole, flushed, in one rename over the one before, which it holds
     * entirely (the replay read it first, or created it).
     */
    public static void update(Path file, ReplayJournal journal) throws IOException {
        FORMAT.update(file, journal);
    }

    public static Optional<ReplayJournal> readIfPresent(Path file) throws IOException {
        return Files.exists(file, LinkOption.NOFOLLOW_LINKS) ? Optional.of(FORMAT.read(file)) : Optional.empty();
    }
}
