// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.support;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** Files that survive a crash the moment they exist: written aside, flushed, then published under their name. */
public final class DurableFiles {

    private DurableFiles() {
    }

    /**
     * Writes {@code bytes} to a temporary file in {@code target}'s directory, forces it to the disk, links it under
     * {@code target} and flushes the directory.
     *
     * @throws FileAlreadyExistsException when {@code target} exists: it is never replaced
     */
    public static void writeNew(Path target, ByteBuffer bytes) throws IOException {
        try (NewFile file = create(target)) {
            file.write(bytes);
            file.publish();
        }
        syncDirectory(target.toAbsolutePath().getParent());
    }

    /** A file for {@code target} whose content arrives in parts, written under a temporary name beside it. */
    public static NewFile create(Path target) throws IOException {
        Path absolute = target.toAbsolutePath();
        Path temporary = Files.createTempFile(absolute.getParent(), "." + absolute.getFileName() + ".", ".tmp");
        try {
            return new NewFile(absolute, temporary, FileChannel.open(temporary, StandardOpenOption.WRITE));
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(temporary);
            throw e;
        }
    }

    /**
     * A file being written under a temporary name in its target's directory: {@link #publish} puts it under its name
     * whole, {@link #close} removes the temporary name, so a write that fails leaves nothing behind. The temporary name
     * starts with a dot and ends in {@code .tmp}: no reader that lists its directory takes it for the file.
     */
    public static final class NewFile implements AutoCloseable {

        private final Path target;
        private final Path temporary;
        private FileChannel channel;
        private long size;

        private NewFile(Path target, Path temporary, FileChannel channel) {
            this.target = target;
            this.temporary = temporary;
            this.channel = channel;
        }

        public Path target() {
            return target;
        }

        /** Bytes written so far. */
        public long size() {
            return size;
        }

        /** Appends {@code bytes} (from its position to its limit, which are left as they were). */
        public void write(ByteBuffer bytes) throws IOException {
            if (channel == null) {
                throw new IllegalStateException(target + " is already complete");
            }
            ByteBuffer remaining = bytes.duplicate();
            while (remaining.hasRemaining()) {
                size += channel.write(remaining);
            }
        }

        /** Forces the content to the disk and closes the file: nothing more is written to it. */
        public void complete() throws IOException {
            if (channel != null) {
                channel.force(true);
                channel.close();
                channel = null;
            }
        }

        /**
         * Completes the file and links it under its target, never over an existing file; the directory is not
         * flushed here (one {@link #syncDirectory} covers every file published into it).
         *
         * @throws FileAlreadyExistsException when the target exists
         */
        public void publish() throws IOException {
            complete();
            DurableFiles.publish(temporary, target);
        }

        /** Removes the temporary name; a published file stays under its target. */
        @Override
        public void close() throws IOException {
            try {
                if (channel != null) {
                    channel.close();
                    channel = null;
                }
            } finally {
                Files.deleteIfExists(temporary);
            }
        }
    }

    /**
     * Puts the finished {@code temporary} under {@code target}, never over an existing file. A hard link appears whole
     * or not at all and fails when the name is taken, even by a file created a moment ago; a rename (atomic on one
     * file system) where links are not supported, after checking the name is free.
     *
     * @throws FileAlreadyExistsException when {@code target} exists
     */
    public static void publish(Path temporary, Path target) throws IOException {
        try {
            Files.createLink(target, temporary);
        } catch (FileAlreadyExistsException e) {
            throw e;
        } catch (UnsupportedOperationException | FileSystemException e) {
            if (Files.exists(target)) {
                throw new FileAlreadyExistsException(target.toString());
            }
            Files.move(temporary, target, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        }
    }

    /** Creates {@code directory} and its missing parents, each new entry flushed into its parent. */
    public static void createDirectories(Path directory) throws IOException {
        Path absolute = directory.toAbsolutePath();
        if (Files.isDirectory(absolute)) {
            return;
        }
        createDirectories(absolute.getParent());
        try {
            Files.createDirectory(absolute);
        } catch (FileAlreadyExistsException e) {
            if (!Files.isDirectory(absolute)) {
                throw e;
            }
        }
        syncDirectory(absolute.getParent());
    }

    /** On Linux a new name is durable only once its directory is flushed too (fsync(2) on the directory). */
    public static void syncDirectory(Path directory) throws IOException {
        try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (IOException e) {
            // Some platforms cannot open a directory for reading; there the rename is as durable as it gets.
            if (!System.getProperty("os.name", "").startsWith("Windows")) {
                throw e;
            }
        }
    }
}
