// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
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
    void malformed_checkpoints_say_which_file_and_line_and_why() throws IOException {
        for (List<String> c : List.of(
                List.of("1\n0\n", "version '1'"),
                List.of("0\n", "truncated"),
                List.of("0\nx\n", "entry count 'x'"),
                List.of("0\n2\n0 0\n", "says it has 2 entries but holds 1"),
                List.of("0\n1\n0 zero\n", "line 3 '0 zero': field 2 is not a number"),
                List.of("0\n1\n0 0 0\n", "expected 2 fields"))) {
            Path file = write(c.get(0));
            assertThatThrownBy(() -> CheckpointFile.readLeaderEpochs(file)).isInstanceOf(LogDirReadException.class)
                    .hasMessageContaining(file.toString()).hasMessageContaining(c.get(1));
        }
    }

    private Path write(String content) throws IOException {
        return Files.writeString(Files.createTempFile(tmp, "checkpoint", ""), content);
    }
}
