// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.versions;

import static dev.uncleanrecovery.localcluster.LastReplicaStandingOutage.LAST_LEADER;
import static dev.uncleanrecovery.localcluster.LastReplicaStandingOutage.LONGEST_SURVIVOR;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.uncleanrecovery.cli.CliRun;
import dev.uncleanrecovery.cli.ExitCode;
import dev.uncleanrecovery.election.TruncationEstimate;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.MetadataMode;
import dev.uncleanrecovery.localcluster.PartitionView;
import dev.uncleanrecovery.localcluster.RecordCount;
import dev.uncleanrecovery.formats.Json;
import dev.uncleanrecovery.formats.Plan;
import dev.uncleanrecovery.formats.PlanFile;
import dev.uncleanrecovery.formats.PlanTruncation;
import dev.uncleanrecovery.formats.PlannedElection;
import dev.uncleanrecovery.formats.ResultFile;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The core story on one Kafka version (each subclass names it in its {@code @KafkaClusterTest}), on two outages
 * made by the same kills:
 *
 * <ul>
 *   <li>KIP-966's last replica standing on topic {@code story} — replicas [1,3,2], 1 dead for good holding 5
 *       acks=1 records nobody else has, 2 holding 40 records, 3 holding 20;</li>
 *   <li>divergent epochs on topic {@code diverge} — replicas [3,2,1]: 3 holds 30 records of epoch 0 (20 of them
 *       acks=1, written while 2 was frozen), 2 holds the first 10 and 5 of a newer epoch, written with acks=all
 *       once 3 had died: the shorter log is the newer one, and Kafka's own unclean election would pick 3.</li>
 * </ul>
 *
 * ({@link EveryIsrMemberKilled} builds both.) Then status, plan (balanced and proactive), inspect of the dead leader's disk, execute and recover. With ELR
 * (4.1+) the dead leader is LastKnownELR; without (3.x, 4.0, and a 4.x cluster that runs without ELR as one
 * upgraded from 3.x does) it stays in the leaderless ISR: balanced waits for it either way.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
abstract class KafkaVersionSuite {

    private static final TopicPartition STORY_0 = EveryIsrMemberKilled.STORY_0;
    private static final TopicPartition STORY_1 = EveryIsrMemberKilled.STORY_1;
    private static final TopicPartition DIVERGE = EveryIsrMemberKilled.DIVERGE;
    /** Built like {@link #DIVERGE}; executed with the plan's alternative designated by hand. */
    private static final TopicPartition DIVERGE_ALTERNATIVE = EveryIsrMemberKilled.DIVERGE_ALTERNATIVE;
    private static final List<TopicPartition> DIVERGING = EveryIsrMemberKilled.DIVERGING;
    private static final int OLDER_EPOCH_LONGER_LOG = EveryIsrMemberKilled.OLDER_EPOCH_LONGER_LOG;
    private static final int NEWER_EPOCH_SHORTER_LOG = EveryIsrMemberKilled.NEWER_EPOCH_SHORTER_LOG;
    private static final Duration STEP = Duration.ofSeconds(60);

    @TempDir
    static Path dir;

    @BeforeAll
    static void killEveryIsrMember(LocalKafkaCluster cluster) {
        EveryIsrMemberKilled.build(cluster);
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
        boolean elrOn = !cluster.metadata().describePartition(STORY_0).lastKnownElr().isEmpty();
        boolean zooKeeper = cluster.metadataMode() == MetadataMode.ZOOKEEPER;
        if (zooKeeper) {
            assertThat(run.out()).contains("Eligible Leader Replicas (KIP-966): none in ZooKeeper mode (KRaft only);"
                    + " balanced waits for the leaderless ISR, commitment is judged by the replicas' high watermarks");
        } else if (version.startsWith("3.")) {
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
        assertThat(Json.mapper().readTree(json.out()).get("zooKeeperMode").asBoolean()).isEqualTo(zooKeeper);
    }

    @Test
    @Order(2)
    void plan_says_only_what_the_cluster_lists_about_the_dead_broker(LocalKafkaCluster cluster) throws Exception {
        Path file = dir.resolve("listed.json");

        plan(cluster, file, "--strategy", "proactive");

        // 4.x lists fenced brokers (KIP-1073): broker 1 is registered and fenced; 3.x lists only unfenced brokers
        String reason = PlanFile.read(file).unansweredBrokers().stream().filter(b -> b.broker() == LAST_LEADER)
                .findFirst().map(b -> b.reason()).orElse("");
        String address = "--broker-address=" + LAST_LEADER + "=" + cluster.brokerAddress(LAST_LEADER);
        if (cluster.kafkaVersion().startsWith("3.")) {
            assertThat(reason).isEqualTo("broker 1 is not listed by the cluster: down or fenced (Kafka 3.x lists"
                    + " unfenced brokers only; --broker-address 1=HOST:PORT probes it)");
            // asked at the address given, the broker tells which: it refuses connections, so it is down
            Path asked = dir.resolve("asked.json");
            CliRun run = plan(cluster, asked, "--strategy", "proactive", address);
            assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.OK);
            assertThat(PlanFile.read(asked).unansweredBrokers()).filteredOn(b -> b.broker() == LAST_LEADER)
                    .singleElement().satisfies(b -> {
                        assertThat(b.address()).isEqualTo(cluster.brokerAddress(LAST_LEADER));
                        assertThat(b.reason()).contains("connection refused").doesNotContain("not listed");
                    });
        } else {
            CliRun listed = plan(cluster, dir.resolve("not-written.json"), address);
            assertThat(listed.exitCode()).as(listed.out() + listed.err()).isEqualTo(ExitCode.USAGE);
            assertThat(listed.err()).contains("the cluster lists broker 1 at " + cluster.brokerAddress(LAST_LEADER));
            assertThat(dir.resolve("not-written.json")).doesNotExist();
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
        PartitionView offline = cluster.metadata().describePartition(STORY_0);
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

        long plannedCut = PlanFile.read(file).partitions().get(0).expectedTruncation().stream()
                .filter(t -> t.broker() == OLDER_EPOCH_LONGER_LOG).findFirst().orElseThrow().fromOffset();

        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test", "--accept-unknown-loss", "--plan", file.toString());

        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.OK);
        assertThat(ResultFile.read(dir.resolve("proactive-result.json")).partitions()).singleElement().satisfies(p -> {
            assertThat(p.outcome()).isEqualTo("ELECTED");
            // Leader epochs are known on every version (3.7 through Metadata): the election is proven by epoch + 1.
            assertThat(p.before().leaderEpoch()).isNotNegative();
            assertThat(p.after().leaderEpoch()).isEqualTo(p.before().leaderEpoch() + 1);
        });
        assertThat(cluster.metadata().awaitPartition(STORY_0, v -> v.leader() != PartitionView.NO_LEADER,
                Duration.ofSeconds(30))
                .leader()).isEqualTo(LONGEST_SURVIVOR);
        assertThat(RecordCount.readable(cluster, List.of(STORY_0), Duration.ofSeconds(30))).isEqualTo(40);
    }

    @Test
    @Order(6)
    void recover_elects_the_longest_log_in_one_run(LocalKafkaCluster cluster) {
        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "recover", "--accept-unknown-loss", "--automated-recovery", "--reason", "test",
                "--strategy", "proactive", "--probe-timeout-ms", "3000", "--topic", "story", "--partition", "1",
                "--output-file", dir.resolve("recover.json").toString());

        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.OK);
        assertThat(cluster.metadata().awaitPartition(STORY_1, v -> v.leader() != PartitionView.NO_LEADER,
                Duration.ofSeconds(30))
                .leader()).isEqualTo(LONGEST_SURVIVOR);
        assertThat(RecordCount.readable(cluster, List.of(STORY_1), Duration.ofSeconds(30))).isEqualTo(40);
    }

    @Test
    @Order(7)
    void the_newer_epoch_wins_over_the_longer_log(LocalKafkaCluster cluster) throws Exception {
        Path balanced = dir.resolve("diverge-balanced.json");
        CliRun waited = plan(cluster, "diverge", balanced);
        assertThat(waited.exitCode()).as(waited.out() + waited.err()).isEqualTo(ExitCode.ATTENTION);
        assertThat(PlanFile.read(balanced).skipped()).hasSize(2).allSatisfy(s -> assertThat(s.reason())
                .contains("member " + LAST_LEADER + " ").contains("the balanced strategy waits for it"));
        Path file = dir.resolve("diverge.json");

        CliRun run = plan(cluster, "diverge", file, "--strategy", "proactive");

        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.OK);
        List<PlannedElection> partitions = PlanFile.read(file).partitions();
        assertThat(partitions).extracting(PlannedElection::topicPartition).containsExactlyElementsOf(DIVERGING);
        for (PlannedElection planned : partitions) {
            assertThat(planned.designatedLeader()).isEqualTo(NEWER_EPOCH_SHORTER_LOG);
            assertThat(planned.evidence()).filteredOn(e -> e.broker() == OLDER_EPOCH_LONGER_LOG).singleElement()
                    .satisfies(e -> assertThat(e.logEndOffset()).isEqualTo(30L));
            assertThat(planned.evidence()).filteredOn(e -> e.broker() == NEWER_EPOCH_SHORTER_LOG).singleElement()
                    .satisfies(e -> assertThat(e.logEndOffset()).isEqualTo(15L));
            // exact although the epochs differ: the brokers answered the follower's look-ups (epoch 0 ends at 10 on 2)
            assertThat(planned.expectedTruncation()).filteredOn(t -> t.broker() == OLDER_EPOCH_LONGER_LOG)
                    .singleElement().satisfies(t -> {
                        assertThat(t.estimate()).isEqualTo(TruncationEstimate.EXACT);
                        assertThat(t.fromOffset()).isEqualTo(10L);
                        assertThat(t.records()).isEqualTo(20L);
                        // 3's twenty acks=1 records were never committed: frozen 2 kept its high watermark at 10
                        assertThat(t.committedRecords()).isZero();
                    });
            // electing 3 instead would cut 2 where epoch 0 ends on 2 (10): its five acks=all records, all committed
            assertThat(planned.alternatives()).singleElement().satisfies(a -> {
                assertThat(a.broker()).isEqualTo(OLDER_EPOCH_LONGER_LOG);
                assertThat(a.expectedTruncation()).filteredOn(t -> t.broker() == NEWER_EPOCH_SHORTER_LOG).singleElement()
                        .satisfies(t -> {
                            assertThat(t.estimate()).isEqualTo(TruncationEstimate.EXACT);
                            assertThat(t.fromOffset()).isEqualTo(10L);
                            assertThat(t.records()).isEqualTo(5L);
                            assertThat(t.committedRecords()).isEqualTo(5L);
                        });
            });
            assertThat(planned.reason()).startsWith("electing 2 loses 0 committed and 20 never committed records, and an unknown"
                    + " amount on 1; electing 3 would lose 5 committed and 0 never committed records, and an unknown amount on 1;");
        }
    }

    @Test
    @Order(8)
    void execute_cuts_each_replica_where_the_plan_said_for_the_designated_leader_and_for_the_alternative(
            LocalKafkaCluster cluster) throws Exception {
        Path file = dir.resolve("diverge-execute.json");
        CliRun planned = plan(cluster, "diverge", file, "--strategy", "proactive");
        assertThat(planned.exitCode()).as(planned.out() + planned.err()).isEqualTo(ExitCode.OK);
        // the reviewer takes the alternative on diverge-1: 3, whose cost the plan lists
        ObjectNode edited = (ObjectNode) Json.mapper().readTree(file.toFile());
        ObjectNode second = (ObjectNode) edited.get("partitions").get(1);
        assertThat(second.get("partition").asInt()).isEqualTo(DIVERGE_ALTERNATIVE.partition());
        second.put("designatedLeader", OLDER_EPOCH_LONGER_LOG);
        Json.mapper().writeValue(file.toFile(), edited);
        Plan plan = PlanFile.read(file);
        long cutOn3 = cut(plan.partitions().get(0).expectedTruncation(), OLDER_EPOCH_LONGER_LOG);
        long cutOn2 = cut(plan.partitions().get(1).alternatives().get(0).expectedTruncation(), NEWER_EPOCH_SHORTER_LOG);

        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test", "--accept-unknown-loss", "--plan", file.toString());

        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.OK);
        // diverge-0: broker 3 follows 2; epoch 0 ended at offset 10 on 2, so 3 cuts its 20 acks=1 records there and
        // copies 2's five records of the newer epoch (it is back in the ISR once its log equals the leader's)
        cluster.metadata().awaitPartition(DIVERGE, v -> v.leader() == NEWER_EPOCH_SHORTER_LOG
                && v.isr().contains(OLDER_EPOCH_LONGER_LOG), STEP);
        assertThat(RecordCount.readable(cluster, List.of(DIVERGE), Duration.ofSeconds(30))).isEqualTo(15);
        // diverge-1: broker 2 follows 3; it cuts its five committed records where epoch 0 ends on it (10)
        cluster.metadata().awaitPartition(DIVERGE_ALTERNATIVE, v -> v.leader() == OLDER_EPOCH_LONGER_LOG
                && v.isr().contains(NEWER_EPOCH_SHORTER_LOG), STEP);
        assertThat(RecordCount.readable(cluster, List.of(DIVERGE_ALTERNATIVE), Duration.ofSeconds(30))).isEqualTo(30);
        // the cuts the plan stated are the ones the brokers made, and the ones the tool read back after electing
        assertThat(cluster.nodes().logSinceLastStart(OLDER_EPOCH_LONGER_LOG)).containsPattern(truncatedAt(DIVERGE,
                cutOn3));
        assertThat(cluster.nodes().logSinceLastStart(NEWER_EPOCH_SHORTER_LOG))
                .containsPattern(truncatedAt(DIVERGE_ALTERNATIVE, cutOn2));
        ResultFile result = ResultFile.read(dir.resolve("diverge-execute-result.json"));
        assertThat(result.partitions()).extracting(p -> p.truncations().stream()
                        .filter(t -> t.broker() != p.designatedLeader() && t.broker() != LAST_LEADER).toList())
                .containsExactly(
                        List.of(new ResultFile.Truncation(OLDER_EPOCH_LONGER_LOG, cutOn3, cutOn3, 30)),
                        List.of(new ResultFile.Truncation(NEWER_EPOCH_SHORTER_LOG, cutOn2, cutOn2, 15)));
        assertThat(run.out()).contains("diverge-0 replica 3: loses 20 [10..30), as planned",
                "diverge-1 replica 2: loses 5 [10..15), as planned");
    }

    private static long cut(List<PlanTruncation> truncations, int broker) {
        return truncations.stream().filter(t -> t.broker() == broker).findFirst().orElseThrow().fromOffset();
    }

    /** Kafka's UnifiedLog line for a follower's truncation, which names the partition before or after the offset. */
    private static String truncatedAt(TopicPartition tp, long offset) {
        return "Truncating to offset " + offset + "\\b.*" + tp + "\\b|" + tp + "\\b.*Truncating to offset " + offset + "\\b";
    }

    private static CliRun plan(LocalKafkaCluster cluster, Path file, String... more) {
        return plan(cluster, "story", file, more);
    }

    private static CliRun plan(LocalKafkaCluster cluster, String topic, Path file, String... more) {
        List<String> args = new ArrayList<>(List.of("--bootstrap-server", cluster.bootstrapServers(), "plan",
                "--probe-timeout-ms", "3000", "--topic", topic, "--output-file", file.toString()));
        args.addAll(List.of(more));
        return CliRun.of(args.toArray(String[]::new));
    }
}
