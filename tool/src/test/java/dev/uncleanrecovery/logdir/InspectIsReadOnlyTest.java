// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.logdir.LogDirFixture.Batches;
import dev.uncleanrecovery.logdir.LogDirFixture.Partition;
import dev.uncleanrecovery.logdir.LogDirFixture.Segment;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** inspect runs on the disks of a broker that must start again afterwards: it must change nothing there. */
public class InspectIsReadOnlyTest {

    @TempDir
    Path tmp;

    @Test
    void inspect_leaves_every_file_and_directory_of_the_log_dirs_as_it_found_them() throws IOException {
        LogDirFixture a = LogDirFixture.formatted(tmp.resolve("a"), 3).cleanShutdown(44)
                .logStartOffsets("intact 0 0").recoveryPoints("intact 0 0");
        LogDirFixture b = LogDirFixture.formatted(tmp.resolve("b"), 3);
        Partition intact = a.partition("intact", 0).leaderEpochs("0 0", "1 100");
        intact.segment(0).batch(0, 0, 100);
        Segment active = intact.segment(100);
        Batches.many(1, 100, 200, 5).forEach(active::append);
        active.preallocateIndex(1024 * 1024);
        Segment torn = b.partition("torn", 0).leaderEpochs("0 0").segment(0).batch(0, 0, 10).batch(0, 10, 10);
        try (var channel = java.nio.channels.FileChannel.open(torn.log, java.nio.file.StandardOpenOption.WRITE)) {
            channel.truncate(torn.size() - 9);
        }
        Segment garbageIndex = b.partition("garbage", 0).segment(0);
        Batches.many(0, 0, 100, 5).forEach(garbageIndex::append);
        Files.write(garbageIndex.index, new byte[] {9, 9, 9, 9, 9, 9, 9, 9, 1, 2, 3, 4, 5, 6, 7, 8});
        b.partition("zeroed", 0).segment(0).batch(0, 0, 3).appendRaw(new byte[8192]);
        b.mkdir("torn-0.0a9f8e7d6c5b4a3928170f6e5d4c3b2a-delete");
        ageEverything(tmp);
        Map<String, String> before = snapshot(tmp);

        LogDirReport report = new LogDirInspector().inspect(List.of(a.dir, b.dir), PartitionFilter.all());

        assertThat(report.partitions()).hasSize(4);
        assertThat(snapshot(tmp)).isEqualTo(before);
    }

    /** Moves every modification time to 2020, so that any write during the test shows as a change. */
    public static void ageEverything(Path root) throws IOException {
        FileTime old = FileTime.from(Instant.parse("2020-01-01T00:00:00Z"));
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : all.toList()) {
                Files.setLastModifiedTime(p, old);
            }
        }
    }

    /** Path → size, modification time, permissions and SHA-256 of the content, for files and directories. */
    public static Map<String, String> snapshot(Path root) throws IOException {
        Map<String, String> state = new TreeMap<>();
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : all.toList()) {
                String attributes = Files.getLastModifiedTime(p) + " " + Files.getPosixFilePermissions(p);
                if (Files.isRegularFile(p)) {
                    attributes += " " + Files.size(p) + " " + sha256(Files.readAllBytes(p));
                }
                state.put(root.relativize(p).toString(), attributes);
            }
        }
        return state;
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
