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
import dev.uncleanrecovery.localcluster.StopMode;
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
 * The KIP-966 outage on a cluster where brokers and controller run the kafka-patch agent: orders-0 offline with
 * replicas [1,3,2], 1 down, 3 holding 50 records and 2 holding 100. The tool probes with GetReplicaLogInfo and
 * elects with ElectLeaders v3 DesignatedLeaders — no reorder, no stock fallback. Kafka 4.4.0 here; the subclasses
 * run the same on the other lines the agent supports.
 */
@KafkaClusterTest(brokers = 3, patchAgentOn = {NodeRole.BROKER, NodeRole.CONTROLLER})
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class NativeRecoveryClusterTest extends OfflineOrdersPartition {

    @Test
    @Order(1)
    void status_lists_the_live_brokers_that_speak_the_native_rpcs(LocalKafkaCluster cluster) {
        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "status");

        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.ATTENTION);
        assertThat(run.out()).contains("Native RPCs (GetReplicaLogInfo / ElectLeaders v3): brokers 2,3 / brokers 2,3");
    }

    @Test
    @Order(2)
    void native_plan_shows_native_evidence_with_broker_epochs_and_designates_the_longest_log(LocalKafkaCluster cluster)
            throws Exception {
        Path file = dir.resolve("native.json");

        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "plan", "--probe-mode", "native",
                "--strategy", "proactive", "--probe-timeout-ms", "3000", "--output-file", file.toString());

        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.OK);
        PlannedElection election = PlanFile.read(file).partitions().get(0);
        assertThat(election.topicPartition()).isEqualTo(ORDERS_0);
        assertThat(election.designatedLeader()).isEqualTo(LastReplicaStandingOutage.LONGEST_SURVIVOR);
        assertThat(evidence(election, 2)).satisfies(e -> {
            assertThat(e.status()).isEqualTo(EvidenceStatus.OK);
            assertThat(e.source()).isEqualTo(EvidenceSource.NATIVE);
            assertThat(e.logEndOffset()).isEqualTo(100L);
            assertThat(e.lastWrittenLeaderEpoch()).isZero();
            assertThat(e.currentLeaderEpoch()).isEqualTo(election.expected().leaderEpoch());
            assertThat(e.brokerEpoch()).isNotNull().isPositive();
        });
        assertThat(evidence(election, 3)).satisfies(e -> {
            assertThat(e.source()).isEqualTo(EvidenceSource.NATIVE);
            assertThat(e.logEndOffset()).isEqualTo(50L);
            assertThat(e.brokerEpoch()).isNotNull().isPositive();
        });
        assertThat(run.out()).contains("Evidence: native GetReplicaLogInfo from broker 2 (broker epoch "
                + evidence(election, 2).brokerEpoch() + "), broker 3 (broker epoch " + evidence(election, 3).brokerEpoch() + ")");
        assertThat(run.out()).doesNotContain("stock RPCs");
    }

    @Test
    @Order(3)
    void a_designated_broker_restarted_since_the_plan_is_refused_for_its_new_broker_epoch(LocalKafkaCluster cluster)
            throws Exception {
        // given: a plan, then designated broker 2 restarted (cleanly: its log is whole, its broker epoch is new)
        Path plan = planNative(cluster, "before-restart.json");
        long plannedEpoch = evidence(PlanFile.read(plan).partitions().get(0), 2).brokerEpoch();
        cluster.stopBroker(LastReplicaStandingOutage.LONGEST_SURVIVOR, StopMode.CLEAN);
        cluster.startBroker(LastReplicaStandingOutage.LONGEST_SURVIVOR);

        // when
        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test", "--accept-unknown-loss", "--plan", plan.toString(),
                "--probe-mode", "native", "--reprobe-timeout-ms", "5000");

        // then: the native path does not elect a broker whose log may have changed in ways a log end offset hides
        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.ATTENTION);
        assertThat(ResultFile.read(dir.resolve("before-restart-result.json")).partitions()).singleElement()
                .satisfies(p -> {
                    assertThat(p.outcome()).isEqualTo("REFUSED");
                    assertThat(p.detail()).startsWith("designated broker 2 restarted since the plan (broker epoch "
                            + plannedEpoch + " -> ").endsWith("); plan again");
                });
        assertThat(cluster.metadata().describePartition(ORDERS_0).leader()).isEqualTo(PartitionView.NO_LEADER);
    }

    @Test
    @Order(4)
    void execute_elects_the_designated_replica_with_elect_leaders_v3_and_says_so(LocalKafkaCluster cluster) throws Exception {
        PartitionView before = cluster.metadata().describePartition(ORDERS_0);
        // A plan made after broker 2's restart (the first plan's broker epochs are outdated).
        Path plan = planNative(cluster, "native-after-restart.json");

        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test", "--accept-unknown-loss", "--plan", plan.toString(),
                "--probe-mode", "native", "--reprobe-timeout-ms", "3000");

        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.OK);
        assertThat(run.err().replaceAll("\\s+", " ")).contains("native: ElectLeaders v3 with DesignatedLeaders")
                .doesNotContain("stock elector");
        assertThat(run.out()).contains("native").doesNotContain("stock elector");
        PartitionView after = cluster.metadata().awaitPartition(ORDERS_0, v -> v.leader() != PartitionView.NO_LEADER,
                Duration.ofSeconds(30));
        assertThat(after.leader()).isEqualTo(LastReplicaStandingOutage.LONGEST_SURVIVOR);
        assertThat(after.replicas()).as("nothing reordered").isEqualTo(before.replicas());
        ResultFile result = ResultFile.read(dir.resolve("native-after-restart-result.json"));
        assertThat(result.elector()).startsWith("native: ElectLeaders v3 with DesignatedLeaders");
        assertThat(result.partitions()).singleElement().satisfies(p -> {
            assertThat(p.outcome()).isEqualTo("ELECTED");
            assertThat(p.after().leader()).isEqualTo(LastReplicaStandingOutage.LONGEST_SURVIVOR);
            assertThat(p.after().leaderEpoch()).isEqualTo(p.before().leaderEpoch() + 1);
        });
    }

    /** A native, proactive plan of every offline partition into {@code name}; it must succeed. */
    private static Path planNative(LocalKafkaCluster cluster, String name) {
        Path plan = dir.resolve(name);
        CliRun planned = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "plan", "--probe-mode", "native",
                "--strategy", "proactive", "--probe-timeout-ms", "3000", "--output-file", plan.toString());
        assertThat(planned.exitCode()).as(planned.out() + planned.err()).isEqualTo(ExitCode.OK);
        return plan;
    }
}
