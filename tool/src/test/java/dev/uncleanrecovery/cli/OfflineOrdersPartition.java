// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import dev.uncleanrecovery.localcluster.LastReplicaStandingOutage;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.formats.PlanEvidence;
import dev.uncleanrecovery.formats.PlannedElection;
import java.nio.file.Path;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tests that start from KIP-966's outage on one partition: orders-0 offline with replicas [1,3,2], the last
 * leader 1 down for good, 3 holding 50 records and 2 holding 100 (plus 10 acks=1 records only 1 had).
 */
abstract class OfflineOrdersPartition {

    static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);

    @TempDir
    static Path dir;

    @BeforeAll
    static void killEveryIsrMember(LocalKafkaCluster cluster) {
        LastReplicaStandingOutage.reproduce(cluster, "orders", 1, 50, 10, s -> { });
    }

    static PlanEvidence evidence(PlannedElection election, int broker) {
        return election.evidence().stream().filter(e -> e.broker() == broker).findFirst().orElseThrow();
    }
}
