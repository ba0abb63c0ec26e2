// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.formats;

import dev.uncleanrecovery.UserInputException;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The {@code manifest.json} beside the segment files of one salvaged range: which replica's records they are, which
 * offsets, and each file's size and SHA-256, so that a copy can be checked before it is replayed.
 *
 * <pre>{@code
 * { "version": 1, "tool": "kafka-unclean-recovery 0.1.0",
 *   "plan": { "file": "/ops/plan.json", "clusterId": "q1Sh-9_ISia_zwGINzRvyQ", "createdAt": "2026-11-29T16:00:00Z" },
 *   "topic": "orders", "topicId": "m0uMP1nXQ4mAkRTb3e6u1Q", "partition": 3, "broker": 2,
 *   "sources": [ "fetch_debug_replica" ], "fromOffset": 1042, "toOffset": 1059, "lastWrittenLeaderEpoch": 6,
 *   "firstOffset": 1040, "lastOffset": 1058, "firstBatchLeaderEpoch": 6, "lastBatchLeaderEpoch": 6,
 *   "records": 19, "batches": 3,
 *   "files": [ { "name": "00000000000000001040.log", "bytes": 2311, "sha256": "9f86d0..." } ],
 *   "salvagedAt": "2026-11-29T16:05:00Z" }
 * }</pre>
 *
 * @param tool                   the tool and version that wrote it, for people; may be absent
 * @param topicId                Kafka's base64 form; absent when the cluster gave none
 * @param sources                how the batches were read, in order (lower-case names of the salvage sources)
 * @param lastWrittenLeaderEpoch the epoch the probe saw on the replica's last batch; -1 when not known
 * @param firstOffset            the first batch's base offset, at or before {@code fromOffset}
 * @param lastOffset             the last batch's last offset, {@code toOffset - 1}
 * @param records                records in the batches, control records included
 */
public record SalvageManifest(
        @Required int version,
        String tool,
        @Required PlanReference plan,
        @Required String topic,
        String topicId,
        @Required int partition,
        @Required int broker,
        @Required List<String> sources,
        @Required long fromOffset,
        @Required long toOffset,
        @Required int lastWrittenLeaderEpoch,
        @Required long firstOffset,
        @Required long lastOffset,
        @Required int firstBatchLeaderEpoch,
        @Required int lastBatchLeaderEpoch,
        @Required long records,
        @Required int batches,
        @Required List<SegmentFile> files,
        @Required Instant salvagedAt) {

    public static final int VERSION = 1;
    public static final String FILE_NAME = "manifest.json";

    private static final Pattern SEGMENT_NAME = Pattern.compile("\\d{20}\\.log");
    private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");

    private static final StrictJsonFile<SalvageManifest> FORMAT = new StrictJsonFile<>(SalvageManifest.class,
            "salvage manifest", VERSION, "'kafka-unclean-recovery.sh execute'", InvalidSalvageManifestException::new);

    public SalvageManifest {
        if (version != VERSION) {
            throw Checks.invalid("version", "must be " + VERSION + ", found " + version);
        }
        Checks.topic(topic, "topic");
        Checks.topicId(topicId, "topicId");
        Checks.atLeast(partition, 0, "partition");
        Checks.atLeast(broker, 0, "broker");
        sources = Checks.list(sources);
        if (sources.isEmpty()) {
            throw Checks.invalid("sources", "must name at least one source");
        }
        Checks.atLeast(fromOffset, 0, "fromOffset");
        Checks.atLeast(toOffset, fromOffset + 1, "toOffset");
        Checks.atLeast(lastWrittenLeaderEpoch, -1, "lastWrittenLeaderEpoch");
        Checks.atLeast(firstOffset, 0, "firstOffset");
        Checks.atLeast(lastOffset, Math.max(firstOffset, fromOffset), "lastOffset");
        Checks.atLeast(records, 0, "records");
        Checks.atLeast(batches, 1, "batches");
        files = Checks.list(files);
        if (files.isEmpty()) {
            throw Checks.invalid("files", "must name at least one segment file");
        }
    }

    /** The plan the salvage was made for. */
    public record PlanReference(
            @Required String file,
            String clusterId,
            Instant createdAt) {

        public PlanReference {
            Checks.text(file, "file");
        }
    }

    /** A segment file in the manifest's directory: the original batches, byte for byte. */
    public record SegmentFile(
            @Required String name,
            @Required long bytes,
            @Required String sha256) {

        public SegmentFile {
            Checks.text(name, "name");
            // Kafka's own naming, and no path: a manifest names files beside it, nowhere else.
            if (!SEGMENT_NAME.matcher(name).matches()) {
                throw Checks.invalid("name", "'" + name + "' is not a segment file name (20 digits and .log)");
            }
            Checks.atLeast(bytes, 1, "bytes");
            Checks.text(sha256, "sha256");
            if (!SHA256.matcher(sha256).matches()) {
                throw Checks.invalid("sha256", "must be 64 lower-case hex digits");
            }
        }
    }

    /** Writes the manifest durably (flushed, then linked into place); never over an existing file. */
    public void write(Path file) throws IOException {
        FORMAT.write(file, this);
    }

    /**
     * Reads a manifest, checking everything: unknown fields, wrong types, missing or impossible values.
     *
     * @throws InvalidSalvageManifestException with the file, the JSON path and what is wrong, in one line
     */
    public static SalvageManifest read(Path file) throws IOException {
        return FORMAT.read(file);
    }

    /**
     * A manifest from bytes already read, checked as {@link #read} does.
     *
     * @param source how to name the file in messages, usually its path
     */
    public static SalvageManifest parse(String source, byte[] content) {
        return FORMAT.parse(source, content);
    }

    /** A manifest that cannot be used: {@code manifest.json: files[0].bytes must be >= 1, found 0}. */
    public static final class InvalidSalvageManifestException extends UserInputException {
        InvalidSalvageManifestException(String source, String jsonPath, String problem, Throwable cause) {
            super(source + ": " + (jsonPath.isEmpty() ? "" : jsonPath + " ") + problem, cause);
        }
    }
}
