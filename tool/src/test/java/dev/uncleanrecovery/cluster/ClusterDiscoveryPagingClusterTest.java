// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.connect.ClientProperties;
import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * A topic larger than one DescribeTopicPartitions page (2,000 partitions): read by following the broker's cursor
 * when its size is unknown or the selection needs one page of it at most, and a page per 2,000 partitions at once
 * when the Metadata answer or the selection spans more. Every way must return each partition exactly once.
 */
@KafkaClusterTest(brokers = 1)
class ClusterDiscoveryPagingClusterTest {

    private static final int PARTITIONS = 2_345;

    @Test
    void a_topic_of_more_than_one_page_is_read_whole_and_in_parts(LocalKafkaCluster cluster) throws Exception {
        try (Admin admin = cluster.createAdmin()) {
            admin.createTopics(List.of(new NewTopic("wide", PARTITIONS, (short) 1), new NewTopic("narrow", 3, (short) 1)))
                    .all().get();
        }
        cluster.metadata().awaitPartition(new TopicPartition("wide", PARTITIONS - 1), p -> p.leader() == 1,
                java.time.Duration.ofSeconds(60));
        List<Integer> every = IntStream.range(0, PARTITIONS).boxed().toList();

        try (ClusterDiscovery discovery = new ClusterDiscovery(ClientProperties.load(cluster.bootstrapServers(), null, 30_000), 30_000)) {
            // Size unknown: page after page along the cursor.
            ClusterSnapshot whole = discovery.describe(new PartitionSelection.OneTopic("wide", List.of()));
            assertThat(whole.partitions()).extracting(TopicPartitionState::partition).containsExactlyElementsOf(every);
            assertThat(whole.partitions()).allSatisfy(p -> assertThat(p.leader()).isEqualTo(1));

            // Size from the Metadata answer: both pages at once.
            ClusterSnapshot all = discovery.describe(new PartitionSelection.AllTopics());
            assertThat(all.partitions()).filteredOn(p -> p.topic().equals("wide"))
                    .extracting(TopicPartitionState::partition).containsExactlyElementsOf(every);
            assertThat(all.partitions()).filteredOn(p -> p.topic().equals("narrow"))
                    .extracting(TopicPartitionState::partition).containsExactly(0, 1, 2);

            // Only what the selection names, across the page boundary.
            Set<TopicPartition> some = Set.of(new TopicPartition("wide", 0), new TopicPartition("wide", 1_999),
                    new TopicPartition("wide", 2_000), new TopicPartition("wide", PARTITIONS - 1));
            assertThat(discovery.describe(new PartitionSelection.Explicit(some)).partitions())
                    .extracting(TopicPartitionState::partition).containsExactly(0, 1_999, 2_000, PARTITIONS - 1);
            assertThat(discovery.describeOn(1, some).get()).extracting(TopicPartitionState::partition)
                    .containsExactlyInAnyOrder(0, 1_999, 2_000, PARTITIONS - 1);
            assertThat(discovery.describe(new PartitionSelection.OneTopic("wide", List.of(2_100, 17))).partitions())
                    .extracting(TopicPartitionState::partition).containsExactly(17, 2_100);
            // Ranges of one page or less: those topics are read whole, together, along the cursor.
            assertThat(discovery.describe(new PartitionSelection.Explicit(Set.of(new TopicPartition("wide", 5),
                    new TopicPartition("narrow", 1)))).partitions())
                    .extracting(TopicPartitionState::topicPartition)
                    .containsExactly(new TopicPartition("narrow", 1), new TopicPartition("wide", 5));
        }
    }
}
