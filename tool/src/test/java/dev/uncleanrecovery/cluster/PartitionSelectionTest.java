// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.uncleanrecovery.UserInputException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PartitionSelectionTest {

    @TempDir
    Path dir;

    @Test
    void reads_the_kafka_leader_election_format_and_ignores_extra_fields() throws Exception {
        Path file = Files.writeString(dir.resolve("p.json"),
                "{\"version\":1,\"partitions\":[{\"topic\":\"orders\",\"partition\":3,\"designatedLeader\":2},"
                        + "{\"topic\":\"orders\",\"partition\":0}]}");

        PartitionSelection selection = PartitionSelection.of(null, null, file);

        assertThat(selection).isEqualTo(new PartitionSelection.Explicit(
                java.util.Set.of(new TopicPartition("orders", 3), new TopicPartition("orders", 0))));
        assertThat(selection.includes("orders", 3)).isTrue();
        assertThat(selection.includes("orders", 1)).isFalse();
    }

    @Test
    void rejects_duplicates_like_kafka_leader_election_does() throws Exception {
        Path file = Files.writeString(dir.resolve("p.json"),
                "{\"partitions\":[{\"topic\":\"t\",\"partition\":0},{\"topic\":\"t\",\"partition\":0}]}");

        assertThatThrownBy(() -> PartitionSelection.of(null, null, file))
                .isInstanceOf(UserInputException.class).hasMessageContaining("duplicate partitions [t-0]");
    }

    @Test
    void rejects_syntax_errors_with_the_file_name() throws Exception {
        Path file = Files.writeString(dir.resolve("p.json"), "{\"partitions\":[{\"topic\":\"t\",\"partition\":0},]}");

        assertThatThrownBy(() -> PartitionSelection.of(null, null, file))
                .isInstanceOf(UserInputException.class).hasMessageContaining("p.json is not valid JSON");
    }

    @Test
    void rejects_a_missing_partitions_field() throws Exception {
        Path file = Files.writeString(dir.resolve("p.json"), "{\"topics\":[]}");

        assertThatThrownBy(() -> PartitionSelection.of(null, null, file))
                .isInstanceOf(UserInputException.class).hasMessageContaining("expected {\"partitions\"");
    }

    @Test
    void topic_and_json_file_are_mutually_exclusive() {
        assertThatThrownBy(() -> PartitionSelection.of("t", List.of(), dir.resolve("x.json")))
                .isInstanceOf(UserInputException.class).hasMessageContaining("cannot be used together");
    }

    @Test
    void negative_partition_is_refused() {
        assertThatThrownBy(() -> PartitionSelection.of("t", List.of(-1), null))
                .isInstanceOf(UserInputException.class).hasMessageContaining("--partition -1");
    }

    @Test
    void one_topic_without_partitions_means_all_of_them() {
        PartitionSelection selection = PartitionSelection.of("t", null, null);

        assertThat(selection.includes("t", 7)).isTrue();
        assertThat(selection.includes("u", 0)).isFalse();
    }
}
