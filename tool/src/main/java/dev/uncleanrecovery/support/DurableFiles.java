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
        Path directory = target.toAbsolutePath().getParent();
        Path temporary = Files.createTempFile(directory, "." + target.getFileName() + ".", ".tmp");
        try {
            try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.WRITE)) {
                ByteBuffer remaining = bytes.duplicate();
                while (remaining.hasRemaining()) {
                    channel.write(remaining);
                }
                channel.force(true);
            }
            publish(temporary, target);
        } finally {
            Files.deleteIfExists(temporary);
        }
        syncDirectory(directory);
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
