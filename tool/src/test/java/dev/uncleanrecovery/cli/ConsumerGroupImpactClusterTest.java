// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.LocalClusterException;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.PartitionView;
import dev.uncleanrecovery.localcluster.RoundProducer;
import dev.uncleanrecovery.localcluster.StopMode;
import dev.uncleanrecovery.formats.AuditLine;
import dev.uncleanrecovery.formats.ConsumerOffsetReset;
import dev.uncleanrecovery.formats.Plan;
import dev.uncleanrecovery.formats.PlanConsumerGroup;
import dev.uncleanrecovery.formats.PlanFile;
import dev.uncleanrecovery.formats.PlannedElection;
import dev.uncleanrecovery.formats.ResultFile;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Consumers read what the election destroys: paid-0 (replicas [1,2], min.insync.replicas=1) got 10 records on both
 * replicas, then 5 more on 1 alone once 2 had died (committed: with 1 the whole ISR its high watermark moved to 15).
 * Group billing read all 15 and committed 15, so did group live, group audit committed 4. Then 1 died for good: 2,
 * back with its 10 records, is the only replica left, and __consumer_offsets stays online on broker 3 — until, last,
 * 3 dies too. After the election billing and live are set back to 10, where 2's log parts from what they read.
 */
@KafkaClusterTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsumerGroupImpactClusterTest {

    private static final TopicPartition PAID = new TopicPartition("paid", 0);
    private static final int LAST_LEADER = 1;
    private static final int SURVIVOR = 2;
    private static final int OFFSETS_LAST_LEADER = 3;
    private static final Duration STEP = Duration.ofSeconds(60);

    @TempDir
    static Path dir;

    @BeforeAll
    static void loseWhatBillingRead(LocalKafkaCluster cluster) throws Exception {
        cluster.createTopic(PAID.topic(), List.of(LAST_LEADER, SURVIVOR), 1);
        RoundProducer.produce(cluster, List.of(PAID), 10, "all", "paid-both", Duration.ofSeconds(30));
        // the first commits create __consumer_offsets while all three brokers are up (replication factor 3)
        readAndCommit(cluster, "billing", 10);
        readAndCommit(cluster, "audit", 4);

        cluster.killBroker(SURVIVOR);
        cluster.metadata().awaitPartition(PAID, v -> v.isr().equals(List.of(LAST_LEADER)), STEP);
        RoundProducer.produce(cluster, List.of(PAID), 5, "all", "paid-only-on-1", Duration.ofSeconds(30));
        readAndCommit(cluster, "billing", 15);
        readAndCommit(cluster, "live", 15);

        cluster.killBroker(LAST_LEADER);
        cluster.startBroker(SURVIVOR);
        cluster.metadata().awaitPartition(PAID, v -> v.leader() == PartitionView.NO_LEADER, STEP);
    }

    @Test
    @Order(1)
    void the_plan_lists_the_group_that_read_past_the_new_log_end_with_what_it_read_and_loses(LocalKafkaCluster cluster)
            throws Exception {
        Path file = dir.resolve("paid.json");

        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "plan", "--topic", PAID.topic(),
                "--strategy", "proactive", "--output-file", file.toString());

        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.OK);
        PlannedElection planned = PlanFile.read(file).partitions().get(0);
        assertThat(planned.designatedLeader()).isEqualTo(SURVIVOR);
        // audit (4) is behind the new log end (10): it loses nothing it read
        assertThat(planned.consumerGroupsAhead()).containsExactly(PlanConsumerGroup.of("billing", 15, 10),
                PlanConsumerGroup.of("live", 15, 10));
        // the only copy of offsets 10..15 was on dead broker 1: only the group tells that they were committed
        assertThat(planned.reason()).contains("an unknown amount on 1").endsWith("; consumer group billing had read 5"
                + " committed records past the new log end (10..15): at least that many committed records are lost");
        assertThat(PlanFile.read(file).notes()).isEmpty();
        assertThat(run.out()).contains("Consumer groups past the new log end (they read records this plan destroys)")
                .containsPattern("billing\\s+paid-0\\s+15\\s+10\\s+5");
    }

    @Test
    @Order(2)
    void a_dry_runs_result_elected_nothing_and_sets_no_group_back(LocalKafkaCluster cluster) throws Exception {
        // given: what 'execute --dry-run' prints as JSON, kept as a file: paid-0 WOULD_ELECT
        Path plan = dir.resolve("paid-dry.json");
        CliRun planned = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "plan", "--topic", PAID.topic(),
                "--strategy", "proactive", "--output-file", plan.toString());
        assertThat(planned.exitCode()).as(planned.out() + planned.err()).isEqualTo(ExitCode.OK);
        CliRun dryRun = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "--output", "json", "execute",
                "--dry-run", "--plan", plan.toString());
        Path dryResult = dir.resolve("paid-dry-result.json");
        Files.writeString(dryResult, dryRun.out());
        assertThat(ResultFile.read(dryResult).partitions()).extracting(ResultFile.Partition::outcome)
                .containsExactly("WOULD_ELECT");
        // the dry run itself shows what a run that elects would set
        CliRun preview = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--dry-run",
                "--reset-consumer-offsets", "--plan", plan.toString());
        assertThat(preview.out()).containsPattern("billing\\s+paid-0\\s+15\\s+10\\s+new log end\\s+WOULD_RESET")
                .contains("Dry run: 2 offset(s) would be set to the divergence point, 0 would not. Nothing was"
                        + " changed.");

        // when, then: refused, one line, shown or executed
        String refusal = "error: " + dryResult + " is a dry run's (1 partition(s) WOULD_ELECT): a dry run elected"
                + " nothing, so no group has a divergence point yet and no offset was changed; give the result file"
                + " of the run that elected";
        CliRun shown = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "consumer-offsets",
                "--result-file", dryResult.toString());
        assertThat(shown.exitCode()).as(shown.out() + shown.err()).isEqualTo(ExitCode.USAGE);
        assertThat(shown.err().strip()).isEqualTo(refusal);
        CliRun executed = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "consumer-offsets",
                "--result-file", dryResult.toString(), "--execute", "--reason", "test");
        assertThat(executed.exitCode()).as(executed.out() + executed.err()).isEqualTo(ExitCode.USAGE);
        assertThat(executed.err().strip()).isEqualTo(refusal);
        // and billing and live still stand where they read to
        try (Admin admin = cluster.createAdmin()) {
            assertThat(committed(admin, "billing")).isEqualTo(15);
            assertThat(committed(admin, "live")).isEqualTo(15);
        }
    }

    @Test
    @Order(3)
    void after_the_election_the_idle_group_is_set_back_to_the_divergence_point_and_the_active_one_is_named(
            LocalKafkaCluster cluster) throws Exception {
        Path file = dir.resolve("paid-execute.json");
        CliRun planned = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "plan", "--topic", PAID.topic(),
                "--strategy", "proactive", "--output-file", file.toString());
        assertThat(planned.exitCode()).as(planned.out() + planned.err()).isEqualTo(ExitCode.OK);
        PlanConsumerGroup billing = PlanFile.read(file).partitions().get(0).consumerGroupsAhead().get(0);

        CliRun run;
        try (KafkaConsumer<String, String> live = memberOf(cluster, "live")) {
            run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test", "--accept-unknown-loss",
                    "--reset-consumer-offsets", "--plan", file.toString());
        }

        // live keeps 15: exit 3, the offset a group with members keeps needs attention
        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.ATTENTION);
        cluster.metadata().awaitPartition(PAID, v -> v.leader() == SURVIVOR, STEP);
        try (Admin admin = cluster.createAdmin()) {
            long logEnd = admin.listOffsets(Map.of(PAID, OffsetSpec.latest())).partitionResult(PAID).get().offset();
            assertThat(logEnd).isEqualTo(billing.newLogEnd()).isEqualTo(10);
            assertThat(committed(admin, "billing")).isEqualTo(10);
            assertThat(committed(admin, "live")).isEqualTo(15);
            assertThat(committed(admin, "audit")).isEqualTo(4);
        }
        assertThat(run.out()).containsPattern("billing\\s+paid-0\\s+15\\s+10\\s+new log end\\s+RESET")
                .containsPattern("live\\s+paid-0\\s+15\\s+10\\s+new log end\\s+ACTIVE_GROUP")
                .contains("1 offset(s) set to the divergence point, 1 not changed.")
                // no row of the group "audit" (the audit log's line names its file)
                .doesNotContainPattern("(?m)^audit\\s");
        String resets = run.out().substring(run.out().indexOf("Consumer groups past the divergence point"),
                run.out().indexOf("not changed."));
        assertThat(resets.lines()).allSatisfy(line -> assertThat(line.length()).isLessThanOrEqualTo(120));
        ResultFile result = ResultFile.read(dir.resolve("paid-execute-result.json"));
        assertThat(result.consumerOffsetResets()).extracting(ConsumerOffsetReset::group, ConsumerOffsetReset::outcome)
                .containsExactly(tuple("billing", ConsumerOffsetReset.Outcome.RESET),
                        tuple("live", ConsumerOffsetReset.Outcome.ACTIVE_GROUP));
        assertThat(result.consumerOffsetResets().get(1).detail()).startsWith("Kafka refused (")
                .contains("1 member: live-member (");
        // the reset is part of the run: in its FINISHED line, beside the election
        List<AuditLine> audit = AuditLine.readAll(dir.resolve(AuditLine.FILE_NAME));
        AuditLine finished = audit.get(audit.size() - 1);
        assertThat(finished.event()).isEqualTo(AuditLine.Event.FINISHED);
        assertThat(finished.command()).isEqualTo("execute");
        assertThat(finished.exitCode()).isEqualTo(ExitCode.ATTENTION);
        assertThat(finished.outcomes()).extracting(AuditLine.Outcome::group, AuditLine.Outcome::outcome)
                .containsExactly(tuple(null, "ELECTED"), tuple("billing", "RESET"), tuple("live", "ACTIVE_GROUP"));
    }

    @Test
    @Order(4)
    void a_result_of_another_cluster_is_refused_before_any_group_is_read(LocalKafkaCluster cluster) throws Exception {
        // given: the run's result as another cluster's would read
        Path result = dir.resolve("paid-execute-result.json");
        ResultFile elected = ResultFile.read(result);
        Path elsewhere = Files.createDirectory(dir.resolve("elsewhere"));
        Path otherClusters = elsewhere.resolve("paid-execute-result.json");
        Files.writeString(otherClusters, Files.readString(result).replace("\"" + elected.clusterId() + "\"",
                "\"AAAAAAAAAAAAAAAAAAAAAA\""));
        String refusal = "error: " + otherClusters + " is of cluster AAAAAAAAAAAAAAAAAAAAAA, but --bootstrap-server"
                + " reaches cluster " + elected.clusterId() + ": no offset was changed; connect to the cluster that"
                + " run elected on";

        // when, then: refused, shown or executed
        CliRun shown = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "consumer-offsets",
                "--result-file", otherClusters.toString(), "--plan", dir.resolve("paid-execute.json").toString());
        assertThat(shown.exitCode()).as(shown.out() + shown.err()).isEqualTo(ExitCode.USAGE);
        assertThat(shown.err().strip()).isEqualTo(refusal);
        CliRun executed = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "consumer-offsets",
                "--result-file", otherClusters.toString(), "--plan", dir.resolve("paid-execute.json").toString(),
                "--execute", "--reason", "test");
        assertThat(executed.exitCode()).as(executed.out() + executed.err()).isEqualTo(ExitCode.USAGE);
        assertThat(executed.err().strip()).isEqualTo(refusal);
        // live (15, its consumer gone since) would have been set back
        try (Admin admin = cluster.createAdmin()) {
            assertThat(committed(admin, "live")).isEqualTo(15);
        }
    }

    @Test
    @Order(5)
    void a_cluster_that_does_not_answer_is_an_error_in_the_exit_code_and_the_audit_log() throws Exception {
        String nobody;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            nobody = "127.0.0.1:" + free.getLocalPort();
        }
        Path audit = dir.resolve("unreachable-audit.jsonl");

        CliRun unreachable = CliRun.of("--bootstrap-server", nobody, "consumer-offsets", "--result-file",
                dir.resolve("paid-execute-result.json").toString(), "--execute", "--reason", "test", "--audit-log",
                audit.toString());

        // as for every command: exit 4 and the one line that says so, never "no offset was changed"
        assertThat(unreachable.exitCode()).as(unreachable.out() + unreachable.err()).isEqualTo(ExitCode.UNREACHABLE);
        assertThat(unreachable.out()).doesNotContain("no offset was changed");
        assertThat(unreachable.err()).startsWith("error: ").contains(nobody);
        AuditLine finished = AuditLine.readAll(audit).get(1);
        assertThat(finished.event()).isEqualTo(AuditLine.Event.FINISHED);
        assertThat(finished.exitCode()).isEqualTo(ExitCode.UNREACHABLE);
        assertThat(finished.error()).isNotBlank();
    }

    @Test
    @Order(6)
    void a_consumer_set_back_reads_the_new_leaders_records_from_the_divergence_point_none_missing_none_twice(
            LocalKafkaCluster cluster) throws Exception {
        // the new history: 2's own 10 records, then what producers write to it after the election
        RoundProducer.produce(cluster, List.of(PAID), 5, "all", "paid-after-election", Duration.ofSeconds(30));
        Path result = dir.resolve("paid-execute-result.json");
        awaitNoMembers(cluster, "live");

        CliRun dryRun = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "consumer-offsets",
                "--result-file", result.toString());
        assertThat(dryRun.exitCode()).as(dryRun.out() + dryRun.err()).isEqualTo(ExitCode.OK);
        // live's 15 now lies inside the new log (15 records): left alone it would skip 10..14 of the new history
        assertThat(dryRun.out()).containsPattern("live\\s+paid-0\\s+15\\s+10\\s+new log end\\s+WOULD_RESET")
                .contains("Dry run: 1 offset(s) would be set").doesNotContain("billing");
        try (Admin admin = cluster.createAdmin()) {
            assertThat(committed(admin, "live")).isEqualTo(15);
        }

        CliRun executed = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "consumer-offsets",
                "--result-file", result.toString(), "--execute", "--reason", "test");

        assertThat(executed.exitCode()).as(executed.out() + executed.err()).isEqualTo(ExitCode.OK);
        assertThat(executed.out()).contains("Result written to " + dir.resolve("paid-execute-result-2.json"));
        assertThat(ResultFile.read(dir.resolve("paid-execute-result-2.json")).consumerOffsetResets())
                .extracting(ConsumerOffsetReset::group, ConsumerOffsetReset::outcome)
                .containsExactly(tuple("live", ConsumerOffsetReset.Outcome.RESET));
        List<AuditLine> audit = AuditLine.readAll(dir.resolve(AuditLine.FILE_NAME));
        AuditLine finished = audit.get(audit.size() - 1);
        assertThat(finished.command()).isEqualTo("consumer-offsets");
        assertThat(audit.get(audit.size() - 2).runId()).isEqualTo(finished.runId());
        assertThat(finished.resultFile()).isEqualTo(dir.resolve("paid-execute-result-2.json").toAbsolutePath().toString());
        assertThat(finished.outcomes()).extracting(AuditLine.Outcome::group, AuditLine.Outcome::outcome)
                .containsExactly(tuple("live", "RESET"));
        List<ConsumerRecord<String, String>> served = readFrom(cluster, null, 0);
        assertThat(served).hasSize(15);
        List<String> newHistoryFromTen = served.stream().filter(r -> r.offset() >= 10)
                .map(r -> r.offset() + " " + r.value()).toList();
        assertThat(newHistoryFromTen).hasSize(5);
        for (String group : List.of("billing", "live")) {
            // auto.offset.reset=none: the consumer starts at the committed offset or fails
            List<String> read = readFrom(cluster, group, 0).stream().map(r -> r.offset() + " " + r.value()).toList();
            assertThat(read).as(group).isEqualTo(newHistoryFromTen);
        }
        assertThat(newHistoryFromTen).allSatisfy(r -> assertThat(r).contains("paid-after-election"));
    }

    @Test
    @Order(7)
    void a_second_run_leaves_the_groups_set_back_before_that_have_read_on_in_the_new_history(LocalKafkaCluster cluster)
            throws Exception {
        // given: billing (set back by execute) and live (by consumer-offsets) have since read the new history to its
        // end, 15, and committed it as a client without KIP-320 does: with no leader epoch
        awaitNoMembers(cluster, "live");
        readAndCommit(cluster, "billing", 15);
        readAndCommit(cluster, "live", 15);
        Path result = dir.resolve("paid-execute-result.json");

        // when: the runbook's command is run again, on the result execute wrote
        CliRun again = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "consumer-offsets",
                "--result-file", result.toString(), "--execute", "--reason", "test");

        // then: neither is set back to 10 again to read 10..14 twice
        assertThat(again.exitCode()).as(again.out() + again.err()).isEqualTo(ExitCode.OK);
        try (Admin admin = cluster.createAdmin()) {
            assertThat(committed(admin, "billing")).isEqualTo(15);
            assertThat(committed(admin, "live")).isEqualTo(15);
        }
        assertThat(again.out()).containsPattern("billing\\s+paid-0\\s+15\\s+10\\s+new log end\\s+ALREADY_RESET")
                .containsPattern("live\\s+paid-0\\s+15\\s+10\\s+new log end\\s+ALREADY_RESET")
                .contains("0 offset(s) set to the divergence point, 0 not changed, 2 set back before and read on"
                        + " since.");
        List<String> resets = Files.readAllLines(dir.resolve("consumer-offset-resets.jsonl"));
        assertThat(resets).hasSize(2).allSatisfy(line -> assertThat(line).contains("\"resetTo\":10"));
    }

    @Test
    @Order(8)
    void offline_consumer_offsets_partitions_come_first_and_the_plan_says_so(LocalKafkaCluster cluster)
            throws Exception {
        List<TopicPartition> offsets = takeTheOffsetsOffline(cluster);
        CliRun run = planProactive(cluster, dir.resolve("offsets.json"));

        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.OK);
        Plan plan = PlanFile.read(dir.resolve("offsets.json"));
        assertThat(plan.partitions()).extracting(PlannedElection::topicPartition).startsWith(offsets.toArray(TopicPartition[]::new));
        assertThat(plan.notes()).first().asString().startsWith(Topic.GROUP_METADATA_TOPIC_NAME
                + " has offline partitions [0, 1, 2]: consumer groups kept there can neither read nor commit offsets");
        assertThat(run.out()).startsWith("NOTE " + Topic.GROUP_METADATA_TOPIC_NAME + " has offline partitions");

        // and the groups kept there cannot be read: a repair now is incomplete, whatever it found among the others
        CliRun repair = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "consumer-offsets",
                "--result-file", dir.resolve("paid-execute-result.json").toString());
        assertThat(repair.exitCode()).as(repair.out() + repair.err()).isEqualTo(ExitCode.ATTENTION);
        assertThat(repair.out()).startsWith("NOTE " + Topic.GROUP_METADATA_TOPIC_NAME + " has offline partitions"
                + " [0, 1, 2]: the groups kept there were not read");
    }

    /**
     * 2 freezes until the controller fences it and drops it from every ISR; then 3, the offsets' last leader, dies.
     *
     * @return the partitions of __consumer_offsets, all offline
     */
    static List<TopicPartition> takeTheOffsetsOffline(LocalKafkaCluster cluster) {
        List<TopicPartition> offsets = List.of(0, 1, 2).stream()
                .map(p -> new TopicPartition(Topic.GROUP_METADATA_TOPIC_NAME, p)).toList();
        cluster.pauseBroker(SURVIVOR);
        try {
            cluster.metadata().awaitBrokerFenced(SURVIVOR);
            offsets.forEach(tp -> cluster.metadata().awaitPartition(tp,
                    v -> v.isr().equals(List.of(OFFSETS_LAST_LEADER)), STEP));
            cluster.stopBroker(OFFSETS_LAST_LEADER, StopMode.ABRUPT);
        } finally {
            // thawed, 2 cannot rejoin those ISRs: their leader is gone
            cluster.resumeBroker(SURVIVOR);
        }
        cluster.metadata().awaitBrokerUnfenced(SURVIVOR);
        cluster.metadata().awaitBrokerFenced(OFFSETS_LAST_LEADER);
        offsets.forEach(tp -> cluster.metadata().awaitPartition(tp, v -> v.leader() == PartitionView.NO_LEADER, STEP));
        return offsets;
    }

    private static long committed(Admin admin, String group) throws Exception {
        return admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get().get(PAID).offset();
    }

    /** {@code plan --strategy proactive} of the whole cluster into {@code file}. */
    static CliRun planProactive(LocalKafkaCluster cluster, Path file) {
        return CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "plan", "--strategy", "proactive",
                "--output-file", file.toString());
    }

    /**
     * Waits until {@code group} has no member: the consumer closed before leaves at once when its LeaveGroup reaches
     * the coordinator, else when its session ends.
     */
    private static void awaitNoMembers(LocalKafkaCluster cluster, String group) throws Exception {
        try (Admin admin = cluster.createAdmin()) {
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (!admin.describeConsumerGroups(List.of(group)).all().get().get(group).members().isEmpty()) {
                if (System.nanoTime() > deadline) {
                    throw new LocalClusterException(group + " still has members after 60 s");
                }
                Thread.sleep(250);
            }
        }
    }

    /** A real consumer in group {@code group}, a member of it once it has its assignment; commits nothing. */
    private static KafkaConsumer<String, String> memberOf(LocalKafkaCluster cluster, String group) {
        Properties props = new Properties();
        props.putAll(cluster.clientProperties());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, group + "-member");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        // the broker's group.min.session.timeout.ms: a member whose LeaveGroup got lost is gone in 6 s, not 45
        props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "6000");
        props.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "2000");
        KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props, new StringDeserializer(),
                new StringDeserializer());
        consumer.subscribe(List.of(PAID.topic()));
        long deadline = System.nanoTime() + STEP.toNanos();
        while (consumer.assignment().isEmpty()) {
            if (System.nanoTime() > deadline) {
                consumer.close();
                throw new LocalClusterException(group + " got no assignment within " + STEP);
            }
            consumer.poll(Duration.ofMillis(200));
        }
        return consumer;
    }

    /**
     * What a real consumer reads of paid-0 up to its end: from its group's committed offset (with
     * auto.offset.reset=none), or without a group from {@code from}, as the broker serves the log.
     */
    private static List<ConsumerRecord<String, String>> readFrom(LocalKafkaCluster cluster, String group, long from) {
        Properties props = new Properties();
        props.putAll(cluster.clientProperties());
        if (group != null) {
            props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        }
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        List<ConsumerRecord<String, String>> read = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props, new StringDeserializer(),
                new StringDeserializer())) {
            consumer.assign(List.of(PAID));
            if (group == null) {
                consumer.seek(PAID, from);
            }
            long end = consumer.endOffsets(List.of(PAID)).get(PAID);
            long deadline = System.nanoTime() + STEP.toNanos();
            while (consumer.position(PAID) < end) {
                if (System.nanoTime() > deadline) {
                    throw new LocalClusterException((group == null ? "a consumer" : group) + " read only up to "
                            + consumer.position(PAID) + " of " + end + " on " + PAID);
                }
                consumer.poll(Duration.ofMillis(200)).records(PAID).forEach(read::add);
            }
        }
        return read;
    }

    /** A real consumer of group {@code group} reads paid-0 up to {@code offset} and commits it without an epoch. */
    private static void readAndCommit(LocalKafkaCluster cluster, String group, long offset) {
        GroupCommits.readAndCommit(cluster, group, PAID, offset, false);
    }
}
