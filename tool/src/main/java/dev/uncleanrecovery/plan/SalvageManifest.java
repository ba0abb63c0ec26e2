// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.plan;

import com.fasterxml.jackson.annotation.JsonProperty;
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
        @JsonProperty(required = true) int version,
        String tool,
        @JsonProperty(required = true) PlanReference plan,
        @JsonProperty(required = true) String topic,
        String topicId,
        @JsonProperty(required = true) int partition,
        @JsonProperty(required = true) int broker,
        @JsonProperty(required = true) List<String> sources,
        @JsonProperty(required = true) long fromOffset,
        @JsonProperty(required = true) long toOffset,
        @JsonProperty(required = true) int lastWrittenLeaderEpoch,
        @JsonProperty(required = true) long firstOffset,
        @JsonProperty(required = true) long lastOffset,
        @JsonProperty(required = true) int firstBatchLeaderEpoch,
        @JsonProperty(required = true) int lastBatchLeaderEpoch,
        @JsonProperty(required = true) long records,
        @JsonProperty(required = true) int batches,
        @JsonProperty(required = true) List<SegmentFile> files,
        @JsonProperty(required = true) Instant salvagedAt) {

    public static final int VERSION = 1;
    public static final String FILE_NAME = "manifest.json";

    private static final Pattern SEGMENT_NAME = Pattern.compile("\\d{20}\\.log");
    private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");

    private static final StrictJsonFile<SalvageManifest> FORMAT = new StrictJsonFile<>(SalvageManifest.class,
            "salvage manifest", VERSION, "'kafka-unclean-recovery execute'", InvalidSalvageManifestException::new);

    public SalvageManifest {
        if (version != VERSION) {
            throw new IllegalArgumentException("version must be " + VERSION + ", found " + version);
        }
        Checks.present(plan, "plan");
        Checks.topic(topic, "topic");
        Checks.topicId(topicId, "topicId");
        Checks.atLeast(partition, 0, "partition");
        Checks.atLeast(broker, 0, "broker");
        sources = Checks.list(sources, "sources");
        if (sources.isEmpty()) {
            throw new IllegalArgumentException("sources must name at least one source");
        }
        atLeast(fromOffset, 0, "fromOffset");
        atLeast(toOffset, fromOffset + 1, "toOffset");
        Checks.atLeast(lastWrittenLeaderEpoch, -1, "lastWrittenLeaderEpoch");
        atLeast(firstOffset, 0, "firstOffset");
        atLeast(lastOffset, Math.max(firstOffset, fromOffset), "lastOffset");
        atLeast(records, 0, "records");
        Checks.atLeast(batches, 1, "batches");
        files = Checks.list(files, "files");
        if (files.isEmpty()) {
            throw new IllegalArgumentException("files must name at least one segment file");
        }
        Checks.present(salvagedAt, "salvagedAt");
    }

    /** The plan the salvage was made for. */
    public record PlanReference(
            @JsonProperty(required = true) String file,
            String clusterId,
            Instant createdAt) {

        public PlanReference {
            Checks.text(file, "file");
        }
    }

    /** A segment file in the manifest's directory: the original batches, byte for byte. */
    public record SegmentFile(
            @JsonProperty(required = true) String name,
            @JsonProperty(required = true) long bytes,
            @JsonProperty(required = true) String sha256) {

        public SegmentFile {
            Checks.text(name, "name");
            // Kafka's own naming, and no path: a manifest names files beside it, nowhere else.
            if (!SEGMENT_NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("name '" + name + "' is not a segment file name (20 digits and .log)");
            }
            atLeast(bytes, 1, "bytes");
            Checks.text(sha256, "sha256");
            if (!SHA256.matcher(sha256).matches()) {
                throw new IllegalArgumentException("sha256 must be 64 lower-case hex digits");
            }
        }
    }

    /** Writes the manifest durably (flushed, then linked into place); never over an existing file. */
    public void write(Path file) throws IOException {
        FORMAT.write(file, this, false);
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

    private static void atLeast(long value, long min, String field) {
        if (value < min) {
            throw new IllegalArgumentException(field + " must be >= " + min + ", found " + value);
        }
    }
}
