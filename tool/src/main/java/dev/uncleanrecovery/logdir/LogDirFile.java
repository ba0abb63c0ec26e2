// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

import dev.uncleanrecovery.support.BoundedFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;

/**
 * How inspect opens anything inside a log dir: regular files only, never through a symbolic link, text never beyond a
 * bound. A damaged or tampered disk can hold a FIFO (which blocks its reader), a device, a link out of the log dir or
 * a file of gigabytes under any name Kafka uses; each is refused with what it is instead.
 */
final class LogDirFile {

    /** partition.metadata, meta.properties and the clean-shutdown marker hold a few lines. */
    static final int SMALL_FILE_BYTES = 64 * 1024;

    private LogDirFile() {
    }

    /** Opens a regular file for reading; a symbolic link, FIFO, device or directory is refused. */
    static FileChannel open(Path file) throws IOException {
        return BoundedFiles.openRegular(file, LinkOption.NOFOLLOW_LINKS);
    }

    /**
     * A regular file of at most {@code maxBytes} as UTF-8 text, decoded as strictly as Kafka's readers decode it: bytes
     * that are not UTF-8 throw (a MalformedInputException, which is an IOException to Kafka as well).
     */
    static String text(Path file, int maxBytes) throws IOException {
        byte[] bytes = BoundedFiles.readAll(file, maxBytes, LinkOption.NOFOLLOW_LINKS);
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new IOException(file + " is not UTF-8 text (" + e + ")", e);
        }
    }

    /** The lines BufferedReader.readLine gives, as Kafka reads its text files: ended by \n, \r or \r\n. */
    static List<String> lines(String text) {
        return text.lines().toList();
    }

    /** What {@code path} is, without following a link: "a FIFO (named pipe)", "a symbolic link to /etc", ... */
    static String describeType(Path path) {
        try {
            return BoundedFiles.describeType(path, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            return "unreadable (" + e.getMessage() + ")";
        }
    }
}
