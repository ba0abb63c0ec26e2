// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.LastReplicaStandingOutage;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.NodeRole;
import dev.uncleanrecovery.localcluster.PartitionView;
import dev.uncleanrecovery.formats.PlanFile;
import dev.uncleanrecovery.formats.PlannedElection;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * A half-upgraded cluster: the controller and brokers 1 and 2 run the kafka-patch agent, broker 3 does not.
 * In auto mode broker 2 is probed natively and broker 3 the stock way, and the decision is the all-stock one.
 */
@KafkaClusterTest(brokers = 3, patchAgentOn = {NodeRole.BROKER, NodeRole.CONTROLLER}, brokersWithoutPatchAgent = 3)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class NativeMixedClusterTest extends OfflineOrdersPartition {

    @Test
    @Order(1)
    void the_broker_without_the_agent_is_probed_the_stock_way_and_the_decision_is_the_all_stock_one(
            LocalKafkaCluster cluster) throws Exception {
        Path auto = dir.resolve("auto.json");
        Path stock = dir.resolve("stock.json");

        CliRun autoRun = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "plan", "--strategy", "proactive",
                "--probe-timeout-ms", "3000", "--output-file", auto.toString());
        CliRun stockRun = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "plan", "--strategy", "proactive",
                "--probe-mode", "stock", "--probe-timeout-ms", "3000", "--output-file", stock.toString());

        assertThat(autoRun.exitCode()).as(autoRun.out() + autoRun.err()).isEqualTo(ExitCode.OK);
        assertThat(stockRun.exitCode()).as(stockRun.out() + stockRun.err()).isEqualTo(ExitCode.OK);
        PlannedElection mixed = PlanFile.read(auto).partitions().get(0);
        PlannedElection allStock = PlanFile.read(stock).partitions().get(0);
        assertThat(evidence(mixed, 2).source()).isEqualTo(EvidenceSource.NATIVE);
        assertThat(evidence(mixed, 2).brokerEpoch()).isPositive();
        assertThat(evidence(mixed, 3).source()).isEqualTo(EvidenceSource.STOCK);
        assertThat(evidence(mixed, 3).status()).isEqualTo(EvidenceStatus.OK);
        assertThat(mixed.designatedLeader()).isEqualTo(allStock.designatedLeader())
                .isEqualTo(LastReplicaStandingOutage.LONGEST_SURVIVOR);
        for (int broker : new int[] {2, 3}) {
            assertThat(evidence(mixed, broker).logEndOffset()).isEqualTo(evidence(allStock, broker).logEndOffset());
            assertThat(evidence(mixed, broker).lastWrittenLeaderEpoch()).isEqualTo(evidence(allStock, broker).lastWrittenLeaderEpoch());
        }
    }

    @Test
    @Order(2)
    void execution_uses_the_stock_elector_because_one_live_broker_lacks_elect_leaders_v3(LocalKafkaCluster cluster) {
        Path plan = dir.resolve("to-execute.json");
        CliRun planned = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "plan", "--strategy", "proactive",
                "--probe-timeout-ms", "3000", "--output-file", plan.toString());
        assertThat(planned.exitCode()).as(planned.out() + planned.err()).isEqualTo(ExitCode.OK);

        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test", "--accept-unknown-loss", "--plan",
                plan.toString(), "--reprobe-timeout-ms", "3000");

        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.OK);
        assertThat(run.out()).contains("stock elector");
        assertThat(run.err().replaceAll("\\s+", " ")).contains("stock elector (");
        assertThat(cluster.metadata().awaitPartition(ORDERS_0, v -> v.leader() != PartitionView.NO_LEADER,
                Duration.ofSeconds(30)).leader())
                .isEqualTo(LastReplicaStandingOutage.LONGEST_SURVIVOR);
    }

}
