// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class PartitionDirectoryNameTest {

    @Test
    void a_current_log_is_topic_dash_partition_and_the_topic_may_hold_dashes_and_dots() {
        assertThat(PartitionDirectoryName.classify("orders-3").topicPartition()).isEqualTo(new TopicPartition("orders", 3));
        assertThat(PartitionDirectoryName.classify("my-topic.v2-12").topicPartition())
                .isEqualTo(new TopicPartition("my-topic.v2", 12));
        assertThat(PartitionDirectoryName.classify("__consumer_offsets-49").isPartition()).isTrue();
    }

    @Test
    void renamed_copies_are_skipped_but_still_name_their_partition() {
        PartitionDirectoryName future = PartitionDirectoryName.classify("orders-3.7e0c1d9a2b3c4d5e6f708192a3b4c5d6-future");
        PartitionDirectoryName deleted = PartitionDirectoryName.classify("my.topic-0.7e0c1d9a2b3c4d5e6f708192a3b4c5d6-delete");
        PartitionDirectoryName stray = PartitionDirectoryName.classify("orders-1.7e0c1d9a2b3c4d5e6f708192a3b4c5d6-stray");

        assertThat(future.isPartition()).isFalse();
        assertThat(future.topicPartition()).isEqualTo(new TopicPartition("orders", 3));
        assertThat(future.skipReason()).contains("future replica");
        assertThat(deleted.topicPartition()).isEqualTo(new TopicPartition("my.topic", 0));
        assertThat(deleted.skipReason()).contains("deletion");
        assertThat(stray.skipReason()).contains("stray");
    }

    @Test
    void the_metadata_log_and_other_directories_are_skipped() {
        assertThat(PartitionDirectoryName.classify("__cluster_metadata-0").skipReason()).contains("KRaft metadata");
        assertThat(PartitionDirectoryName.classify("lost+found").topicPartition()).isNull();
        assertThat(PartitionDirectoryName.classify("orders").isPartition()).isFalse();
        assertThat(PartitionDirectoryName.classify("orders-99999999999").isPartition()).isFalse();
    }

    @Test
    void a_directory_kafka_cannot_read_as_a_partition_is_said_to_keep_the_broker_from_starting() {
        assertThat(PartitionDirectoryName.classify("lost+found").skipReason()).contains("the broker does not start")
                .contains("move it out of the log dir");
        assertThat(PartitionDirectoryName.classify("orders-99999999999").skipReason()).contains("does not start");
        assertThat(PartitionDirectoryName.classify("remote-log-index-cache").skipReason())
                .isEqualTo("tiered storage's index cache, not a partition");
    }
}
