// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.salvage;

import dev.uncleanrecovery.plan.SalvageManifest;
import dev.uncleanrecovery.support.DurableFiles;
import dev.uncleanrecovery.plan.SalvageManifest.SegmentFile;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import org.apache.kafka.common.Uuid;

/**
 * The salvage directory of one plan: each doomed range a Kafka segment file of the original record batches beside a
 * JSON manifest, written durably and never over an earlier one.
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

    /** @param tool the tool and version, as manifests name it ("kafka-unclean-recovery 0.1.0"); null to leave it out */
    public static SalvageStore open(Path directory, PlanReference plan, String tool) {
        return new SalvageStore(directory, plan, tool, MAX_FILE_BYTES);
    }

    /** For tests of copies that span several files. */
    static SalvageStore open(Path directory, PlanReference plan, String tool, long maxFileBytes) {
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
     * Checks that {@code copied} is whole (every batch's CRC, offsets contiguous from a batch holding
     * {@code fromOffset} to {@code toOffset - 1}) and writes it: fsync, atomic rename, never over an existing file.
     * A second write of the same bytes (a re-run of the same plan) returns the copy already there.
     *
     * @throws SalvageException when the batches do not cover the range whole, when another copy of the range is
     *                          already there, or when it cannot be written
     */
    public SalvagedFile write(CopiedBatches copied) throws SalvageException {
        DoomedRange range = copied.range();
        CheckedCopy copy = CheckedCopy.check(copied, maxFileBytes);
        Path rangeDirectory = rangeDirectory(range);
        Path manifestFile = rangeDirectory.resolve(SalvageManifest.FILE_NAME);
        String who = "broker " + range.broker() + " " + range.partition() + ": ";
        try {
            DurableFiles.createDirectories(rangeDirectory);
            List<SegmentFile> files = copy.parts.stream()
                    .map(p -> new SegmentFile(p.fileName(), p.bytes().remaining(), p.sha256())).toList();
            if (Files.exists(manifestFile)) {
                SalvageManifest existing = SalvageManifest.read(manifestFile);
                if (!existing.files().equals(files)) {
                    throw new SalvageException(who + manifestFile + " already describes another copy of this replica"
                            + " (offsets " + existing.firstOffset() + " to " + existing.lastOffset() + ", "
                            + existing.files().size() + " file(s)); not overwriting it: move it away or salvage into"
                            + " another directory");
                }
                for (CheckedCopy.Part part : copy.parts) {
                    requireSame(rangeDirectory.resolve(part.fileName()), part, who);
                }
                return salvaged(copied, copy, rangeDirectory, manifestFile);
            }
            refuseOtherSegments(rangeDirectory, copy, who);
            for (CheckedCopy.Part part : copy.parts) {
                Path segment = rangeDirectory.resolve(part.fileName());
                try {
                    DurableFiles.writeNew(segment, part.bytes());
                } catch (FileAlreadyExistsException e) {
                    // a copy stopped before its manifest, or another one: only the same bytes may stay
                    requireSame(segment, part, who);
                }
            }
            manifest(copied, copy, files).write(manifestFile);
            DurableFiles.syncDirectory(rangeDirectory);
        } catch (IOException | RuntimeException e) {
            throw new SalvageException(who + "cannot write the copy into " + rangeDirectory + ": " + e.getMessage(), e);
        }
        return salvaged(copied, copy, rangeDirectory, manifestFile);
    }

    private SalvageManifest manifest(CopiedBatches copied, CheckedCopy copy, List<SegmentFile> files) {
        DoomedRange range = copied.range();
        return new SalvageManifest(SalvageManifest.VERSION, tool,
                new SalvageManifest.PlanReference(plan.planFile(), plan.clusterId(), plan.planCreatedAt()),
                range.partition().topic(), Uuid.ZERO_UUID.equals(range.topicId()) ? null : range.topicId().toString(),
                range.partition().partition(), range.broker(),
                copied.sources().stream().map(SalvageStore::spelling).toList(),
                range.fromOffset(), range.toOffset(), range.lastWrittenLeaderEpoch(),
                copy.firstOffset, copy.lastOffset, copy.firstBatchLeaderEpoch, copy.lastBatchLeaderEpoch,
                copy.records, copy.batches, files, Instant.now());
    }

    /** How a source is named in manifests: "fetch_debug_replica". */
    static String spelling(SalvageSource source) {
        return source.name().toLowerCase(Locale.ROOT);
    }

    private static SalvagedFile salvaged(CopiedBatches copied, CheckedCopy copy, Path rangeDirectory, Path manifest) {
        List<ByteBuffer> parts = new ArrayList<>();
        copy.parts.forEach(p -> parts.add(p.bytes()));
        String sha256 = copy.parts.size() == 1 ? copy.parts.get(0).sha256() : CheckedCopy.sha256(parts);
        return new SalvagedFile(copied.range(), copied.sources(), rangeDirectory.resolve(copy.parts.get(0).fileName()),
                manifest, copy.firstOffset, copy.lastOffset, copy.records, copy.batches, copy.bytes, sha256);
    }

    /** A segment file of another copy would be read as part of this one by anyone listing the directory. */
    private static void refuseOtherSegments(Path rangeDirectory, CheckedCopy copy, String who)
            throws IOException, SalvageException {
        List<String> ours = copy.parts.stream().map(CheckedCopy.Part::fileName).toList();
        try (DirectoryStream<Path> logs = Files.newDirectoryStream(rangeDirectory, "*.log")) {
            for (Path log : logs) {
                if (!ours.contains(log.getFileName().toString())) {
                    throw new SalvageException(who + log + " is there from another copy of this replica (no manifest"
                            + " names it); not writing beside it: move it away or salvage into another directory");
                }
            }
        }
    }

    private static void requireSame(Path segment, CheckedCopy.Part part, String who)
            throws IOException, SalvageException {
        long size = Files.size(segment);
        if (size != part.bytes().remaining() || !part.sha256().equals(sha256(segment))) {
            throw new SalvageException(who + segment + " already exists with other bytes (" + size
                    + " bytes, the copy " + part.bytes().remaining() + "); not overwriting it: move it away or salvage"
                    + " into another directory");
        }
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
