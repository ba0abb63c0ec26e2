// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.support;

import dev.uncleanrecovery.formats.ReorderJournal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

/**
 * Run under strace by {@link DurableFilesSyscallTest}: each way the tool creates, updates or removes a name, with a
 * marker between them (a look-up of a path that does not exist) so the trace shows which syscalls each one made.
 */
public final class DurableFilesSyscalls {

    private DurableFilesSyscalls() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        mark(dir, "journal-written");
        Path journal = dir.resolve("plan-journal.json");
        ReorderJournal.write(journal, new ReorderJournal(ReorderJournal.VERSION, "cluster", "plan.json",
                "0".repeat(64), Instant.now(), "host", 1, null, null, null, List.of(new ReorderJournal.Reorder("orders", 0, 2, 5, List.of(1, 3, 2), List.of(2, 3, 1)))));
        mark(dir, "journal-deleted");
        DurableFiles.delete(journal);
        mark(dir, "updated");
        DurableFiles.update(dir.resolve("replay-into-orders.json"),
                out -> out.write("{}\n".getBytes(StandardCharsets.UTF_8)));
        mark(dir, "written-new");
        DurableFiles.writeNew(dir.resolve("00000000000000000000.log"), ByteBuffer.wrap(new byte[] {1, 2, 3}));
        mark(dir, "written-under-free-name");
        DurableFiles.writeUnderFreeName(n -> dir.resolve("result-" + n + ".json"), out -> out.write('x'));
        mark(dir, "directory-created");
        DurableFiles.createDirectories(dir.resolve("salvage").resolve("orders-0"));
        mark(dir, "end");
    }

    private static void mark(Path dir, String step) {
        Files.exists(dir.resolve("marker-" + step));
    }
}
