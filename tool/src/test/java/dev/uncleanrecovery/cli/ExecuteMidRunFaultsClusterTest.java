// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static dev.uncleanrecovery.localcluster.LastReplicaStandingOutage.LONGEST_SURVIVOR;
import static dev.uncleanrecovery.localcluster.LastReplicaStandingOutage.SHORTEST_SURVIVOR;
import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.LastReplicaStandingOutage;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.PartitionView;
import dev.uncleanrecovery.localcluster.RecordCount;
import dev.uncleanrecovery.localcluster.StopMode;
import dev.uncleanrecovery.formats.ReorderJournal;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Faults in the middle of the stock elector's run, the moment the controller has answered its reorder: the active
 * controller dies (a quorum of three elects another), or the designated broker dies. Each ends in a clear report,
 * the assignment restored, and no leader other than the designated one.
 */
@KafkaClusterTest(controllers = 3)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ExecuteMidRunFaultsClusterTest {

    private static final TopicPartition MID_0 = new TopicPartition("mid", 0);
    private static final TopicPartition MID_1 = new TopicPartition("mid", 1);

    @TempDir
    static Path dir;

    @BeforeAll
    static void killEveryIsrMember(LocalKafkaCluster cluster) {
        LastReplicaStandingOutage.reproduce(cluster, "mid", 2, 20, 5, s -> { });
    }

    @Test
    @Order(1)
    void the_active_controller_killed_after_the_reorder_leaves_the_designated_leader_and_the_order_restored(
            LocalKafkaCluster cluster) throws Exception {
        Path plan = plan(cluster, "failover.json", MID_0);
        AtomicInteger killed = new AtomicInteger(-1);

        ToolJvm.Run run = ToolJvm.run(dir, "Received ALTER_PARTITION_REASSIGNMENTS response", () -> {
            killed.set(cluster.controllers().activeId());
            cluster.controllers().stop(killed.get(), StopMode.ABRUPT);
        }, ToolJvm.AtTrigger.LET_IT_RUN, "--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test", "--accept-unknown-loss",
                "--plan", plan.toString());
        try {
            assertThat(run.triggered()).as(run.output()).isTrue();
            // The brokers forward ElectLeaders and the restore to whichever controller the quorum elects next.
            assertThat(run.exitCode()).as(run.output()).isEqualTo(ExitCode.OK);
            assertThat(run.output()).contains("ELECTED", "replica order [1, 3, 2] restored");
            PartitionView after = cluster.metadata().awaitPartition(MID_0,
                    v -> v.replicas().equals(LastReplicaStandingOutage.ASSIGNMENT),
                    Duration.ofSeconds(30));
            assertThat(after.leader()).isEqualTo(LONGEST_SURVIVOR);
            assertThat(ReorderJournal.pathFor(plan)).doesNotExist();
        } finally {
            if (killed.get() >= 0) {
                cluster.controllers().start(killed.get());
            }
        }
    }

    @Test
    @Order(2)
    void the_designated_broker_killed_after_the_reorder_is_never_replaced_by_another_replica(LocalKafkaCluster cluster)
            throws Exception {
        Path plan = plan(cluster, "designated-killed.json", MID_1);

        ToolJvm.Run run = ToolJvm.run(dir, "Received ALTER_PARTITION_REASSIGNMENTS response",
                () -> cluster.stopBroker(LONGEST_SURVIVOR, StopMode.ABRUPT), ToolJvm.AtTrigger.LET_IT_RUN,
                "--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test", "--accept-unknown-loss", "--plan", plan.toString());
        try {
            assertThat(run.triggered()).as(run.output()).isTrue();
            cluster.metadata().awaitBrokerFenced(LONGEST_SURVIVOR);
            // then: never broker 3 (it would truncate 2's longer log when 2 returns); the assignment is as it was
            PartitionView after = cluster.metadata().awaitPartition(MID_1,
                    v -> v.replicas().equals(LastReplicaStandingOutage.ASSIGNMENT),
                    Duration.ofSeconds(30));
            assertThat(after.leader()).as(run.output()).isNotEqualTo(SHORTEST_SURVIVOR);
            // The controller learns of the death only when the session expires: until then 2 is acceptable and wins.
            assertThat(run.output()).containsAnyOf("ELECTED  leader 2, leader epoch", "REFUSED  designated broker 2 is fenced");
            assertThat(ReorderJournal.pathFor(plan)).doesNotExist();
        } finally {
            cluster.startBroker(LONGEST_SURVIVOR);
        }

        // and: once 2 is back, the controller gives it the partition again (its last ISR member), all 40 records in it
        PartitionView led = cluster.metadata().awaitPartition(MID_1, v -> v.leader() != PartitionView.NO_LEADER,
                Duration.ofSeconds(30));
        assertThat(led.leader()).isEqualTo(LONGEST_SURVIVOR);
        assertThat(RecordCount.readable(cluster, List.of(MID_1), Duration.ofSeconds(30))).isEqualTo(40);
    }

    private static Path plan(LocalKafkaCluster cluster, String name, TopicPartition tp) {
        return CliRun.planProactive(cluster, dir.resolve(name), tp);
    }
}
