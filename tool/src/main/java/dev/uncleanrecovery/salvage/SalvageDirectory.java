// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.salvage;

import dev.uncleanrecovery.UserInputException;
import dev.uncleanrecovery.formats.SalvageManifest;
import dev.uncleanrecovery.formats.Sha256;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * A salvage directory read back: every manifest under it, each of its files checked against the manifest's size and
 * SHA-256 before anything is read from it. Any mismatch is bad input, in one line naming the file.
 */
public final class SalvageDirectory {

    /**
     * One salvaged range: the manifest and its segment files, checked.
     *
     * @param manifestSha256 SHA-256 of the manifest file's bytes, the ones parsed into {@code manifest}
     */
    public record SalvagedRange(DoomedRange range, List<SalvageSource> sources, SalvageManifest manifest,
                                Path manifestFile, String manifestSha256, List<Path> segments) {

        public SalvagedRange {
            sources = List.copyOf(sources);
            segments = List.copyOf(segments);
        }

        /** The copy as {@link SalvageStore#write} describes what it wrote (a re-run finding it there). */
        public SalvagedFile asSalvagedFile() {
            String sha256 = manifest.files().size() == 1 ? manifest.files().get(0).sha256()
                    : sha256(segments.toArray(Path[]::new));
            return new SalvagedFile(range, sources, segments.get(0), manifestFile, manifest.firstOffset(),
                    manifest.lastOffset(), manifest.records(), manifest.batches(),
                    manifest.files().stream().mapToLong(SalvageManifest.SegmentFile::bytes).sum(), sha256,
                    manifestSha256);
        }

        private static String sha256(Path... files) {
            try {
                return SalvageStore.sha256(files);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /**
         * Why this copy cannot stand for {@code range} of the cluster {@code clusterId}, or empty when it can. A copy
         * found by topic name, partition and broker may be of another incident; it stands for the range only when it
         * is of the same log:
         * <ul>
         *   <li>made in the same cluster (the manifest's plan names the cluster id);</li>
         *   <li>of the same topic id, when the range has one: a topic deleted and re-created under its name has
         *       another, and a manifest without one cannot be told from it;</li>
         *   <li>its offsets cover the range's;</li>
         *   <li>when the range's last written epoch E is known: the copy's last batch is of no newer epoch than E, as
         *       {@link RangeWriter} requires of a copy it writes (a replica made leader caches its epoch before it
         *       writes a batch of it, KIP-101, so the last batch may be older than E, never newer); and the epoch the
         *       copy recorded as the replica's latest is not newer than E either: a replica's epoch cache only grows
         *       until its log is truncated, so a newer one there means the log was cut and written again since.</li>
         * </ul>
         */
        public Optional<String> mismatch(DoomedRange range, String clusterId) {
            String copyCluster = manifest.plan().clusterId();
            if (!Objects.equals(copyCluster, clusterId)) {
                return Optional.of(copyCluster == null ? "names no cluster, this plan's is " + clusterId
                        + ": it cannot be told from another cluster's"
                        : "was made in cluster " + copyCluster + ", this plan's is " + clusterId
                        + ": another cluster's log");
            }
            if (!Uuid.ZERO_UUID.equals(range.topicId())) {
                if (manifest.topicId() == null) {
                    return Optional.of("names no topic id, this plan's topic has " + range.topicId() + ": it cannot be"
                            + " told from a topic deleted and re-created under its name");
                }
                if (!manifest.topicId().equals(range.topicId().toString())) {
                    return Optional.of("is of topic id " + manifest.topicId() + ", this plan's topic has "
                            + range.topicId() + ": a topic deleted and re-created under its name");
                }
            }
            if (manifest.fromOffset() > range.fromOffset() || manifest.toOffset() < range.toOffset()) {
                return Optional.of("holds [" + manifest.fromOffset() + ".." + manifest.toOffset() + "), not all of ["
                        + range.fromOffset() + ".." + range.toOffset() + ")");
            }
            int planned = range.lastWrittenLeaderEpoch();
            if (planned >= 0 && manifest.lastBatchLeaderEpoch() > planned) {
                return Optional.of("ends in a batch of leader epoch " + manifest.lastBatchLeaderEpoch() + ", newer than"
                        + " the epoch " + planned + " the plan saw on the replica: written after the plan's probe");
            }
            if (planned >= 0 && manifest.lastWrittenLeaderEpoch() > planned) {
                return Optional.of("was made when the replica's latest epoch was " + manifest.lastWrittenLeaderEpoch()
                        + ", the plan saw " + planned + ": the log was truncated and written again since");
            }
            return Optional.empty();
        }

        /** "orders-3 broker 2 [1042, 1059)", for people. */
        public String describe() {
            return range.partition() + " broker " + range.broker() + " [" + range.fromOffset() + ", "
                    + range.toOffset() + ")";
        }

        /**
         * Every batch of the copy in offset order, each CRC checked again: the files are read where they lie, so a
         * change after {@link #read} is still noticed.
         *
         * @throws UserInputException when a batch is corrupt or the files do not hold what the manifest says
         */
        public void forEachBatch(Consumer<RecordBatch> visitor) {
            long batches = 0;
            long lastOffset = -1;
            for (Path segment : segments) {
                try (FileRecords records = FileRecords.open(segment.toFile(), false, true, 0, false)) {
                    for (RecordBatch batch : records.batches()) {
                        try {
                            batch.ensureValid();
                        } catch (CorruptRecordException e) {
                            throw new UserInputException(segment + ": the batch at offset " + batch.baseOffset()
                                    + " is corrupt (" + e.getMessage() + "); not replaying it", e);
                        }
                        batches++;
                        lastOffset = batch.lastOffset();
                        visitor.accept(batch);
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(segment + ": " + e.getMessage(), e);
                } catch (CorruptRecordException e) {
                    throw new UserInputException(segment + ": not a readable segment file (" + e.getMessage() + ")", e);
                }
            }
            if (batches != manifest.batches() || lastOffset != manifest.lastOffset()) {
                throw new UserInputException(manifestFile + ": names " + manifest.batches() + " batches up to offset "
                        + manifest.lastOffset() + ", its files hold " + batches + " up to " + lastOffset);
            }
        }
    }

    /** A manifest names a few segment files: far below this. */
    private static final long MAX_MANIFEST_BYTES = 1 << 20;

    private final Path directory;
    private final List<SalvagedRange> ranges;

    private SalvageDirectory(Path directory, List<SalvagedRange> ranges) {
        this.directory = directory;
        this.ranges = List.copyOf(ranges);
    }

    /**
     * Reads every {@code manifest.json} under {@code directory} and checks each file it names.
     *
     * @throws UserInputException when the directory others may write ({@link SalvageStore#refuseShared}) or holds no
     *                            manifest, a manifest is malformed, or a file is missing or differs from its manifest
     */
    public static SalvageDirectory read(Path directory) {
        if (!Files.isDirectory(directory)) {
            throw new UserInputException("--salvage-dir " + directory + " is not a directory");
        }
        SalvageStore.refuseShared(directory);
        List<Path> manifests;
        // <dir>/<topic>-<partition>/broker-<id>/manifest.json
        try (Stream<Path> files = Files.walk(directory, 3)) {
            manifests = files.filter(f -> f.getFileName().toString().equals(SalvageManifest.FILE_NAME))
                    .sorted(Comparator.naturalOrder()).toList();
        } catch (IOException | UncheckedIOException e) {
            throw new UserInputException("--salvage-dir " + directory + " cannot be read: " + e.getMessage(), e);
        }
        if (manifests.isEmpty()) {
            throw new UserInputException("--salvage-dir " + directory + " holds no " + SalvageManifest.FILE_NAME
                    + "; name the directory 'execute' salvaged into (<plan>-salvage by default)");
        }
        List<SalvagedRange> ranges = new ArrayList<>();
        for (Path manifestFile : manifests) {
            ranges.add(check(manifestFile));
        }
        ranges.sort(Comparator.comparing((SalvagedRange r) -> r.range().partition().topic())
                .thenComparingInt(r -> r.range().partition().partition())
                .thenComparingInt(r -> r.range().broker()));
        return new SalvageDirectory(directory, ranges);
    }

    public Path directory() {
        return directory;
    }

    /** The same directory with {@code left} not among its ranges: ranges replay leaves where they are. */
    public SalvageDirectory without(List<SalvagedRange> left) {
        return new SalvageDirectory(directory, ranges.stream().filter(r -> !left.contains(r)).toList());
    }

    /** Ordered by topic, partition and broker. */
    public List<SalvagedRange> ranges() {
        return ranges;
    }

    private static SalvagedRange check(Path manifestFile) {
        SalvageManifest manifest;
        String manifestSha256;
        try {
            // read once: the bytes hashed are the bytes parsed
            if (Files.size(manifestFile) > MAX_MANIFEST_BYTES) {
                throw new UserInputException(manifestFile + ": " + Files.size(manifestFile) + " bytes, no manifest the"
                        + " tool writes is larger than " + MAX_MANIFEST_BYTES + "; not reading it");
            }
            byte[] content = Files.readAllBytes(manifestFile);
            manifest = SalvageManifest.parse(manifestFile.toString(), content);
            manifestSha256 = Sha256.hex(content);
        } catch (IOException e) {
            throw new UserInputException(manifestFile + ": cannot be read: " + e.getMessage(), e);
        }
        List<Path> segments = new ArrayList<>();
        for (SalvageManifest.SegmentFile file : manifest.files()) {
            Path segment = manifestFile.resolveSibling(file.name());
            try {
                if (!Files.isRegularFile(segment)) {
                    throw new UserInputException(segment + ": missing, but " + manifestFile + " names it");
                }
                long size = Files.size(segment);
                if (size != file.bytes()) {
                    throw new UserInputException(segment + ": " + size + " bytes, the manifest says " + file.bytes()
                            + "; the file changed after it was salvaged, not replaying it");
                }
                if (!SalvageStore.sha256(segment).equals(file.sha256())) {
                    throw new UserInputException(segment + ": SHA-256 differs from the manifest's; the file changed"
                            + " after it was salvaged, not replaying it");
                }
            } catch (IOException e) {
                throw new UserInputException(segment + ": cannot be read: " + e.getMessage(), e);
            }
            segments.add(segment);
        }
        DoomedRange range;
        try {
            range = new DoomedRange(new TopicPartition(manifest.topic(), manifest.partition()),
                    manifest.topicId() == null ? Uuid.ZERO_UUID : Uuid.fromString(manifest.topicId()),
                    manifest.broker(), manifest.fromOffset(), manifest.toOffset(), manifest.lastWrittenLeaderEpoch());
        } catch (IllegalArgumentException e) {
            throw new UserInputException(manifestFile + ": " + e.getMessage(), e);
        }
        return new SalvagedRange(range, sources(manifestFile, manifest.sources()), manifest, manifestFile,
                manifestSha256, segments);
    }

    private static List<SalvageSource> sources(Path manifestFile, List<String> names) {
        List<SalvageSource> sources = new ArrayList<>();
        for (String name : names) {
            try {
                sources.add(SalvageSource.valueOf(name.toUpperCase(Locale.ROOT)));
            } catch (IllegalArgumentException e) {
                throw new UserInputException(manifestFile + ": sources names '" + name + "', which is none of "
                        + Stream.of(SalvageSource.values()).map(SalvageStore::spelling).toList(), e);
            }
        }
        return sources;
    }
}
