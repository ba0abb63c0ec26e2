// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.formats.Plan;
import dev.uncleanrecovery.formats.PlanFile;
import dev.uncleanrecovery.formats.SkippedPartition;
import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.MetadataMode;
import dev.uncleanrecovery.localcluster.PartitionView;
import dev.uncleanrecovery.localcluster.StopMode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.internals.Topic;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * The consumer groups' story on a ZooKeeper-mode cluster (the group coordinator is the same there), but for its last
 * outage: a broker that lost its ZooKeeper session while frozen and came back keeps the leader epoch it knew of an
 * offline partition, because a ZooKeeper-mode broker ignores a LeaderAndIsr whose leader is not alive (-1). The tool
 * sees a replica whose metadata lags and does not elect it.
 */
@KafkaClusterTest(kafkaVersion = "3.9.1", metadataMode = MetadataMode.ZOOKEEPER)
class ConsumerGroupImpactZooKeeperClusterTest extends ConsumerGroupImpactClusterTest {

    private static final int THAWED = 2;
    private static final int OFFSETS_LAST_LEADER = 3;
    private static final Duration STEP = Duration.ofSeconds(60);

    @Test
    @Order(8)
    @Override
    void offline_consumer_offsets_partitions_come_first_and_the_plan_says_so(LocalKafkaCluster cluster)
            throws Exception {
        List<TopicPartition> offsets = List.of(0, 1, 2).stream()
                .map(p -> new TopicPartition(Topic.GROUP_METADATA_TOPIC_NAME, p)).toList();
        cluster.pauseBroker(THAWED);
        try {
            cluster.metadata().awaitBrokerFenced(THAWED);
            offsets.forEach(tp -> cluster.metadata().awaitPartition(tp,
                    v -> v.isr().equals(List.of(OFFSETS_LAST_LEADER)), STEP));
            cluster.stopBroker(OFFSETS_LAST_LEADER, StopMode.ABRUPT);
        } finally {
            cluster.resumeBroker(THAWED);
        }
        cluster.metadata().awaitBrokerUnfenced(THAWED);
        cluster.metadata().awaitBrokerFenced(OFFSETS_LAST_LEADER);
        offsets.forEach(tp -> cluster.metadata().awaitPartition(tp, v -> v.leader() == PartitionView.NO_LEADER, STEP));
        Path file = dir.resolve("offsets.json");

        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "plan", "--strategy", "proactive",
                "--output-file", file.toString());

        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.ATTENTION);
        Plan plan = PlanFile.read(file);
        assertThat(plan.partitions()).extracting(p -> p.topicPartition()).doesNotContainAnyElementsOf(offsets);
        assertThat(plan.skipped()).filteredOn(s -> offsets.contains(s.topicPartition())).hasSize(3)
                .extracting(SkippedPartition::reason).allSatisfy(reason -> assertThat(reason)
                        .startsWith("no replica can lead").contains("STALE: broker " + THAWED + " (")
                        .contains("but the controller's metadata says"));
    }
}
