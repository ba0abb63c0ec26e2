// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.versions;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.formats.ResultFile;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.MetadataMode;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * The version suite on a ZooKeeper-mode cluster, and what its stock elector did there beyond the election: on
 * {@code diverge-0} (replicas [3,2,1], 2 designated) the order was changed to [2,3,1] by the controller broker, the
 * election made, the order put back, the journal of the reorder removed, and broker 3's doomed records copied out
 * before it cut them.
 */
abstract class ZooKeeperModeSuite extends KafkaVersionSuite {

    @Test
    @Order(9)
    void the_reorder_was_restored_and_its_journal_removed_and_the_doomed_records_salvaged_first(
            LocalKafkaCluster cluster) throws Exception {
        assertThat(cluster.metadataMode()).isEqualTo(MetadataMode.ZOOKEEPER);
        ResultFile result = ResultFile.read(dir.resolve("diverge-execute-result.json"));

        ResultFile.Partition reordered = result.partitions().get(0);
        assertThat(reordered.topic() + "-" + reordered.partition()).isEqualTo(EveryIsrMemberKilled.DIVERGE.toString());
        assertThat(reordered.outcome()).isEqualTo("ELECTED");
        assertThat(reordered.detail()).contains("replica order [3, 2, 1] restored");
        // read back from the cluster, not from the tool: the assignment is the original one, led by the designated
        assertThat(cluster.metadata().describePartition(EveryIsrMemberKilled.DIVERGE).replicas())
                .containsExactly(3, 2, 1);
        assertThat(dir.resolve("diverge-execute-journal.json")).doesNotExist();
        assertThat(reordered.salvaged()).singleElement().satisfies(s -> {
            assertThat(s.broker()).isEqualTo(EveryIsrMemberKilled.OLDER_EPOCH_LONGER_LOG);
            assertThat(List.of(s.fromOffset(), s.toOffset(), s.records())).containsExactly(10L, 30L, 20L);
            assertThat(Path.of(s.manifest())).exists();
            assertThat(Path.of(s.segment())).exists();
        });
    }
}
