// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.formats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.uncleanrecovery.UserInputException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReorderJournalTest {

    @TempDir
    Path dir;

    private static ReorderJournal journal() {
        return new ReorderJournal(ReorderJournal.VERSION, "cluster-1", "/plans/p.json", Instant.parse("2026-12-01T03:00:00Z"),
                "bastion", 4242, List.of(new ReorderJournal.Reorder("orders", 3, 2, 7, List.of(1, 3, 2), List.of(2, 3, 1))));
    }

    @Test
    void lives_beside_its_plan() {
        assertThat(ReorderJournal.pathFor(dir.resolve("plan-20261201.json")))
                .isEqualTo(dir.resolve("plan-20261201-journal.json").toAbsolutePath());
    }

    @Test
    void reads_back_what_was_written() throws Exception {
        Path file = ReorderJournal.pathFor(dir.resolve("p.json"));

        ReorderJournal.write(file, journal());

        assertThat(ReorderJournal.readIfPresent(file)).contains(journal());
    }

    @Test
    void a_record_left_behind_is_never_written_over() throws Exception {
        Path file = ReorderJournal.pathFor(dir.resolve("p.json"));
        ReorderJournal.write(file, journal());
        String left = Files.readString(file);

        assertThatThrownBy(() -> ReorderJournal.write(file, journal())).isInstanceOf(UserInputException.class)
                .hasMessageContaining("already exists");
        assertThat(Files.readString(file)).isEqualTo(left);
    }

    @Test
    void no_record_reads_as_none() throws Exception {
        assertThat(ReorderJournal.readIfPresent(dir.resolve("none-journal.json"))).isEmpty();
    }
}
