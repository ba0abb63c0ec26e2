// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.PartitionView;
import dev.uncleanrecovery.localcluster.RoundProducer;
import dev.uncleanrecovery.formats.Plan;
import dev.uncleanrecovery.formats.PlanFile;
import dev.uncleanrecovery.formats.PlannedElection;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two topics on replicas [1,2], one with tiered storage (remote.storage.enable=true), both offline once 2 and then 1
 * died and 2 came back alone.
 */
@KafkaClusterTest(tieredStorage = true)
class TieredStorageClusterTest {

    private static final TopicPartition ARCHIVE = new TopicPartition("archive", 0);
    private static final TopicPartition LOCAL = new TopicPartition("local", 0);
    private static final Duration STEP = Duration.ofSeconds(60);

    @TempDir
    static Path dir;

    @BeforeAll
    static void takeBothOffline(LocalKafkaCluster cluster) throws Exception {
        cluster.createTopic(ARCHIVE.topic(), List.of(1, 2), Map.of(TopicConfig.REMOTE_LOG_STORAGE_ENABLE_CONFIG, "true",
                TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, "1"));
        cluster.createTopic(LOCAL.topic(), List.of(1, 2), Map.of(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, "1"));
        List<TopicPartition> both = List.of(ARCHIVE, LOCAL);
        RoundProducer.produce(cluster, both, 10, "all", "both", Duration.ofSeconds(30));
        cluster.killBroker(2);
        RoundProducer.produce(cluster, both, 5, "all", "only-on-1", Duration.ofSeconds(30));
        cluster.killBroker(1);
        cluster.startBroker(2);
        both.forEach(tp -> cluster.metadata().awaitPartition(tp, v -> v.leader() == PartitionView.NO_LEADER, STEP));
    }

    @Test
    void the_plan_flags_the_tiered_topic_and_says_its_loss_may_reach_past_the_local_logs(LocalKafkaCluster cluster)
            throws Exception {
        Path file = dir.resolve("plan.json");

        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "plan", "--strategy", "proactive",
                "--output-file", file.toString());

        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.OK);
        Plan plan = PlanFile.read(file);
        assertThat(plan.partitions()).filteredOn(p -> p.topic().equals(ARCHIVE.topic()) || p.topic().equals(LOCAL.topic()))
                .extracting(PlannedElection::topic, PlannedElection::tieredStorage)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("archive", true),
                        org.assertj.core.groups.Tuple.tuple("local", false));
        assertThat(plan.notes()).anySatisfy(note -> assertThat(note)
                .startsWith("tiered storage (remote.storage.enable=true) on archive: remote segments"));
        assertThat(run.out()).contains("NOTE tiered storage (remote.storage.enable=true) on archive");
    }
}
