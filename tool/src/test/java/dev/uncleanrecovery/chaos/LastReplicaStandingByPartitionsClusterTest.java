// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.NodeNetwork;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.FeatureUpdate;
import org.apache.kafka.clients.admin.UpdateFeaturesOptions;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * KIP-966's outage by network partitions on Kafka 4.4.0 formatted without ELR, as every cluster upgraded from 3.x runs
 * until ELR is enabled; then, ELR enabled on the same cluster, the same steps, which the controller ends by itself.
 */
@KafkaClusterTest(kafkaVersion = "4.4.0", brokers = 4, network = NodeNetwork.HOSTS,
        formatFeatures = "eligible.leader.replicas.version=0")
class LastReplicaStandingByPartitionsClusterTest extends LastReplicaStandingByPartitions {

    @Test
    @Order(2)
    void with_elr_the_controller_elects_the_eligible_replica_once_the_partitions_heal(LocalKafkaCluster cluster)
            throws Exception {
        try (Admin admin = cluster.createAdmin()) {
            admin.updateFeatures(Map.of("eligible.leader.replicas.version",
                    new FeatureUpdate((short) 1, FeatureUpdate.UpgradeType.UPGRADE)), new UpdateFeaturesOptions())
                    .all().get();
        }
        TopicPartition withElr = new TopicPartition("kip966-elr", 0);
        List<Acknowledged> acknowledged = partitionTheReplicas(cluster, List.of(withElr), true);

        // T3: 2 left the ISR below min.insync.replicas, so it holds every committed write: KIP-966 elects it
        await(cluster, withElr, "T3 with ELR", view -> view.leader() == CUT_OFF_SECOND);
        cluster.startBroker(LAST_STANDING);
        await(cluster, withElr, "T4 with ELR", view -> view.isr().size() == REPLICAS.size());
        Map<Long, String> after = ChaosTrial.readAll(cluster, List.of(withElr)).get(withElr);
        assertThat(acknowledged.stream().filter(write -> write.acks().equals("all")))
                .as("every write acknowledged with acks=all is in the log the controller's election kept")
                .allMatch(write -> write.value().equals(after.get(write.offset())));
    }
}
