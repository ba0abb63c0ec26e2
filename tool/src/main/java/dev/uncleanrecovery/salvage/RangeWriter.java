// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.salvage;

import dev.uncleanrecovery.formats.SalvageManifest;
import dev.uncleanrecovery.formats.SalvageManifest.SegmentFile;
import dev.uncleanrecovery.support.DurableFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;

/**
 * One doomed range written into its directory of a {@link SalvageStore} as its batches arrive, so that memory holds
 * one read at a time however large the range is. Each batch is checked as it comes ({@link CheckedCopy}), appended to
 * a segment file under a temporary name and hashed on the way; a new file starts at the batch that would make the
 * current one larger than the store's file size. Only a whole range is published: its files forced to the disk and
 * linked under their names (never over another file), the directory flushed, then the manifest. {@link #close}
 * removes whatever a copy that did not finish wrote.
 *
 * <p>Not thread-safe: one reader feeds one writer.
 */
public final class RangeWriter implements AutoCloseable {

    /** One segment file of the copy: whole batches from {@code baseOffset} on. */
    private static final class Part {
        final long baseOffset;
        final DurableFiles.NewFile file;
        final MessageDigest digest = CheckedCopy.digest();
        String sha256;

        Part(long baseOffset, DurableFiles.NewFile file) {
            this.baseOffset = baseOffset;
            this.file = file;
        }

        String fileName() {
            return fileName(baseOffset);
        }

        /** Kafka's segment file name: the base offset in 20 digits. */
        static String fileName(long baseOffset) {
            return String.format("%020d.log", baseOffset);
        }
    }

    private final SalvageStore store;
    private final DoomedRange range;
    private final Path directory;
    private final long maxFileBytes;
    private final CheckedCopy checks;
    private final List<Part> parts = new ArrayList<>();
    /**
     * The SHA-256 of all files joined, from the second file on: the first file's digest carried on. Each byte is hashed
     * once while the copy fits one file (SHA-256 costs seconds a GiB under the launcher's client compiler).
     */
    private MessageDigest whole;
    /** Files this writer linked under their names: removed again when the copy fails before its manifest. */
    private final List<Path> published = new ArrayList<>();

    RangeWriter(SalvageStore store, DoomedRange range, long maxFileBytes) {
        this.store = store;
        this.range = range;
        this.directory = store.rangeDirectory(range);
        this.maxFileBytes = maxFileBytes;
        this.checks = new CheckedCopy(range);
    }

    public DoomedRange range() {
        return range;
    }

    /**
     * Checks and writes {@code read}: whole record batches as the replica stores them, following those appended before.
     * Nothing of {@code read} is kept once this returns, so the caller may reuse it.
     *
     * @throws SalvageException when a batch fails a check or the file cannot be written; the copy cannot go on
     */
    public void append(ByteBuffer read) throws SalvageException {
        ByteBuffer bytes = read.slice();
        var batches = MemoryRecords.readableRecords(bytes.duplicate()).batches().iterator();
        int position = 0;
        int runStart = 0;
        try {
            MutableRecordBatch batch;
            while ((batch = checks.next(batches)) != null) {
                checks.take(batch);
                int size = batch.sizeInBytes();
                Part current = parts.isEmpty() ? null : parts.get(parts.size() - 1);
                long currentSize = current == null ? 0 : current.file.size() + (position - runStart);
                // a file of one batch may be larger: Kafka's segments are at most 1 GiB, FileRecords reads int positions
                if (current == null || (currentSize > 0 && currentSize + size > maxFileBytes)) {
                    write(bytes, runStart, position);
                    startPart(batch.baseOffset());
                    runStart = position;
                }
                position += size;
            }
            checks.requireWhole(bytes.remaining() - position);
            write(bytes, runStart, position);
        } catch (IOException | RuntimeException e) {
            throw cannotWrite(e);
        }
    }

    /**
     * Publishes the copy once it covers the range whole, and returns where it lies. A copy already there with the same
     * files (a re-run of the same plan) is returned as it is.
     *
     * @param sources how the batches were read, in order
     * @throws SalvageException when the copy is not whole, another copy of the range is there, or writing fails
     */
    public SalvagedFile finish(List<SalvageSource> sources) throws SalvageException {
        checks.requireComplete();
        Path manifestFile = directory.resolve(SalvageManifest.FILE_NAME);
        try {
            List<SegmentFile> files = new ArrayList<>();
            for (Part part : parts) {
                part.file.complete();
                part.sha256 = HexFormat.of().formatHex(part.digest.digest());
                files.add(new SegmentFile(part.fileName(), part.file.size(), part.sha256));
            }
            if (Files.exists(manifestFile)) {
                SalvageManifest existing = SalvageManifest.read(manifestFile);
                if (!existing.files().equals(files)) {
                    throw new SalvageException(checks.who() + manifestFile + " already describes another copy of this"
                            + " replica (offsets " + existing.firstOffset() + " to " + existing.lastOffset() + ", "
                            + existing.files().size() + " file(s)); not overwriting it: move it away or salvage into"
                            + " another directory");
                }
                for (Part part : parts) {
                    requireSame(part);
                }
                return salvaged(sources, manifestFile);
            }
            refuseOtherSegments();
            for (Part part : parts) {
                try {
                    part.file.publish();
                    published.add(part.file.target());
                } catch (FileAlreadyExistsException e) {
                    // a copy stopped before its manifest, or another one: only the same bytes may stay
                    requireSame(part);
                }
            }
            DurableFiles.syncDirectory(directory);
            store.manifest(range, sources, checks, files).write(manifestFile);
            DurableFiles.syncDirectory(directory);
            published.clear();
            return salvaged(sources, manifestFile);
        } catch (SalvageException e) {
            unpublish(e);
            throw e;
        } catch (IOException | RuntimeException e) {
            SalvageException failure = cannotWrite(e);
            unpublish(failure);
            throw failure;
        }
    }

    /** Removes the temporary files; a published copy stays. */
    @Override
    public void close() {
        for (Part part : parts) {
            try {
                part.file.close();
            } catch (IOException e) {
                // a temporary name that cannot be removed is hidden (.name.tmp) and named by no manifest
            }
        }
    }

    private void startPart(long baseOffset) throws IOException {
        if (parts.isEmpty()) {
            refuseSharedBelow(store.directory());
            DurableFiles.createDirectories(directory);
        } else {
            Part previous = parts.get(parts.size() - 1);
            previous.file.complete();
            if (whole == null) {
                whole = carriedOn(previous.digest);
            }
        }
        parts.add(new Part(baseOffset, DurableFiles.create(directory.resolve(Part.fileName(baseOffset)))));
    }

    /**
     * The directories between the store's and this range's that exist already are private too: files written into a
     * directory others may write could be swapped after they are checked.
     */
    private void refuseSharedBelow(Path storeDirectory) throws IOException {
        for (Path d = directory; d != null && d.startsWith(storeDirectory); d = d.getParent()) {
            if (Files.isDirectory(d)) {
                Optional<String> why = DurableFiles.whyNotPrivate(d);
                if (why.isPresent()) {
                    throw new IOException(d + " " + why.get() + "; salvage only into directories that only you may"
                            + " write");
                }
            }
        }
    }

    private void write(ByteBuffer bytes, int from, int to) throws IOException {
        if (to == from) {
            return;
        }
        ByteBuffer run = bytes.duplicate().position(from).limit(to);
        Part current = parts.get(parts.size() - 1);
        current.file.write(run);
        current.digest.update(run.duplicate());
        if (whole != null) {
            whole.update(run);
        }
    }

    private static MessageDigest carriedOn(MessageDigest digest) {
        try {
            return (MessageDigest) digest.clone();
        } catch (CloneNotSupportedException e) {
            throw new IllegalStateException("the JDK's SHA-256 can be cloned", e);
        }
    }

    private SalvagedFile salvaged(List<SalvageSource> sources, Path manifestFile) throws IOException {
        String sha256 = whole == null ? parts.get(0).sha256 : HexFormat.of().formatHex(whole.digest());
        return new SalvagedFile(range, sources, directory.resolve(parts.get(0).fileName()), manifestFile,
                checks.firstOffset, checks.lastOffset, checks.records, checks.batches, checks.bytes, sha256,
                SalvageStore.sha256(manifestFile));
    }

    /** A segment file of another copy would be read as part of this one by anyone listing the directory. */
    private void refuseOtherSegments() throws IOException, SalvageException {
        List<String> ours = parts.stream().map(Part::fileName).toList();
        try (DirectoryStream<Path> logs = Files.newDirectoryStream(directory, "*.log")) {
            for (Path log : logs) {
                if (!ours.contains(log.getFileName().toString())) {
                    throw new SalvageException(checks.who() + log + " is there from another copy of this replica (no"
                            + " manifest names it); not writing beside it: move it away or salvage into another"
                            + " directory");
                }
            }
        }
    }

    private void requireSame(Part part) throws IOException, SalvageException {
        Path segment = part.file.target();
        long size = Files.size(segment);
        if (size != part.file.size() || !Objects.equals(part.sha256, SalvageStore.sha256(segment))) {
            throw new SalvageException(checks.who() + segment + " already exists with other bytes (" + size
                    + " bytes, the copy " + part.file.size() + "); not overwriting it: move it away or salvage into"
                    + " another directory");
        }
    }

    /** A copy that fails leaves no file of its own under a segment name: no manifest would ever name it. */
    private void unpublish(SalvageException failure) {
        try {
            for (Path file : published) {
                DurableFiles.delete(file);
            }
        } catch (IOException e) {
            failure.addSuppressed(e);
        }
        published.clear();
    }

    private SalvageException cannotWrite(Exception e) {
        return new SalvageException(checks.who() + "cannot write the copy into " + directory + ": " + e.getMessage(),
                e);
    }
}
