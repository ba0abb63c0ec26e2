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
import java.util.List;
import org.apache.kafka.common.TopicPartition;
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

    @Test
    @Order(8)
    @Override
    void offline_consumer_offsets_partitions_come_first_and_the_plan_says_so(LocalKafkaCluster cluster)
            throws Exception {
        List<TopicPartition> offsets = takeTheOffsetsOffline(cluster);
        CliRun run = planProactive(cluster, dir.resolve("offsets.json"));

        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.ATTENTION);
        Plan plan = PlanFile.read(dir.resolve("offsets.json"));
        assertThat(plan.partitions()).extracting(p -> p.topicPartition()).doesNotContainAnyElementsOf(offsets);
        assertThat(plan.skipped()).filteredOn(s -> offsets.contains(s.topicPartition())).hasSize(3)
                .extracting(SkippedPartition::reason).allSatisfy(reason -> assertThat(reason)
                        .startsWith("no replica can lead").contains("STALE: broker " + THAWED + " (")
                        .contains("but the controller's metadata says"));
    }
}
