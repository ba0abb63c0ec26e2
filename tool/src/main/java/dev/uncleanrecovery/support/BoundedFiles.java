// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.support;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

/**
 * Opens and reads files that come from a damaged disk or a mistyped path: only regular files, never more than a
 * bound. A FIFO blocks the reader until a writer comes, a device like {@code /dev/zero} never ends, and a file of
 * gigabytes read whole takes the heap: each is refused with a message naming the file and what it is instead.
 *
 * <p>The type is checked before the file is opened (opening a FIFO for reading already blocks). Pass
 * {@link LinkOption#NOFOLLOW_LINKS} to refuse symbolic links too; the file is then also opened with it.
 */
public final class BoundedFiles {

    private static final int S_IFMT = 0170000;
    private static final int S_IFIFO = 0010000;
    private static final int S_IFCHR = 0020000;
    private static final int S_IFBLK = 0060000;
    private static final int S_IFSOCK = 0140000;

    /** The file is not a regular file; its reason says what it is. */
    public static final class NotRegularFileException extends FileSystemException {
        public NotRegularFileException(Path file, String what) {
            super(file.toString(), null, "is " + what + ", not a regular file");
        }

        @Override
        public String getMessage() {
            return getFile() + " " + getReason();
        }
    }

    /** The file is larger than the caller reads. */
    public static final class TooLargeException extends FileSystemException {
        public TooLargeException(Path file, long size, long maxBytes) {
            super(file.toString(), null, "holds " + size + " bytes, more than the " + maxBytes
                    + " such a file can sensibly hold; it was not read");
        }

        @Override
        public String getMessage() {
            return getFile() + " " + getReason();
        }
    }

    private BoundedFiles() {
    }

    /**
     * What {@code path} is, in words: "a regular file", "a directory", "a symbolic link to /etc", "a FIFO (named
     * pipe)", "a socket", "a character device", "a block device".
     */
    public static String describeType(Path path, LinkOption... options) throws IOException {
        BasicFileAttributes attributes = Files.readAttributes(path, BasicFileAttributes.class, options);
        return describe(path, attributes, options);
    }

    /** Like {@link #describeType(Path, LinkOption...)}, for attributes already read with the same options. */
    public static String describe(Path path, BasicFileAttributes attributes, LinkOption... options) {
        if (attributes.isRegularFile()) {
            return "a regular file";
        }
        if (attributes.isDirectory()) {
            return "a directory";
        }
        if (attributes.isSymbolicLink()) {
            try {
                return "a symbolic link to " + Files.readSymbolicLink(path);
            } catch (IOException | UnsupportedOperationException e) {
                return "a symbolic link";
            }
        }
        try {
            int type = (Integer) Files.getAttribute(path, "unix:mode", options) & S_IFMT;
            return switch (type) {
                case S_IFIFO -> "a FIFO (named pipe)";
                case S_IFCHR -> "a character device";
                case S_IFBLK -> "a block device";
                case S_IFSOCK -> "a socket";
                default -> "a special file";
            };
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return "a special file";
        }
    }

    /**
     * Opens {@code file} for reading, once it is known to be a regular file.
     *
     * @throws NotRegularFileException when it is anything else (with {@code NOFOLLOW_LINKS}: a symbolic link too)
     */
    public static FileChannel openRegular(Path file, LinkOption... options) throws IOException {
        BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class, options);
        if (!attributes.isRegularFile()) {
            throw new NotRegularFileException(file, describe(file, attributes, options));
        }
        Set<java.nio.file.OpenOption> open = new HashSet<>(Arrays.asList(options));
        open.add(StandardOpenOption.READ);
        return FileChannel.open(file, open);
    }

    /**
     * The whole content of a regular file of at most {@code maxBytes}.
     *
     * @throws NotRegularFileException when it is not a regular file
     * @throws TooLargeException       when it is larger, or grows larger while it is read
     */
    public static byte[] readAll(Path file, int maxBytes, LinkOption... options) throws IOException {
        try (FileChannel channel = openRegular(file, options)) {
            long size = channel.size();
            if (size > maxBytes) {
                throw new TooLargeException(file, size, maxBytes);
            }
            // One byte more than the size shows a file that grew while it was read.
            ByteBuffer buffer = ByteBuffer.allocate((int) size + 1);
            while (buffer.hasRemaining() && channel.read(buffer) >= 0) {
                // read until the end of the file or a full buffer
            }
            if (buffer.position() > size) {
                throw new IOException(file + " grew while it was read; is something still writing to it?");
            }
            return Arrays.copyOf(buffer.array(), buffer.position());
        }
    }
}
