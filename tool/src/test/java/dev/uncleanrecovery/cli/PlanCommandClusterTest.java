// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.harness.KafkaToolProcess;
import dev.uncleanrecovery.localcluster.LastReplicaStandingOutage;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.PartitionView;
import dev.uncleanrecovery.formats.Plan;
import dev.uncleanrecovery.formats.PlanEvidence;
import dev.uncleanrecovery.formats.PlanFile;
import dev.uncleanrecovery.formats.PlannedElection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The KIP-966 outage leaves orders-0 offline with replicas [1,3,2]: 1 (the last leader, LastKnownELR) is
 * down, 3 holds 50 records, 2 holds 100. Kafka's own unclean election would pick 3; the plan must pick 2.
 */
@KafkaClusterTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PlanCommandClusterTest {

    private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);

    @TempDir
    static Path dir;

    @BeforeAll
    static void breakTheCluster(LocalKafkaCluster cluster) {
        LastReplicaStandingOutage.reproduce(cluster, "orders", 1, 50, 10, s -> { });
    }

    @Test
    @Order(1)
    void balanced_waits_for_the_last_known_elr_member_and_says_so(LocalKafkaCluster cluster) throws Exception {
        Path file = dir.resolve("balanced.json");

        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "plan", "--probe-timeout-ms", "3000",
                "--output-file", file.toString());

        assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCode.ATTENTION);
        Plan plan = PlanFile.read(file);
        assertThat(plan.partitions()).isEmpty();
        assertThat(plan.skipped()).singleElement().satisfies(s -> {
            assertThat(s.topicPartition()).isEqualTo(ORDERS_0);
            assertThat(s.reason()).contains("LastKnownELR member 1");
        });
        assertThat(run.out()).contains("Skipped: 1", "orders-0");
    }

    @Test
    @Order(2)
    void proactive_designates_the_longest_log_although_it_is_not_first_in_assignment_order(LocalKafkaCluster cluster)
            throws Exception {
        Path file = dir.resolve("proactive.json");
        PartitionView before = cluster.metadata().describePartition(ORDERS_0);

        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "plan", "--strategy", "proactive",
                "--probe-timeout-ms", "3000", "--output-file", file.toString());

        assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCode.OK);
        PlannedElection election = PlanFile.read(file).partitions().get(0);
        assertThat(election.topicPartition()).isEqualTo(ORDERS_0);
        assertThat(election.designatedLeader()).isEqualTo(LastReplicaStandingOutage.LONGEST_SURVIVOR);
        assertThat(election.expected().replicas()).containsExactly(1, 3, 2);
        assertThat(evidence(election, 2)).satisfies(e -> {
            assertThat(e.status()).isEqualTo(EvidenceStatus.OK);
            assertThat(e.source()).isEqualTo(EvidenceSource.STOCK);
            assertThat(e.logEndOffset()).isEqualTo(100L);
            assertThat(e.lastWrittenLeaderEpoch()).isZero();
        });
        assertThat(evidence(election, 3)).satisfies(e -> {
            assertThat(e.logEndOffset()).isEqualTo(50L);
            assertThat(e.lastWrittenLeaderEpoch()).isZero();
        });
        assertThat(evidence(election, 1).status()).isEqualTo(EvidenceStatus.UNREACHABLE);
        assertThat(run.out()).contains("orders-0", "2 (epoch 0, LEO 100", "3 (epoch 0, LEO 50", "Nothing was changed");
        assertThat(cluster.metadata().describePartition(ORDERS_0)).as("plan never changes the cluster").isEqualTo(before);

        // and Kafka's own tool accepts the plan file: PREFERRED leaves the offline partition alone (its preferred
        // replica 1 is down), so nothing changes, yet the tool must have parsed the file to name the partition
        KafkaToolProcess.Run kafkaTool = KafkaToolProcess.run("org.apache.kafka.tools.LeaderElectionCommand",
                "--bootstrap-server", cluster.bootstrapServers(), "--election-type", "preferred",
                "--path-to-json-file", file.toString());
        assertThat(kafkaTool.output()).doesNotContain("Replica election data", "Expected 'Integer'", "No such field");
        assertThat(kafkaTool.output()).contains("orders-0");
        assertThat(cluster.metadata().describePartition(ORDERS_0).leader()).isEqualTo(PartitionView.NO_LEADER);
    }

    @Test
    @Order(4)
    void a_stopped_broker_is_unreachable_within_the_deadline_and_balanced_still_waits(LocalKafkaCluster cluster)
            throws Exception {
        Path file = dir.resolve("sigstop.json");
        cluster.pauseBroker(LastReplicaStandingOutage.SHORTEST_SURVIVOR);
        CliRun run;
        long elapsedMs;
        try {
            long start = System.nanoTime();
            // Admin retries each call on another broker when the frozen one does not answer a request.
            run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "plan", "--strategy", "proactive",
                    "--admin-timeout-ms", "30000", "--probe-timeout-ms", "4000", "--output-file", file.toString());
            elapsedMs = Duration.ofNanos(System.nanoTime() - start).toMillis();
        } finally {
            cluster.resumeBroker(LastReplicaStandingOutage.SHORTEST_SURVIVOR);
        }

        assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCode.OK);
        PlannedElection election = PlanFile.read(file).partitions().get(0);
        assertThat(election.designatedLeader()).isEqualTo(2);
        assertThat(evidence(election, 3).status()).isEqualTo(EvidenceStatus.UNREACHABLE);
        assertThat(evidence(election, 3).error()).contains("broker 3");
        assertThat(elapsedMs).as("the deadlines bound the run").isLessThan(60_000);
    }

    @Test
    @Order(5)
    void an_existing_plan_file_is_never_overwritten(LocalKafkaCluster cluster) throws Exception {
        Path file = Files.writeString(dir.resolve("existing.json"), "keep me");

        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "plan", "--strategy", "proactive",
                "--probe-timeout-ms", "2000", "--output-file", file.toString());

        assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(Files.readString(file)).isEqualTo("keep me");
    }

    @Test
    @Order(6)
    void disk_evidence_of_the_down_last_leader_lets_balanced_decide_and_counts_its_lost_records(LocalKafkaCluster cluster)
            throws Exception {
        Path evidenceFile = dir.resolve("broker-1-evidence.json");
        CliRun inspect = CliRun.of("inspect", "--log-dir", cluster.logDir(LastReplicaStandingOutage.LAST_LEADER).toString(),
                "--topic", "orders", "--output-file", evidenceFile.toString());
        assertThat(inspect.exitCode()).as(inspect.out() + inspect.err()).isEqualTo(ExitCode.OK);
        Path file = dir.resolve("with-evidence.json");

        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "plan", "--probe-timeout-ms", "3000",
                "--evidence", evidenceFile.toString(), "--output-file", file.toString());

        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.OK);
        PlannedElection election = PlanFile.read(file).partitions().get(0);
        assertThat(election.designatedLeader()).as("only a live broker can be elected").isEqualTo(2);
        assertThat(election.evidence()).anySatisfy(e -> {
            assertThat(e.broker()).isEqualTo(1);
            assertThat(e.source()).isEqualTo(EvidenceSource.DISK);
            assertThat(e.logEndOffset()).isEqualTo(110L);
        });
        assertThat(election.expectedTruncation()).filteredOn(t -> t.broker() == 1).singleElement()
                .satisfies(t -> assertThat(t.records()).as("the acks=1 records only broker 1 has").isEqualTo(10L));
    }

    @Test
    @Order(7)
    void a_hung_broker_is_named_in_the_summary_and_the_plan_and_skipped_partitions_keep_their_evidence(
            LocalKafkaCluster cluster) throws Exception {
        int hung = LastReplicaStandingOutage.SHORTEST_SURVIVOR;
        String hungBroker = "broker " + hung + " (" + cluster.brokerAddress(hung) + ")";
        Path file = dir.resolve("hung.json");
        CliRun run;
        cluster.pauseBroker(hung);
        try {
            // balanced waits for LastKnownELR member 1 (down): orders-0 is skipped, with what each replica said
            run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "plan", "--admin-timeout-ms", "30000",
                    "--probe-timeout-ms", "3000", "--output-file", file.toString());
        } finally {
            cluster.resumeBroker(hung);
        }

        assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCode.ATTENTION);
        Plan plan = PlanFile.read(file);
        // the plan names the hung broker once, with its address and why
        assertThat(plan.unansweredBrokers()).filteredOn(b -> b.broker() == hung).singleElement().satisfies(b -> {
            assertThat(b.address()).isEqualTo(cluster.brokerAddress(hung));
            assertThat(b.replicasUnknown()).isEqualTo(b.replicas()).isPositive();
            assertThat(b.reason()).startsWith(hungBroker + " did not answer ");
        });
        // the summary counts only brokers that answered in time and names the hung one
        List<String> summaries = run.err().lines().filter(l -> l.startsWith("probing: ")).toList();
        assertThat(summaries).as(run.err()).isNotEmpty();
        String summary = summaries.get(summaries.size() - 1);
        // what the operator saw, for the test log
        System.out.println(summary);
        plan.unansweredBrokers().forEach(b -> System.out.println("unansweredBrokers: " + b));
        plan.skipped().forEach(s -> System.out.println("skipped reason: " + s.reason()));
        assertThat(summary).contains(hungBroker + " did not answer in time");
        Matcher counts = Pattern.compile("probing: (\\d+)/(\\d+) brokers answered, (\\d+)/(\\d+) replicas known")
                .matcher(summary);
        assertThat(counts.find()).as(summary).isTrue();
        // every probed broker that is not in unansweredBrokers answered; unregistered ones were never asked
        long probedUnanswered = plan.unansweredBrokers().stream().filter(b -> b.address() != null).count();
        assertThat(Integer.parseInt(counts.group(1))).isEqualTo(Integer.parseInt(counts.group(2)) - probedUnanswered);
        assertThat(Integer.parseInt(counts.group(3))).isLessThan(Integer.parseInt(counts.group(4)));
        // the skipped partition carries its evidence: the hung replica unknown, the live one answered
        assertThat(plan.skipped()).singleElement().satisfies(s -> {
            assertThat(s.topicPartition()).isEqualTo(ORDERS_0);
            assertThat(s.evidence()).extracting(PlanEvidence::broker).contains(hung, LastReplicaStandingOutage.LONGEST_SURVIVOR);
            assertThat(s.evidence()).filteredOn(e -> e.broker() == hung).singleElement().satisfies(e -> {
                assertThat(e.status()).isEqualTo(EvidenceStatus.UNREACHABLE);
                assertThat(e.error()).startsWith(hungBroker + " did not answer ");
            });
            assertThat(s.evidence()).filteredOn(e -> e.broker() == LastReplicaStandingOutage.LONGEST_SURVIVOR)
                    .singleElement().satisfies(e -> assertThat(e.logEndOffset()).isEqualTo(100L));
        });
        // no bare api key numbers and no raw millisecond counts of seconds anywhere the operator reads
        String written = Files.readString(file);
        for (String text : List.of(run.out(), run.err(), written)) {
            assertThat(text).doesNotContainPattern("api key \\d").doesNotContainPattern("\\b\\d{4,} ms\\b");
        }
        assertThat(run.out()).contains("UNANSWERED " + "broker " + hung + " (" + cluster.brokerAddress(hung) + ")");
        cluster.metadata().awaitBrokerUnfenced(hung, Duration.ofSeconds(60));
    }

    @Test
    @Order(8)
    void disk_evidence_of_a_topic_deleted_and_re_created_under_its_name_is_refused_naming_both_ids(
            LocalKafkaCluster cluster) throws Exception {
        // given: broker 1's disk inspected while it is down, then orders deleted and created again on the same brokers
        int down = LastReplicaStandingOutage.LAST_LEADER;
        Path evidenceFile = dir.resolve("broker-1-before-recreation.json");
        CliRun inspect = CliRun.of("inspect", "--log-dir", cluster.logDir(down).toString(), "--topic", "orders",
                "--output-file", evidenceFile.toString());
        assertThat(inspect.exitCode()).as(inspect.out() + inspect.err()).isEqualTo(ExitCode.OK);
        Uuid oldId;
        Uuid newId;
        try (Admin admin = cluster.createAdmin()) {
            oldId = admin.describeTopics(List.of("orders")).allTopicNames().get().get("orders").topicId();
            admin.deleteTopics(List.of("orders")).all().get();
            awaitGone(admin, "orders");
            // broker 1 is fenced but registered: the controller accepts it in a manual assignment
            // the id from CreateTopics' own answer: a describe right after it can reach a broker without the topic yet
            newId = admin.createTopics(List.of(new NewTopic("orders", Map.of(0, List.of(down, 3, 2))))).topicId("orders")
                    .get();
        }
        cluster.metadata().awaitPartition(ORDERS_0, v -> v.leader() != PartitionView.NO_LEADER, Duration.ofSeconds(60));
        Path file = dir.resolve("recreated.json");

        // when
        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "plan", "--topic", "orders",
                "--probe-timeout-ms", "3000", "--evidence", evidenceFile.toString(), "--output-file", file.toString());

        // then: broker 1's old log is not taken for the new topic's, and the reviewer reads why with both ids
        assertThat(oldId).isNotEqualTo(newId);
        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.ATTENTION);
        Plan plan = PlanFile.read(file);
        assertThat(plan.notes()).singleElement().asString()
                .startsWith("evidence of broker 1 for topic 'orders' not used: its log is of topic id " + oldId)
                .contains("the cluster's topic 'orders' is " + newId).endsWith("(partitions 0)");
        assertThat(run.out()).contains("NOTE evidence of broker 1 for topic 'orders' not used");
        assertThat(plan.skipped()).singleElement().satisfies(s -> assertThat(s.evidence())
                .filteredOn(e -> e.source() == EvidenceSource.DISK).singleElement().satisfies(e -> {
                    assertThat(e.status()).isEqualTo(EvidenceStatus.ERROR);
                    assertThat(e.logEndOffset()).isNull();
                    assertThat(e.error()).contains(oldId.toString(), newId.toString());
                }));
    }

    private static void awaitGone(Admin admin, String topic) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (admin.listTopics().names().get().contains(topic)) {
            assertThat(System.nanoTime()).as(topic + " deleted within 60 s").isLessThan(deadline);
            Thread.sleep(200);
        }
    }

    private static PlanEvidence evidence(PlannedElection election, int broker) {
        List<PlanEvidence> matching = election.evidence().stream().filter(e -> e.broker() == broker).toList();
        assertThat(matching).hasSize(1);
        return matching.get(0);
    }
}
