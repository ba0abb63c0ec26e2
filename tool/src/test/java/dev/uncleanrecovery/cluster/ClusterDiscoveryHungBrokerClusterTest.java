// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import dev.uncleanrecovery.connect.BrokerState;
import dev.uncleanrecovery.connect.ClientProperties;
import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.StopMode;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * A hung broker (SIGSTOP: it accepts connections and never answers) is the first --bootstrap-server
 * address while another broker is dead. Admin used to wait a request timeout each time it picked the
 * hung one, and a describe could run out of its whole call timeout (CI saw it).
 */
@KafkaClusterTest
class ClusterDiscoveryHungBrokerClusterTest {

    /** Call timeout 1.5 s with 1 s per request (the floor): a single wait on the hung broker leaves too little. */
    private static final int TIGHT_TIMEOUT_MS = 1500;

    @Test
    void discovery_skips_a_hung_bootstrap_broker_within_a_tight_call_timeout(LocalKafkaCluster cluster) throws Exception {
        try (Admin admin = cluster.createAdmin()) {
            admin.createTopics(List.of(new NewTopic("orders", 3, (short) 3)
                    .configs(Map.of("min.insync.replicas", "2")))).all().get();
        }
        cluster.metadata().awaitPartition(new TopicPartition("orders", 2), p -> p.isr().size() == 3,
                Duration.ofSeconds(30));
        cluster.stopBroker(3, StopMode.ABRUPT);
        cluster.pauseBroker(1);
        try {
            for (int run = 0; run < 8; run++) {
                try (ClusterDiscovery discovery = new ClusterDiscovery(
                        ClientProperties.load(cluster.bootstrapServers(), null, TIGHT_TIMEOUT_MS), TIGHT_TIMEOUT_MS)) {
                    ClusterSnapshot snapshot = discovery.describe(new PartitionSelection.OneTopic("orders", List.of()));

                    assertThat(snapshot.brokers()).extracting(BrokerState::id).containsExactly(1, 2, 3);
                    assertThat(snapshot.partitions()).hasSize(3);
                    assertThat(snapshot.minInsyncReplicas()).containsEntry("orders", 2);
                }
            }
        } finally {
            cluster.resumeBroker(1);
        }
    }

    @Test
    void each_broker_is_read_on_its_own_and_a_hung_one_holds_up_no_other(LocalKafkaCluster cluster) throws Exception {
        try (Admin admin = cluster.createAdmin()) {
            admin.createTopics(List.of(new NewTopic("payments", 4, (short) 3))).all().get();
        }
        cluster.metadata().awaitPartition(new TopicPartition("payments", 3), p -> p.isr().size() == 3,
                Duration.ofSeconds(30));
        int requestTimeoutMs = 20_000;
        try (ClusterDiscovery discovery = new ClusterDiscovery(
                ClientProperties.load(cluster.bootstrapServers(), null, requestTimeoutMs), requestTimeoutMs)) {
            Set<TopicPartition> partitions = Set.of(new TopicPartition("payments", 0), new TopicPartition("payments", 2));
            ClusterSnapshot before = discovery.describe(new PartitionSelection.Explicit(partitions));
            cluster.pauseBroker(1);
            try {
                long start = System.nanoTime();
                var hung = discovery.describeOn(1, partitions);
                List<TopicPartitionState> fromTwo = discovery.describeOn(2, partitions).get(10, TimeUnit.SECONDS);
                List<TopicPartitionState> fromThree = discovery.describeOn(3, partitions).get(10, TimeUnit.SECONDS);
                long tookMs = (System.nanoTime() - start) / 1_000_000;

                // Only the partitions asked for, as each answering broker knows them (nothing changed since).
                for (List<TopicPartitionState> answer : List.of(fromTwo, fromThree)) {
                    assertThat(answer).extracting(TopicPartitionState::topicPartition, TopicPartitionState::leader,
                            TopicPartitionState::leaderEpoch).containsExactlyInAnyOrderElementsOf(before.partitions()
                            .stream().map(p -> tuple(p.topicPartition(), p.leader(), p.leaderEpoch())).toList());
                }
                // Broker 1 never answers: its read is still open, and the others did not wait for its 20 s timeout.
                assertThat(hung).isNotDone();
                assertThat(tookMs).isLessThan(requestTimeoutMs / 2);
            } finally {
                cluster.resumeBroker(1);
            }
        }
    }
}
