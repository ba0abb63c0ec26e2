// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static dev.uncleanrecovery.localcluster.LastReplicaStandingOutage.LAST_LEADER;
import static dev.uncleanrecovery.localcluster.LastReplicaStandingOutage.LONGEST_SURVIVOR;
import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.LastReplicaStandingOutage;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.PartitionView;
import dev.uncleanrecovery.plan.Plan;
import dev.uncleanrecovery.plan.PlanFile;
import java.nio.file.Path;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cluster without ELR (formatted at eligible.leader.replicas.version=0, as every cluster upgraded from 3.x runs
 * until someone enables it): the controller never empties the ISR, so the offline partition keeps its dead last
 * leader in the ISR, where a cluster with ELR lists it as LastKnownELR. Balanced must wait for it the same way.
 */
@KafkaClusterTest(formatFeatures = "eligible.leader.replicas.version=0")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class BalancedWithoutElrClusterTest {

    private static final TopicPartition LEDGER_0 = new TopicPartition("ledger", 0);

    @TempDir
    static Path dir;

    @BeforeAll
    static void killEveryIsrMember(LocalKafkaCluster cluster) {
        LastReplicaStandingOutage.reproduce(cluster, "ledger", 1, 20, 5, s -> { });
    }

    @Test
    @Order(1)
    void the_offline_partition_keeps_its_dead_last_leader_in_the_isr_and_no_elr(LocalKafkaCluster cluster) {
        // The premise of this class, read from the cluster.
        PartitionView offline = cluster.describePartition(LEDGER_0);
        assertThat(offline.leader()).isEqualTo(PartitionView.NO_LEADER);
        assertThat(offline.isr()).containsExactly(LAST_LEADER);
        assertThat(offline.elr()).isEmpty();
        assertThat(offline.lastKnownElr()).isEmpty();
    }

    @Test
    @Order(2)
    void balanced_waits_for_the_leaderless_isr_member_that_holds_the_acks_1_records(LocalKafkaCluster cluster)
            throws Exception {
        Path planFile = dir.resolve("balanced.json");

        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "plan", "--probe-timeout-ms", "3000",
                "--topic", "ledger", "--output-file", planFile.toString());

        // then: skipped, not elected: broker 1 may hold records no live replica has (here: the 5 acks=1 ones)
        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.ATTENTION);
        Plan plan = PlanFile.read(planFile);
        assertThat(plan.partitions()).isEmpty();
        assertThat(plan.skipped()).singleElement().satisfies(s -> assertThat(s.reason())
                .startsWith("leaderless-ISR member 1 ").contains("the balanced strategy waits for it"));
        assertThat(cluster.describePartition(LEDGER_0).leader()).isEqualTo(PartitionView.NO_LEADER);
    }

    @Test
    @Order(3)
    void with_the_dead_leaders_disk_read_by_inspect_balanced_decides_and_counts_its_loss(LocalKafkaCluster cluster)
            throws Exception {
        // given: 'inspect' of broker 1's log directory (the broker is down; its disk is readable)
        Path evidence = dir.resolve("broker-1-evidence.json");
        CliRun inspected = CliRun.of("inspect", "--log-dir", cluster.logDir(LAST_LEADER).toString(),
                "--output-file", evidence.toString());
        assertThat(inspected.exitCode()).as(inspected.out() + inspected.err()).isEqualTo(ExitCode.OK);

        // when
        Path planFile = dir.resolve("with-evidence.json");
        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "plan", "--probe-timeout-ms", "3000",
                "--topic", "ledger", "--evidence", evidence.toString(), "--output-file", planFile.toString());

        // then: 2 is designated, and 1's 5 records beyond 2's log end are counted as its loss
        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.OK);
        Plan plan = PlanFile.read(planFile);
        assertThat(plan.partitions()).singleElement().satisfies(p -> {
            assertThat(p.designatedLeader()).isEqualTo(LONGEST_SURVIVOR);
            assertThat(p.expectedTruncation()).filteredOn(t -> t.broker() == LAST_LEADER).singleElement()
                    .satisfies(t -> assertThat(t.records()).isEqualTo(5));
        });
    }
}
