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

    private static final String SHA = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

    @TempDir
    Path dir;

    private static ReorderJournal journal() {
        return new ReorderJournal(ReorderJournal.VERSION, "cluster-1", "/plans/p.json", SHA,
                Instant.parse("2026-12-01T03:00:00Z"), "bastion", 4242, "6c841718-5c4b-49ba-bab5-62cab637f453",
                4026531836L, 55456L,
                List.of(new ReorderJournal.Reorder("orders", 3, 2, 7, List.of(1, 3, 2), List.of(2, 3, 1))));
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

    @Test
    void a_version_2_journal_names_the_plan_it_was_written_for() throws Exception {
        Path file = dir.resolve("p-journal.json");
        Files.writeString(file, """
                {"version": 2, "clusterId": "cluster-1", "planFile": "p.json", "startedAt": "2026-12-01T03:00:00Z",
                 "host": "bastion", "pid": 4242, "partitions": []}
                """);

        assertThatThrownBy(() -> ReorderJournal.readIfPresent(file)).isInstanceOf(PlanFormatException.class)
                .hasMessageContaining("planSha256 is missing");
    }

    @Test
    void a_version_1_journal_is_still_read_without_plan_or_process_table() throws Exception {
        Path file = dir.resolve("old-journal.json");
        Files.writeString(file, """
                {"version": 1, "clusterId": "cluster-1", "planFile": "old.json", "startedAt": "2026-12-01T03:00:00Z",
                 "host": "bastion", "pid": 4242,
                 "partitions": [{"topic": "orders", "partition": 0, "designatedLeader": 2, "leaderEpoch": 7,
                                 "originalReplicas": [1, 3, 2], "reorderedReplicas": [2, 3, 1]}]}
                """);

        ReorderJournal read = ReorderJournal.readIfPresent(file).orElseThrow();

        assertThat(read.version()).isEqualTo(1);
        assertThat(read.planSha256()).isNull();
        assertThat(read.bootId()).isNull();
        assertThat(read.partitions()).hasSize(1);
    }

    @Test
    void a_boot_id_must_be_one() throws Exception {
        Path file = dir.resolve("p-journal.json");
        Files.writeString(file, """
                {"version": 2, "clusterId": "cluster-1", "planFile": "p.json", "planSha256": "%s",
                 "startedAt": "2026-12-01T03:00:00Z", "host": "bastion", "pid": 4242, "bootId": "../x",
                 "partitions": []}
                """.formatted(SHA));

        assertThatThrownBy(() -> ReorderJournal.readIfPresent(file)).isInstanceOf(PlanFormatException.class)
                .hasMessageContaining("bootId must be a boot id");
    }
}
