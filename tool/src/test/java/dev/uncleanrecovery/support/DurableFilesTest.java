// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.uncleanrecovery.UserInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every file is published under a free name only: what is there (a file, a directory, a symbolic link, even one to
 * nothing) stays as it was, byte for byte, and no temporary file is left; a missing directory is named in one line.
 */
class DurableFilesTest {

    private static final byte[] EARLIER = "an earlier run's file\n".getBytes(StandardCharsets.UTF_8);
    private static final DurableFiles.Content NEW = out -> out.write("new\n".getBytes(StandardCharsets.UTF_8));

    @TempDir
    Path dir;

    @Test
    void a_new_file_is_never_written_over_what_is_there() throws Exception {
        Path file = Files.write(dir.resolve("plan.json"), EARLIER);
        Path elsewhere = Files.write(dir.resolve("someone-elses.conf"), EARLIER);
        Path link = Files.createSymbolicLink(dir.resolve("page.html"), elsewhere);
        Path dangling = Files.createSymbolicLink(dir.resolve("dangling.html"), dir.resolve("not-yet"));
        Path directory = Files.createDirectory(dir.resolve("out"));

        for (Path taken : List.of(file, link, dangling, directory)) {
            assertThatThrownBy(() -> DurableFiles.writeNew(taken, NEW)).as(taken.toString())
                    .isInstanceOf(UserInputException.class).hasMessageStartingWith(taken + " ")
                    .hasMessageContaining("name a new file");
        }

        assertThat(Files.readAllBytes(file)).isEqualTo(EARLIER);
        assertThat(Files.readAllBytes(elsewhere)).isEqualTo(EARLIER);
        assertThat(Files.readSymbolicLink(link)).isEqualTo(elsewhere);
        assertThat(dir.resolve("not-yet")).doesNotExist();
        assertThat(directory).isEmptyDirectory();
        assertNoTemporaryFile();
    }

    @Test
    void a_missing_directory_is_named_in_one_line() {
        Path file = dir.resolve("no-such-dir").resolve("plan.json");

        assertThatThrownBy(() -> DurableFiles.writeNew(file, NEW)).isInstanceOf(UserInputException.class)
                .hasMessage(file + " cannot be created: directory " + file.getParent() + " does not exist; create it,"
                        + " or name a file in an existing directory");
        assertThatThrownBy(() -> DurableFiles.writeUnderFreeName(n -> file, NEW)).isInstanceOf(UserInputException.class)
                .hasMessage(file + " cannot be created: directory " + file.getParent() + " does not exist; create it,"
                        + " or name a file in an existing directory");
    }

    @Test
    void a_record_under_a_free_name_leaves_every_earlier_one_as_it_was() throws Exception {
        Path first = Files.write(dir.resolve("result.json"), EARLIER);
        Path second = Files.createSymbolicLink(dir.resolve("result-2.json"), dir.resolve("not-yet"));

        Path written = DurableFiles.writeUnderFreeName(
                n -> dir.resolve(n == 1 ? "result.json" : "result-" + n + ".json"), NEW);

        assertThat(written).isEqualTo(dir.resolve("result-3.json"));
        assertThat(Files.readString(written)).isEqualTo("new\n");
        assertThat(Files.readAllBytes(first)).isEqualTo(EARLIER);
        assertThat(Files.isSymbolicLink(second)).isTrue();
        assertThat(dir.resolve("not-yet")).doesNotExist();
        assertNoTemporaryFile();
    }

    /** Where hard links are not supported: the name is claimed new first, and only that claim is renamed over. */
    @Test
    void without_hard_links_a_taken_name_is_refused_and_a_free_one_gets_the_whole_file() throws Exception {
        Path taken = Files.write(dir.resolve("plan.json"), EARLIER);
        Path dangling = Files.createSymbolicLink(dir.resolve("dangling.json"), dir.resolve("not-yet"));
        Path temporary = Files.writeString(dir.resolve(".plan.json.1.tmp"), "new\n");

        assertThatThrownBy(() -> DurableFiles.claimAndRename(temporary, taken))
                .isInstanceOf(FileAlreadyExistsException.class);
        assertThatThrownBy(() -> DurableFiles.claimAndRename(temporary, dangling))
                .isInstanceOf(FileAlreadyExistsException.class);
        DurableFiles.claimAndRename(temporary, dir.resolve("free.json"));

        assertThat(Files.readAllBytes(taken)).isEqualTo(EARLIER);
        assertThat(dir.resolve("not-yet")).doesNotExist();
        assertThat(Files.readString(dir.resolve("free.json"))).isEqualTo("new\n");
        assertThat(temporary).doesNotExist();
    }

    @Test
    void the_replay_journals_update_never_renames_over_a_symbolic_link() throws Exception {
        Path elsewhere = Files.write(dir.resolve("someone-elses.conf"), EARLIER);
        Path link = Files.createSymbolicLink(dir.resolve("replay-into-orders.json"), elsewhere);

        assertThatThrownBy(() -> DurableFiles.update(link, NEW)).isInstanceOf(UserInputException.class)
                .hasMessageStartingWith(link + " is a symbolic link to " + elsewhere);

        assertThat(Files.readSymbolicLink(link)).isEqualTo(elsewhere);
        assertThat(Files.readAllBytes(elsewhere)).isEqualTo(EARLIER);
        assertNoTemporaryFile();
    }

    private void assertNoTemporaryFile() throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(f -> f.getFileName().toString())).noneMatch(n -> n.endsWith(".tmp"));
        }
    }
}
