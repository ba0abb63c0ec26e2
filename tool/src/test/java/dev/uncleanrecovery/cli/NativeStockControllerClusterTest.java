// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.LastReplicaStandingOutage;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.NodeRole;
import dev.uncleanrecovery.localcluster.PartitionView;
import dev.uncleanrecovery.formats.PlanEvidence;
import dev.uncleanrecovery.formats.PlanFile;
import dev.uncleanrecovery.formats.PlannedElection;
import dev.uncleanrecovery.formats.ResultFile;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The KIP-966 outage on a cluster whose brokers run the kafka-patch agent but whose controller does not: the
 * brokers answer GetReplicaLogInfo, but ElectLeaders v3 (a forwarded RPC) is not offered, so execution falls
 * back to the stock elector and says why. Same outage as {@link NativeRecoveryClusterTest}, same decision.
 */
@KafkaClusterTest(brokers = 3, patchAgentOn = NodeRole.BROKER)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class NativeStockControllerClusterTest extends OfflineOrdersPartition {

    @Test
    @Order(1)
    void status_shows_get_replica_log_info_but_no_elect_leaders_v3(LocalKafkaCluster cluster) {
        // With a stock controller, not every live broker may advertise ElectLeaders v3; GetReplicaLogInfo is on
        // both live brokers. A patched broker advertises v3 until its forwarding channel has learned the
        // controller's versions, which after the outage's restarts takes a moment: wait for it (it never comes
        // if the agent advertised v3 regardless of the controller).
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofSeconds(1)).untilAsserted(() -> {
            CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "status");
            assertThat(run.out()).as(run.err()).contains("Native RPCs (GetReplicaLogInfo / ElectLeaders v3): brokers 2,3 / ")
                    .doesNotContain("brokers 2,3 / brokers 2,3");
        });
    }

    @Test
    @Order(2)
    void recover_probes_natively_and_falls_back_to_the_stock_elector_saying_why(LocalKafkaCluster cluster)
            throws Exception {
        PartitionView before = cluster.metadata().describePartition(ORDERS_0);
        Path plan = dir.resolve("auto.json");

        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "recover", "--accept-unknown-loss", "--automated-recovery", "--reason", "test",
                "--strategy", "proactive", "--probe-timeout-ms", "3000", "--reprobe-timeout-ms", "3000",
                "--output-file", plan.toString());

        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.OK);
        PlannedElection election = PlanFile.read(plan).partitions().get(0);
        assertThat(election.designatedLeader()).isEqualTo(LastReplicaStandingOutage.LONGEST_SURVIVOR);
        assertThat(election.evidence()).filteredOn(e -> e.status() == EvidenceStatus.OK)
                .extracting(PlanEvidence::broker, PlanEvidence::source, PlanEvidence::logEndOffset)
                .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple(3, EvidenceSource.NATIVE, 50L),
                        org.assertj.core.groups.Tuple.tuple(2, EvidenceSource.NATIVE, 100L));
        assertThat(run.err().replaceAll("\\s+", " ")).containsPattern("stock elector \\((controllers do not offer|not every live broker offers)"
                + " ElectLeaders v3");
        PartitionView after = cluster.metadata().awaitPartition(ORDERS_0, v -> v.leader() != PartitionView.NO_LEADER,
                Duration.ofSeconds(30));
        assertThat(after.leader()).isEqualTo(LastReplicaStandingOutage.LONGEST_SURVIVOR);
        // The restore is committed before the tool returns; the broker we ask may learn it a moment later.
        assertThat(cluster.metadata().awaitPartition(ORDERS_0, v -> v.replicas().equals(before.replicas()),
                Duration.ofSeconds(30))
                .replicas()).as("original order restored").isEqualTo(before.replicas());
        ResultFile result = ResultFile.read(dir.resolve("auto-result.json"));
        assertThat(result.elector()).startsWith("stock elector (").contains("ElectLeaders v3");
        assertThat(result.partitions()).singleElement().satisfies(p -> {
            assertThat(p.outcome()).isEqualTo("ELECTED");
            assertThat(p.after().leaderEpoch()).isEqualTo(p.before().leaderEpoch() + 1);
        });
    }

}
