// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.salvage;

import dev.uncleanrecovery.UserInputException;
import dev.uncleanrecovery.formats.SalvageManifest;
import dev.uncleanrecovery.formats.SalvageManifest.SegmentFile;
import dev.uncleanrecovery.support.DurableFiles;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.apache.kafka.common.Uuid;

/**
 * The salvage directory of one plan: each doomed range a Kafka segment file of the original record batches beside a
 * JSON manifest, written durably and never over an earlier one, each range through its {@link RangeWriter}.
 *
 * <pre>
 * &lt;directory&gt;/&lt;topic&gt;-&lt;partition&gt;/broker-&lt;id&gt;/00000000000000001040.log
 *                                              manifest.json
 * </pre>
 */
public final class SalvageStore {

    /** The plan the salvage belongs to, as its manifests name it. */
    public record PlanReference(String planFile, String clusterId, Instant planCreatedAt) {
    }

    /** Kafka's default segment.bytes: a larger copy goes into several files, each whole batches. */
    static final long MAX_FILE_BYTES = 1L << 30;

    private final Path directory;
    private final PlanReference plan;
    private final String tool;
    private final long maxFileBytes;

    private SalvageStore(Path directory, PlanReference plan, String tool, long maxFileBytes) {
        if (directory == null || plan == null) {
            throw new IllegalArgumentException("directory and plan are required");
        }
        this.directory = directory;
        this.plan = plan;
        this.tool = tool;
        this.maxFileBytes = maxFileBytes;
    }

    /** The salvage directory {@code execute} uses by default: {@code <plan>-salvage/} beside the plan file. */
    public static Path besidePlan(Path planFile) {
        String name = planFile.getFileName().toString();
        String stem = name.endsWith(".json") ? name.substring(0, name.length() - ".json".length()) : name;
        return planFile.resolveSibling(stem + "-salvage");
    }

    /** A store whose manifests do not say which tool wrote them. */
    public static SalvageStore open(Path directory, PlanReference plan) {
        return open(directory, plan, null);
    }

    /**
     * @param tool the tool and version, as manifests name it ("kafka-unclean-recovery 0.1.0"); null to leave it out
     * @throws UserInputException when the directory exists and is not private ({@link #refuseShared})
     */
    public static SalvageStore open(Path directory, PlanReference plan, String tool) {
        refuseShared(directory);
        return new SalvageStore(directory, plan, tool, MAX_FILE_BYTES);
    }

    /**
     * Refuses a salvage directory that exists and that another user may write into: owned by someone else, or writable
     * by its group or by everyone. Whoever can write there can swap or remove the salvaged records between the copy
     * and the replay. A directory the tool creates is 0700 (see {@link DurableFiles}).
     *
     * @throws UserInputException naming the directory, what is wrong and what to do
     */
    public static void refuseShared(Path directory) {
        if (!Files.exists(directory)) {
            return;
        }
        Optional<String> why;
        try {
            why = DurableFiles.whyNotPrivate(directory);
        } catch (IOException e) {
            throw new UserInputException("salvage directory " + directory + " cannot be checked: " + e.getMessage(), e);
        }
        why.ifPresent(reason -> {
            throw new UserInputException("salvage directory " + directory + " " + reason + ": another user could"
                    + " change or remove the salvaged records. Use a directory that only you own and may write"
                    + " (chmod go-w " + directory + ", or a new --salvage-dir, which the tool creates 0700)");
        });
    }

    /** For tests of copies that span several files. */
    static SalvageStore open(Path directory, PlanReference plan, String tool, long maxFileBytes) {
        refuseShared(directory);
        return new SalvageStore(directory, plan, tool, maxFileBytes);
    }

    public Path directory() {
        return directory;
    }

    public PlanReference plan() {
        return plan;
    }

    /** Where a replica's copy of a partition goes: {@code <directory>/<topic>-<partition>/broker-<id>}. */
    public Path rangeDirectory(DoomedRange range) {
        return directory.resolve(range.partition().topic() + "-" + range.partition().partition())
                .resolve("broker-" + range.broker());
    }

    /**
     * A writer of {@code range}'s copy into {@link #rangeDirectory}: it checks the batches as they arrive (every
     * batch's CRC, offsets increasing from a batch holding {@code fromOffset} to {@code toOffset - 1}) and publishes
     * them durably, never over an existing file. Close it when done: a copy that did not finish leaves nothing.
     */
    public RangeWriter writer(DoomedRange range) {
        return new RangeWriter(this, range, maxFileBytes);
    }

    SalvageManifest manifest(DoomedRange range, List<SalvageSource> sources, CheckedCopy copy,
                             List<SegmentFile> files) {
        return new SalvageManifest(SalvageManifest.VERSION, tool,
                new SalvageManifest.PlanReference(plan.planFile(), plan.clusterId(), plan.planCreatedAt()),
                range.partition().topic(), Uuid.ZERO_UUID.equals(range.topicId()) ? null : range.topicId().toString(),
                range.partition().partition(), range.broker(),
                sources.stream().map(SalvageStore::spelling).toList(),
                range.fromOffset(), range.toOffset(), range.lastWrittenLeaderEpoch(),
                copy.firstOffset, copy.lastOffset, copy.firstBatchLeaderEpoch, copy.lastBatchLeaderEpoch,
                copy.records, copy.batches, files, Instant.now());
    }

    /** How a source is named in manifests: "fetch_debug_replica". */
    static String spelling(SalvageSource source) {
        return source.name().toLowerCase(Locale.ROOT);
    }

    static String sha256(Path... files) throws IOException {
        MessageDigest digest = CheckedCopy.digest();
        for (Path file : files) {
            try (InputStream in = new DigestInputStream(Files.newInputStream(file), digest)) {
                in.transferTo(java.io.OutputStream.nullOutputStream());
            }
        }
        return HexFormat.of().formatHex(digest.digest());
    }
}
