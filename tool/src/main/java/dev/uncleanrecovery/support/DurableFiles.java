// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.support;

import dev.uncleanrecovery.UserInputException;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.IntFunction;

/**
 * Every file the tool writes and every one it removes: written aside, flushed, published under its name, and the
 * name flushed too. Published only under a free name: a file, a directory or a symbolic link already there is never
 * replaced nor written through ({@link #publish}, {@link #whyNotNew}); the one record the tool rewrites is its own
 * replay journal ({@link #update}). On Linux a new, renamed or removed name is durable only once its directory is
 * flushed (fsync(2) of the directory): a host crash right after a file "exists" can otherwise lose it whole. A step
 * that depends on a file (the reorder on its journal, the election on its plan and salvage) runs only after this.
 *
 * <p>And private: what the tool writes holds the records of the cluster's topics (salvage) and what it learned of
 * the cluster, so every file is created 0600 and every directory 0700, whatever the umask, with the permissions given
 * to the creating call itself (no window in which another user could open it). On a file system without POSIX
 * permissions (FAT, some network mounts) the file system's own defaults apply.
 */
public final class DurableFiles {

    private static final Set<PosixFilePermission> OWNER_READ_WRITE = PosixFilePermissions.fromString("rw-------");
    private static final Set<PosixFilePermission> OWNER_ONLY_DIRECTORY = PosixFilePermissions.fromString("rwx------");
    private static final Set<PosixFilePermission> OTHERS_MAY_WRITE = EnumSet.of(PosixFilePermission.GROUP_WRITE,
            PosixFilePermission.OTHERS_WRITE);

    /** A file's whole content, written to a stream the caller does not close. */
    @FunctionalInterface
    public interface Content {
        void writeTo(OutputStream out) throws IOException;
    }

    private DurableFiles() {
    }

    /**
     * Writes {@code bytes} under {@code target}, durably.
     *
     * @throws UserInputException when {@code target} cannot be a new file ({@link #whyNotNew}): it is never replaced
     */
    public static void writeNew(Path target, ByteBuffer bytes) throws IOException {
        writeNew(target, out -> {
            WritableByteChannel channel = Channels.newChannel(out);
            ByteBuffer remaining = bytes.duplicate();
            while (remaining.hasRemaining()) {
                channel.write(remaining);
            }
        });
    }

    /**
     * Writes {@code content} to a temporary file in {@code target}'s directory, forces it to the disk, links it under
     * {@code target} and flushes the directory. Refused before anything is written when the name is taken or its
     * directory is missing, and again by the link itself, which never replaces a name that appeared meanwhile.
     *
     * @throws UserInputException when {@code target} cannot be a new file ({@link #whyNotNew}): it is never replaced
     */
    public static void writeNew(Path target, Content content) throws IOException {
        Path absolute = target.toAbsolutePath();
        refuseTaken(target);
        try {
            Path temporary = writeAside(absolute, content);
            try {
                publish(temporary, absolute);
            } finally {
                Files.deleteIfExists(temporary);
            }
        } catch (IOException e) {
            refuseExplained(target, whyNotNew(target), e);
            throw e;
        }
        syncDirectory(absolute.getParent());
    }

    /**
     * Writes {@code content} under {@code target}, replacing the file there in one atomic rename; durably. Only for a
     * record the tool itself keeps up to date as it goes and reads back first (the replay journal: each version holds
     * the one before and one more range): every file a command creates for the operator is new ({@link #writeNew}).
     * Only a regular file is replaced: a rename over a symbolic link or a directory is refused.
     */
    public static void update(Path target, Content content) throws IOException {
        Path absolute = target.toAbsolutePath();
        if (Files.exists(absolute, LinkOption.NOFOLLOW_LINKS)
                && !Files.isRegularFile(absolute, LinkOption.NOFOLLOW_LINKS)) {
            throw new UserInputException(target + " is "
                    + BoundedFiles.describeType(absolute, LinkOption.NOFOLLOW_LINKS)
                    + ", not the tool's own record: move it away");
        }
        Path temporary = writeAside(absolute, content);
        try {
            try {
                Files.move(temporary, absolute, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temporary, absolute, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(temporary);
        }
        syncDirectory(absolute.getParent());
    }

    /**
     * Writes {@code content} under the first free name of {@code names} (1, 2, ...): a record of what was done is
     * never replaced by the next run's.
     *
     * @return where it was written
     */
    public static Path writeUnderFreeName(IntFunction<Path> names, Content content) throws IOException {
        Path first = names.apply(1).toAbsolutePath();
        Path temporary;
        try {
            temporary = writeAside(first, content);
        } catch (IOException e) {
            // the first name may be an earlier run's: only its directory can explain this
            refuseExplained(names.apply(1), whyNoFileIn(first.getParent()), e);
            throw e;
        }
        try {
            for (int n = 1; ; n++) {
                Path target = names.apply(n).toAbsolutePath();
                try {
                    publish(temporary, target);
                    syncDirectory(target.getParent());
                    return target;
                } catch (FileAlreadyExistsException taken) {
                    // an earlier run's: try the next name
                }
            }
        } finally {
            Files.deleteIfExists(temporary);
        }
    }

    /**
     * Removes {@code file} and flushes its directory, so that a crash cannot bring back a record the tool has acted
     * on as gone.
     *
     * @return whether it existed
     */
    public static boolean delete(Path file) throws IOException {
        Path absolute = file.toAbsolutePath();
        boolean existed = Files.deleteIfExists(absolute);
        if (existed) {
            syncDirectory(absolute.getParent());
        }
        return existed;
    }

    /** The content in a new temporary file beside {@code target}, forced to the disk. */
    private static Path writeAside(Path target, Content content) throws IOException {
        Path temporary = createTemporary(target);
        try (FileOutputStream out = new FileOutputStream(temporary.toFile())) {
            content.writeTo(out);
            out.flush();
            out.getFD().sync();
        } catch (IOException | RuntimeException | Error e) {
            Files.deleteIfExists(temporary);
            throw e;
        }
        return temporary;
    }

    /** A new, empty file beside {@code target} under a hidden temporary name, readable and writable by its owner only. */
    private static Path createTemporary(Path target) throws IOException {
        Path directory = target.getParent();
        return Files.createTempFile(directory, "." + target.getFileName() + ".", ".tmp", privateFile(directory));
    }

    /**
     * A new file for a log the tool appends to as it runs (the request log), created 0600 and opened for appending.
     * Never an existing file, and never through a symbolic link at {@code file}: another user's link could otherwise
     * point the tool's writes at any file it may write. Missing parent directories are created 0700.
     *
     * @throws FileAlreadyExistsException when {@code file} exists, a symbolic link included (even one to nothing)
     */
    public static OutputStream appendToNew(Path file) throws IOException {
        Path absolute = file.toAbsolutePath();
        createDirectories(absolute.getParent());
        FileChannel channel = FileChannel.open(absolute, Set.<OpenOption>of(StandardOpenOption.CREATE_NEW,
                StandardOpenOption.WRITE, StandardOpenOption.APPEND, LinkOption.NOFOLLOW_LINKS),
                privateFile(absolute.getParent()));
        try {
            syncDirectory(absolute.getParent());
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
        return Channels.newOutputStream(channel);
    }

    /**
     * Appends {@code line} (ending in a newline) to the log at {@code file} and forces it to the disk before returning:
     * opened with {@code O_APPEND}, never truncated or rewritten, so what earlier runs wrote stays as it was. A new log
     * is created 0600 (its missing directories 0700) and its name flushed into the directory; an existing one keeps
     * its mode. Never through a symbolic link at {@code file}, and only a regular file: another user's link or FIFO
     * there could otherwise redirect or stall the tool's writes.
     *
     * <p>Every line whole, or named as torn. The line goes in one {@code write(2)}: on a local file system an
     * {@code O_APPEND} write moves to the end and writes under the file's lock, so another process's append lands
     * before or after it, never inside. It can still end short (a full disk, the file size limit): the rest is never
     * written after it, where another process's line may already follow, and the torn part is ended with a newline
     * where the disk still takes one. A log whose last line has no newline (a write torn that way, a crash) gets one
     * in front of this line: the next line always starts on a line of its own.
     *
     * @throws IOException when the line is not whole on the disk: the message says how much of it was written
     */
    public static void appendLine(Path file, byte[] line) throws IOException {
        Path absolute = file.toAbsolutePath();
        createDirectories(absolute.getParent());
        FileChannel channel;
        boolean created;
        try {
            channel = FileChannel.open(absolute, Set.<OpenOption>of(StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.WRITE, StandardOpenOption.APPEND, LinkOption.NOFOLLOW_LINKS),
                    privateFile(absolute.getParent()));
            created = true;
        } catch (FileAlreadyExistsException exists) {
            if (!Files.isRegularFile(absolute, LinkOption.NOFOLLOW_LINKS)) {
                throw new FileSystemException(absolute.toString(), null, "not a regular file ("
                        + BoundedFiles.describeType(absolute, LinkOption.NOFOLLOW_LINKS) + "): the tool appends"
                        + " only to a regular file");
            }
            channel = FileChannel.open(absolute, Set.<OpenOption>of(StandardOpenOption.WRITE,
                    StandardOpenOption.APPEND, LinkOption.NOFOLLOW_LINKS));
            created = false;
        }
        try (FileChannel log = channel) {
            byte[] whole = endsInNewline(absolute, log) ? line : newlineFirst(line);
            int written = log.write(ByteBuffer.wrap(whole));
            if (written < whole.length) {
                throw torn(absolute, log, written, whole.length);
            }
            log.force(true);
        }
        if (created) {
            syncDirectory(absolute.getParent());
        }
    }

    /** Whether the log is empty or its last byte is a newline (read from the file, which APPEND cannot read). */
    private static boolean endsInNewline(Path file, FileChannel appending) throws IOException {
        long size = appending.size();
        if (size == 0) {
            return true;
        }
        try (FileChannel reading = FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            ByteBuffer last = ByteBuffer.allocate(1);
            return reading.read(last, size - 1) != 1 || last.get(0) == '\n';
        }
    }

    private static byte[] newlineFirst(byte[] line) {
        byte[] whole = new byte[line.length + 1];
        whole[0] = '\n';
        System.arraycopy(line, 0, whole, 1, line.length);
        return whole;
    }

    /**
     * A write that ended short: the torn part is ended with a newline if the disk still takes one byte, and the error
     * says how much was written and, from that newline's write, why the rest was not.
     */
    private static IOException torn(Path file, FileChannel log, int written, int length) {
        String why;
        try {
            why = log.write(ByteBuffer.wrap(new byte[] {'\n'})) == 1 ? "the torn part ends with a newline"
                    : "the torn part could not be ended";
            log.force(true);
        } catch (IOException e) {
            why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        }
        return new IOException(file + ": only " + written + " of the line's " + length + " bytes were written ("
                + why + ")");
    }

    /**
     * A new private (0600) file in the system's temporary directory holding {@code content}, for a program the tool
     * runs that reads only files (ssh-keygen's signature); the caller removes it with {@link #delete}. Scratch: not
     * flushed, nothing depends on it after the run.
     */
    public static Path scratch(String prefix, byte[] content) throws IOException {
        Path directory = Path.of(System.getProperty("java.io.tmpdir"));
        Path file = Files.createTempFile(directory, prefix, ".tmp", privateFile(directory));
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ByteBuffer remaining = ByteBuffer.wrap(content);
            while (remaining.hasRemaining()) {
                channel.write(remaining);
            }
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(file);
            throw e;
        }
        return file;
    }

    /**
     * Why {@code directory}, which exists, is no place for the tool's files: owned by another user, or writable by
     * its group or by anyone, so that someone else may put, replace or remove files in it. Empty when it is fine, and
     * where the file system cannot tell (no POSIX permissions).
     */
    public static Optional<String> whyNotPrivate(Path directory) throws IOException {
        if (!hasPosixPermissions(directory)) {
            return Optional.empty();
        }
        PosixFileAttributes attributes = Files.readAttributes(directory, PosixFileAttributes.class);
        if (!attributes.isDirectory()) {
            return Optional.of("is not a directory");
        }
        return whyOthersMayWrite(directory, attributes, false, ownerUid(directory));
    }

    /**
     * Why {@code file}, which the tool trusts to say who may do what (an allowed_signers file), may say what another
     * user wants: it, or a directory on its path (as given, and with its links resolved), is owned by a user other
     * than the one running the tool and root, or may be written by its group or by everyone; a directory with the
     * sticky bit (/tmp) excepted, where only an entry's owner may rename or remove it. OpenSSH's StrictModes judges
     * the files sshd trusts the same way. Empty when it is fine, and where the file system cannot tell.
     */
    public static Optional<String> whyOthersMayChange(Path file) throws IOException {
        Path given = file.toAbsolutePath().normalize();
        if (!hasPosixPermissions(given)) {
            return Optional.empty();
        }
        LinkedHashSet<Path> onItsPath = new LinkedHashSet<>();
        for (Path path : List.of(given, given.toRealPath())) {
            for (Path p = path; p != null; p = p.getParent()) {
                onItsPath.add(p);
            }
        }
        for (Path p : onItsPath) {
            PosixFileAttributes attributes = Files.readAttributes(p, PosixFileAttributes.class,
                    LinkOption.NOFOLLOW_LINKS);
            if (attributes.isSymbolicLink()) {
                continue; // its target is on the resolved path, and a link's own mode means nothing
            }
            Optional<String> why = whyOthersMayWrite(p, attributes, true, ownerUid(p, LinkOption.NOFOLLOW_LINKS));
            if (why.isPresent()) {
                return Optional.of(p.equals(given) ? why.get() : "is in " + p + ", which " + why.get());
            }
        }
        return Optional.empty();
    }

    /**
     * @param rootAndSticky a file or directory root owns counts as the user's own, and a directory with the sticky
     *                      bit may be written by others
     */
    private static Optional<String> whyOthersMayWrite(Path path, PosixFileAttributes attributes,
                                                      boolean rootAndSticky, Optional<Integer> owner) {
        Optional<Integer> me = OwnUid.VALUE;
        if (owner.isPresent() && me.isPresent() && !owner.get().equals(me.get())
                && !(rootAndSticky && owner.get() == 0)) {
            return Optional.of("is owned by " + attributes.owner().getName() + ", not by the user running the tool"
                    + (rootAndSticky ? " or root" : ""));
        }
        Set<PosixFilePermission> writable = EnumSet.copyOf(OTHERS_MAY_WRITE);
        writable.retainAll(attributes.permissions());
        if (!writable.isEmpty() && !(rootAndSticky && attributes.isDirectory() && isSticky(path))) {
            return Optional.of("is writable by " + (writable.contains(PosixFilePermission.OTHERS_WRITE) ? "every user"
                    : "its group") + " (mode " + PosixFilePermissions.toString(attributes.permissions()) + ")");
        }
        return Optional.empty();
    }

    /** The sticky bit (S_ISVTX), which PosixFilePermission does not carry; false where the file system cannot tell. */
    private static boolean isSticky(Path directory) {
        try {
            return ((Integer) Files.getAttribute(directory, "unix:mode", LinkOption.NOFOLLOW_LINKS) & 01000) != 0;
        } catch (UnsupportedOperationException | IllegalArgumentException | IOException e) {
            return false;
        }
    }

    private static Optional<Integer> ownerUid(Path path, LinkOption... options) {
        try {
            return Optional.of((Integer) Files.getAttribute(path, "unix:uid", options));
        } catch (UnsupportedOperationException | IllegalArgumentException | IOException e) {
            return Optional.empty();
        }
    }

    /** The uid the tool runs as, where the JDK can tell (jdk.security.auth on a Unix). */
    private static final class OwnUid {
        static final Optional<Integer> VALUE = read();

        private static Optional<Integer> read() {
            try {
                return Optional.of(Math.toIntExact(new com.sun.security.auth.module.UnixSystem().getUid()));
            } catch (LinkageError | RuntimeException e) {
                return Optional.empty();
            }
        }
    }

    private static boolean hasPosixPermissions(Path path) {
        return path.getFileSystem().supportedFileAttributeViews().contains("posix");
    }

    private static FileAttribute<?>[] privateFile(Path directory) {
        return hasPosixPermissions(directory)
                ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(OWNER_READ_WRITE)}
                : new FileAttribute<?>[0];
    }

    private static FileAttribute<?>[] privateDirectory(Path directory) {
        return hasPosixPermissions(directory)
                ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(OWNER_ONLY_DIRECTORY)}
                : new FileAttribute<?>[0];
    }

    /** A file for {@code target} whose content arrives in parts, written under a temporary name beside it. */
    public static NewFile create(Path target) throws IOException {
        Path absolute = target.toAbsolutePath();
        Path temporary = createTemporary(absolute);
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
     * or not at all and fails when the name is taken, even by a file created a moment ago (link(2): EEXIST, whatever
     * is there, a symbolic link to nothing included). Where links are not supported (FAT, some network mounts), the
     * name is claimed first by creating it new ({@code O_CREAT|O_EXCL}, never through a link) and the content renamed
     * onto that claim: a rename replaces what is at its target, so it only ever replaces the empty file just made. A
     * reader may then see that empty file for a moment, never another one's content replaced. The caller flushes the
     * directory.
     *
     * @throws FileAlreadyExistsException when {@code target} exists
     */
    public static void publish(Path temporary, Path target) throws IOException {
        try {
            Files.createLink(target, temporary);
            return;
        } catch (FileAlreadyExistsException e) {
            throw e;
        } catch (UnsupportedOperationException | FileSystemException e) {
            // no hard links here: claim the name below
        }
        claimAndRename(temporary, target);
    }

    /** The publication where hard links are not supported: the name claimed new, then the content renamed onto it. */
    static void claimAndRename(Path temporary, Path target) throws IOException {
        FileChannel.open(target, Set.<OpenOption>of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS), privateFile(target.getParent())).close();
        try {
            Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(target);
            throw e;
        }
    }

    /**
     * Why no new file can be created at {@code file}, in words that follow its path: something is there already (a
     * file, a directory, a symbolic link, even one to nothing), or its directory is missing or no directory. Empty when
     * the name is free in an existing directory. The tool creates every file it writes new, so each of these is the
     * operator's to change: exit 2, nothing written.
     */
    public static Optional<String> whyNotNew(Path file) {
        Path absolute = file.toAbsolutePath();
        BasicFileAttributes there;
        try {
            there = Files.readAttributes(absolute, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            there = null;
        }
        if (there != null) {
            String what = BoundedFiles.describe(absolute, there, LinkOption.NOFOLLOW_LINKS);
            if (there.isSymbolicLink()) {
                return Optional.of("is " + what + "; the tool never writes through a symbolic link: name a new file");
            }
            if (there.isDirectory()) {
                return Optional.of("is a directory: name a new file, not a directory");
            }
            return Optional.of("already exists" + (there.isRegularFile() ? "" : " (" + what + ")")
                    + "; the tool never writes over a file: name a new file, or move the old one away");
        }
        return whyNoFileIn(absolute.getParent());
    }

    /** Why no file can be created in {@code directory}: it is missing, or no directory. */
    static Optional<String> whyNoFileIn(Path directory) {
        if (!Files.exists(directory)) {
            return Optional.of("cannot be created: directory " + directory + " does not exist; create it, or name a"
                    + " file in an existing directory");
        }
        if (!Files.isDirectory(directory)) {
            return Optional.of("cannot be created: " + directory + " is not a directory; name a file in a directory");
        }
        return Optional.empty();
    }

    /** Refuses {@code target}, as the caller named it, when it cannot be a new file: before anything is written. */
    private static void refuseTaken(Path target) {
        Optional<String> why = whyNotNew(target);
        if (why.isPresent()) {
            throw new UserInputException(target + " " + why.get());
        }
    }

    /**
     * Refuses, as one line of bad input, a failure to create {@code target} that its path explains ({@code why}: the
     * name was taken or its directory went meanwhile; or permission denied); returns for any other, which the caller
     * throws as it is.
     */
    private static void refuseExplained(Path target, Optional<String> why, IOException e) {
        if (why.isPresent()) {
            throw new UserInputException(target + " " + why.get(), e);
        }
        if (e instanceof AccessDeniedException) {
            throw new UserInputException(target + " cannot be created: permission denied in directory "
                    + target.toAbsolutePath().getParent() + "; name a file in a directory you may write", e);
        }
    }

    /**
     * Creates {@code directory} and its missing parents, each 0700 and flushed into its parent. Directories that exist
     * are left as they are.
     */
    public static void createDirectories(Path directory) throws IOException {
        Path absolute = directory.toAbsolutePath();
        if (Files.isDirectory(absolute)) {
            return;
        }
        createDirectories(absolute.getParent());
        try {
            Files.createDirectory(absolute, privateDirectory(absolute));
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
