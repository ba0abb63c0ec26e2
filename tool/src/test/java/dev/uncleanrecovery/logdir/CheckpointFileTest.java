// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.uncleanrecovery.support.BoundedFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckpointFileTest {

    @TempDir
    Path tmp;

    @Test
    void leader_epoch_checkpoint_lists_epochs_with_their_start_offsets() throws IOException {
        Path file = write("0\n3\n0 0\n1 334\n4 1000\n");

        assertThat(CheckpointFile.readLeaderEpochs(file))
                .containsExactly(new EpochEntry(0, 0), new EpochEntry(1, 334), new EpochEntry(4, 1000));
    }

    @Test
    void an_empty_leader_epoch_checkpoint_has_no_entries() throws IOException {
        assertThat(CheckpointFile.readLeaderEpochs(write("0\n0\n"))).isEmpty();
    }

    @Test
    void offset_checkpoints_map_partitions_to_offsets_even_for_topics_with_dots_and_dashes() throws IOException {
        Path file = write("0\n2\norders.v2-eu 3 1042\n__consumer_offsets 49 0\n");

        Map<TopicPartition, Long> offsets = CheckpointFile.readOffsets(file);

        assertThat(offsets).containsExactlyInAnyOrderEntriesOf(Map.of(
                new TopicPartition("orders.v2-eu", 3), 1042L, new TopicPartition("__consumer_offsets", 49), 0L));
    }

    @Test
    void an_empty_file_or_one_with_only_its_version_is_an_empty_checkpoint_as_kafka_reads_it() throws IOException {
        assertThat(CheckpointFile.readLeaderEpochs(write(""))).isEmpty();
        assertThat(CheckpointFile.readLeaderEpochs(write("0"))).isEmpty();
        assertThat(CheckpointFile.readLeaderEpochs(write("0\n"))).isEmpty();
    }

    /**
     * Kafka's reader throws an IOException for some damage (its log dir goes offline) and other exceptions for the
     * rest (the broker does not start): each case says which file, which line, and which kind Kafka meets.
     */
    @Test
    void malformed_checkpoints_say_which_file_and_line_and_how_kafkas_reader_fails() throws IOException {
        record Case(String content, String message, boolean ioException) {
        }
        for (Case c : List.of(
                new Case("1\n0\n", "has version 1", true),
                new Case(" 0\n0\n", "line 1 ' 0' is not a number", true),
                new Case("0\nx\n", "line 2 'x' is not a number", true),
                new Case("0\n-1\n", "the entry count -1 is negative", false),
                new Case("0\n2\n0 0\n", "says it has 2 entries but holds 1", true),
                new Case("0\n2\n0 0\n1", "line 4 '1' is not 2 fields", true),
                new Case("0\n2\n0 0\n\n1 5\n", "line 4 '' is not 2 fields", true),
                new Case("0\n1\n0 zero\n", "line 3 '0 zero' has a field that is not a number", false),
                new Case("0\n1\n0 0 0\n", "is not 2 fields", true),
                new Case("0\n2\n0 0\n\0\0\0\0", "line 4 '\\u0000\\u0000\\u0000\\u0000' is not 2 fields", true))) {
            Path file = write(c.content());
            assertThatThrownBy(() -> CheckpointFile.readLeaderEpochs(file)).isInstanceOf(KafkaReaderFailure.class)
                    .hasMessageContaining(file.toString()).hasMessageContaining(c.message())
                    .satisfies(e -> assertThat(((KafkaReaderFailure) e).isIoException()).as("%s", c)
                            .isEqualTo(c.ioException()));
        }
    }

    @Test
    void a_checkpoint_that_is_not_a_regular_file_is_never_opened() throws Exception {
        Path fifo = tmp.resolve("leader-epoch-checkpoint");
        Assumptions.assumeTrue(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor() == 0, "mkfifo works here");

        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> assertThatThrownBy(() -> CheckpointFile.readLeaderEpochs(fifo))
                .isInstanceOf(BoundedFiles.NotRegularFileException.class).hasMessageContaining("FIFO"));
    }

    private Path write(String content) throws IOException {
        return Files.writeString(Files.createTempFile(tmp, "checkpoint", ""), content);
    }
}
