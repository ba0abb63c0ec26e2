// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.versions;

import static dev.uncleanrecovery.localcluster.LastReplicaStandingOutage.LAST_LEADER;
import static dev.uncleanrecovery.localcluster.LastReplicaStandingOutage.LONGEST_SURVIVOR;
import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.cli.CliRun;
import dev.uncleanrecovery.cli.ExitCode;
import dev.uncleanrecovery.localcluster.LastReplicaStandingOutage;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.PartitionView;
import dev.uncleanrecovery.localcluster.RecordCount;
import dev.uncleanrecovery.plan.Json;
import dev.uncleanrecovery.plan.Plan;
import dev.uncleanrecovery.plan.PlanFile;
import dev.uncleanrecovery.plan.ResultFile;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The core story on one Kafka version (each subclass names it in its {@code @KafkaClusterTest}): KIP-966's last
 * replica standing on topic {@code story} — replicas [1,3,2], 1 dead for good holding 5 acks=1 records nobody
 * else has, 2 holding 40 records, 3 holding 20 — then status, plan (balanced and proactive), inspect of the dead
 * leader's disk, execute and recover. With ELR (4.1+) the dead leader is LastKnownELR; without (3.x, 4.0, and a
 * 4.x cluster that runs without ELR as one upgraded from 3.x does) it stays in the leaderless ISR: balanced waits
 * for it either way.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
abstract class KafkaVersionSuite {

    private static final TopicPartition STORY_0 = new TopicPartition("story", 0);
    private static final TopicPartition STORY_1 = new TopicPartition("story", 1);

    @TempDir
    static Path dir;

    @BeforeAll
    static void killEveryIsrMember(LocalKafkaCluster cluster) {
        LastReplicaStandingOutage.reproduce(cluster, "story", 2, 20, 5, s -> { });
    }

    @Test
    @Order(1)
    void status_shows_both_partitions_offline_and_what_this_version_has_of_elr(LocalKafkaCluster cluster) throws Exception {
        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "status", "--topic", "story");

        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.ATTENTION);
        assertThat(run.out()).contains("Offline partitions (no leader): 2");
        // ELR: no such feature on 3.x; off on 4.0 and on clusters formatted without it; on from 4.1 otherwise. The
        // partition itself shows which: with ELR its dead last leader is LastKnownELR, without it stays in the ISR.
        String version = cluster.kafkaVersion();
        boolean elrOn = !cluster.describePartition(STORY_0).lastKnownElr().isEmpty();
        if (version.startsWith("3.")) {
            assertThat(run.out()).contains("Eligible Leader Replicas (KIP-966): not in Kafka 3.x (upgrade to 4.0+ first)")
                    .doesNotContain("kafka-features.sh");
        } else if (!elrOn) {
            assertThat(run.out()).contains("Eligible Leader Replicas (KIP-966): DISABLED — enable with: kafka-features.sh");
        } else {
            assertThat(run.out()).contains("Eligible Leader Replicas (KIP-966): enabled");
        }
        CliRun json = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "--output", "json", "status",
                "--topic", "story");
        assertThat(Json.mapper().readTree(json.out()).get("elrSupported").asBoolean()).isEqualTo(!version.startsWith("3."));
    }

    @Test
    @Order(2)
    void plan_says_only_what_the_cluster_lists_about_the_dead_broker(LocalKafkaCluster cluster) throws Exception {
        Path file = dir.resolve("listed.json");

        plan(cluster, file, "--strategy", "proactive");

        // 4.x lists fenced brokers (KIP-1073): broker 1 is registered and fenced; 3.x lists only unfenced brokers
        String reason = PlanFile.read(file).unansweredBrokers().stream().filter(b -> b.broker() == LAST_LEADER)
                .findFirst().map(b -> b.reason()).orElse("");
        if (cluster.kafkaVersion().startsWith("3.")) {
            assertThat(reason).isEqualTo("broker 1 is not listed by the cluster: down or fenced (Kafka 3.x lists"
                    + " unfenced brokers only)");
        } else {
            assertThat(reason).doesNotContain("not registered", "not listed");
            CliRun status = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "--output", "json", "status",
                    "--topic", "story");
            assertThat(Json.mapper().readTree(status.out()).get("fencedBrokers")).extracting(n -> n.asInt())
                    .containsExactly(LAST_LEADER);
        }
    }

    @Test
    @Order(3)
    void balanced_waits_for_the_dead_last_leader(LocalKafkaCluster cluster) throws Exception {
        Path file = dir.resolve("balanced.json");

        CliRun run = plan(cluster, file);

        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.ATTENTION);
        Plan plan = PlanFile.read(file);
        assertThat(plan.partitions()).isEmpty();
        PartitionView offline = cluster.describePartition(STORY_0);
        String role = offline.lastKnownElr().contains(LAST_LEADER) ? "LastKnownELR" : "leaderless-ISR";
        assertThat(plan.skipped()).hasSize(2).allSatisfy(s -> assertThat(s.reason())
                .startsWith(role + " member " + LAST_LEADER + " ").contains("the balanced strategy waits for it"));
    }

    @Test
    @Order(4)
    void with_the_dead_leaders_disk_balanced_designates_the_longest_log_and_counts_the_loss(LocalKafkaCluster cluster)
            throws Exception {
        Path evidence = dir.resolve("broker-1.json");
        CliRun inspected = CliRun.of("inspect", "--log-dir", cluster.logDir(LAST_LEADER).toString(),
                "--output-file", evidence.toString());
        assertThat(inspected.exitCode()).as(inspected.out() + inspected.err()).isEqualTo(ExitCode.OK);
        Path file = dir.resolve("with-evidence.json");

        CliRun run = plan(cluster, file, "--evidence", evidence.toString());

        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.OK);
        assertThat(PlanFile.read(file).partitions()).hasSize(2).allSatisfy(p -> {
            assertThat(p.designatedLeader()).isEqualTo(LONGEST_SURVIVOR);
            assertThat(p.expectedTruncation()).filteredOn(t -> t.broker() == LAST_LEADER).singleElement()
                    .satisfies(t -> assertThat(t.records()).isEqualTo(5));
        });
    }

    @Test
    @Order(5)
    void execute_of_a_proactive_plan_elects_the_longest_log_and_keeps_every_record_it_held(LocalKafkaCluster cluster)
            throws Exception {
        Path file = dir.resolve("proactive.json");
        CliRun planned = plan(cluster, file, "--strategy", "proactive", "--partition", "0");
        assertThat(planned.exitCode()).as(planned.out() + planned.err()).isEqualTo(ExitCode.OK);

        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--plan", file.toString());

        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.OK);
        assertThat(ResultFile.read(dir.resolve("proactive-result.json")).partitions()).singleElement().satisfies(p -> {
            assertThat(p.outcome()).isEqualTo("ELECTED");
            // Leader epochs are known on every version (3.7 through Metadata): the election is proven by epoch + 1.
            assertThat(p.before().leaderEpoch()).isNotNegative();
            assertThat(p.after().leaderEpoch()).isEqualTo(p.before().leaderEpoch() + 1);
        });
        assertThat(cluster.awaitPartition(STORY_0, v -> v.leader() != PartitionView.NO_LEADER, Duration.ofSeconds(30))
                .leader()).isEqualTo(LONGEST_SURVIVOR);
        assertThat(RecordCount.readable(cluster, List.of(STORY_0), Duration.ofSeconds(30))).isEqualTo(40);
    }

    @Test
    @Order(6)
    void recover_elects_the_longest_log_in_one_run(LocalKafkaCluster cluster) {
        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "recover", "--automated-recovery",
                "--strategy", "proactive", "--probe-timeout-ms", "3000", "--topic", "story", "--partition", "1",
                "--output-file", dir.resolve("recover.json").toString());

        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.OK);
        assertThat(cluster.awaitPartition(STORY_1, v -> v.leader() != PartitionView.NO_LEADER, Duration.ofSeconds(30))
                .leader()).isEqualTo(LONGEST_SURVIVOR);
        assertThat(RecordCount.readable(cluster, List.of(STORY_1), Duration.ofSeconds(30))).isEqualTo(40);
    }

    private static CliRun plan(LocalKafkaCluster cluster, Path file, String... more) {
        List<String> args = new java.util.ArrayList<>(List.of("--bootstrap-server", cluster.bootstrapServers(), "plan",
                "--probe-timeout-ms", "3000", "--topic", "story", "--output-file", file.toString()));
        args.addAll(List.of(more));
        return CliRun.of(args.toArray(String[]::new));
    }
}
