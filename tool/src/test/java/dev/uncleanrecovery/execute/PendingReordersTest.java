// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.uncleanrecovery.formats.ReorderJournal;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Finding the records runs left beside a plan: what cannot be read stops the run, a live writer is named. */
class PendingReordersTest {

    @TempDir
    Path dir;

    private static ReorderJournal journal(String host, long pid, Instant startedAt) {
        return new ReorderJournal(ReorderJournal.VERSION, "cluster-1", "p.json", startedAt, host, pid,
                List.of(new ReorderJournal.Reorder("orders", 0, 2, 7, List.of(1, 3, 2), List.of(2, 3, 1))));
    }

    @Test
    void a_folder_that_cannot_be_listed_stops_the_run_instead_of_reading_as_no_record() throws Exception {
        // the plan's folder is a file: listing it fails (for root too, who reads any folder)
        Path notAFolder = Files.writeString(dir.resolve("plans"), "");

        assertThatThrownBy(() -> PendingReorders.beside(notAFolder.resolve("p.json"), "cluster-1"))
                .isInstanceOf(UncheckedIOException.class)
                .hasMessageStartingWith("cannot look for interrupted runs' records in " + notAFolder)
                .hasMessageContaining("nothing was changed");
    }

    @Test
    void a_record_that_cannot_be_read_stops_the_run() throws Exception {
        Files.createDirectory(dir.resolve("p-journal.json"));

        assertThatThrownBy(() -> PendingReorders.beside(dir.resolve("p.json"), "cluster-1"))
                .isInstanceOf(UncheckedIOException.class).hasMessageContaining("cannot read " + dir.resolve("p-journal.json"));
    }

    @Test
    void no_folder_holds_no_record() {
        assertThat(PendingReorders.beside(dir.resolve("missing").resolve("p.json"), "cluster-1")).isEmpty();
    }

    @Test
    void records_of_this_plan_come_first_and_other_clusters_are_left_out() throws Exception {
        ReorderJournal.write(ReorderJournal.pathFor(dir.resolve("a.json")), journal("h", 1, Instant.EPOCH));
        ReorderJournal.write(ReorderJournal.pathFor(dir.resolve("p.json")), journal("h", 1, Instant.EPOCH));
        ReorderJournal other = new ReorderJournal(ReorderJournal.VERSION, "cluster-2", "o.json", Instant.EPOCH, "h", 1,
                journal("h", 1, Instant.EPOCH).partitions());
        ReorderJournal.write(ReorderJournal.pathFor(dir.resolve("o.json")), other);

        assertThat(PendingReorders.beside(dir.resolve("p.json"), "cluster-1"))
                .extracting(f -> f.file().orElseThrow().getFileName().toString())
                .containsExactly("p-journal.json", "a-journal.json");
    }

    @Test
    void a_record_whose_writer_still_runs_here_is_named_and_never_advised_away() throws Exception {
        Process writer = new ProcessBuilder("sleep", "60").start();
        try {
            Instant started = writer.info().startInstant().orElseThrow();
            ReorderJournal.write(ReorderJournal.pathFor(dir.resolve("p.json")),
                    journal(RunOwner.thisHost(), writer.pid(), started.plusSeconds(1)));
            PendingReorders left = PendingReorders.beside(dir.resolve("p.json"), "cluster-1").get(0);

            assertThatThrownBy(() -> left.restoreLeftover(partitions -> {
                throw new AssertionError("a live run's record is not acted on: nothing is read");
            }, null, s -> { })).isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("the run of pid " + writer.pid() + " on " + RunOwner.thisHost() + " (started ")
                    .hasMessageContaining("is changing replica orders right now")
                    .hasMessageNotContaining("remove");
            assertThat(ReorderJournal.pathFor(dir.resolve("p.json"))).exists();
        } finally {
            writer.destroy();
            writer.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void a_pid_reused_by_a_later_process_is_not_the_writer() throws Exception {
        Process later = new ProcessBuilder("sleep", "60").start();
        try {
            // the record was written before this process started: its writer is gone
            ReorderJournal journal = journal(RunOwner.thisHost(), later.pid(), Instant.parse("2020-01-01T00:00:00Z"));
            RunOwner owner = new RunOwner(journal.host(), journal.pid(), journal.startedAt());
            assertThat(owner.endedOnThisHost()).isTrue();
            assertThat(new RunOwner(RunOwner.thisHost(), later.pid(), null).endedOnThisHost()).isFalse();
            assertThat(new RunOwner("another-host", later.pid(), null).endedOnThisHost()).isFalse();
        } finally {
            later.destroy();
            later.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
