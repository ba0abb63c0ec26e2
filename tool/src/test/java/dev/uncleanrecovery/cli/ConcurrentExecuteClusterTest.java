// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static dev.uncleanrecovery.localcluster.LastReplicaStandingOutage.LONGEST_SURVIVOR;
import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.execute.RunLock;
import dev.uncleanrecovery.execute.RunOwner;
import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.LastReplicaStandingOutage;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.PartitionView;
import dev.uncleanrecovery.formats.PlanFile;
import dev.uncleanrecovery.formats.ReorderJournal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicCollection;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two operators at once: one run holds the cluster's run lock (a topic the controller keeps) from before its first
 * change to its end, and a second run, from another copy of the plan or the same one, changes nothing and names the
 * first. A lock held from another host is named and left until the operator breaks exactly that one.
 */
@KafkaClusterTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConcurrentExecuteClusterTest {

    private static final List<TopicPartition> RACED = List.of(new TopicPartition("twice", 0), new TopicPartition("twice", 1));
    private static final TopicPartition FOREIGN = new TopicPartition("twice", 2);
    private static final String HELD = "another run is changing this cluster: pid \\d+ on " + RunOwner.thisHost()
            + ", started \\S+ holds the run lock \\S+ \\(topic " + RunLock.LOCK_TOPIC + "\\)\\. Nothing was changed\\.";

    @TempDir
    static Path dir;

    @BeforeAll
    static void killEveryIsrMember(LocalKafkaCluster cluster) {
        LastReplicaStandingOutage.reproduce(cluster, "twice", 3, 20, 5, s -> { });
    }

    @Test
    @Order(1)
    void a_second_run_while_the_first_reorders_changes_nothing_and_names_the_first(LocalKafkaCluster cluster)
            throws Exception {
        // given: two operators with copies of one plan in two folders
        Path plan = plan(cluster, Files.createDirectories(dir.resolve("operator-a")).resolve("plan.json"), "0", "1");
        Path copy = Files.createDirectories(dir.resolve("operator-b")).resolve("plan.json");
        Files.copy(plan, copy);

        // when: A is frozen right after its reorder was answered, and B (its copy) and C (the same file) run meanwhile
        AtomicReference<CliRun> fromCopy = new AtomicReference<>();
        AtomicReference<CliRun> sameFile = new AtomicReference<>();
        ToolJvm.Run first = ToolJvm.run(dir, "Received ALTER_PARTITION_REASSIGNMENTS response", () -> {
            fromCopy.set(CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test", "--plan",
                    copy.toString(), "--accept-unknown-loss"));
            sameFile.set(CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test", "--plan",
                    plan.toString(), "--accept-unknown-loss"));
        }, ToolJvm.AtTrigger.PAUSE_THE_TOOL, "--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test", "--plan",
                plan.toString(), "--accept-unknown-loss");

        // then: B and C changed nothing and name A; A was not disturbed and finished
        assertThat(first.triggered()).as(first.output()).isTrue();
        for (CliRun second : List.of(fromCopy.get(), sameFile.get())) {
            assertThat(second.exitCode()).as(second.out() + second.err()).isEqualTo(ExitCode.FAILURE);
            assertThat(second.err()).containsPattern(HELD).contains("Wait for it to finish").doesNotContain("remove");
        }
        assertThat(first.exitCode()).as(first.output()).isEqualTo(ExitCode.OK);
        for (TopicPartition tp : RACED) {
            PartitionView now = cluster.metadata().awaitPartition(tp, v -> v.leader() != PartitionView.NO_LEADER
                    && v.replicas().equals(LastReplicaStandingOutage.ASSIGNMENT), Duration.ofSeconds(30));
            assertThat(now.leader()).isEqualTo(LONGEST_SURVIVOR);
        }
        assertThat(ReorderJournal.pathFor(plan)).doesNotExist();
        assertThat(ReorderJournal.pathFor(copy)).doesNotExist();
        assertThat(lockTopics(cluster)).as("the lock is released").isEmpty();

        // and: once A is done, B's run of its copy finds the partitions recovered
        CliRun after = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test", "--plan", copy.toString());
        assertThat(after.exitCode()).as(after.out() + after.err()).isEqualTo(ExitCode.OK);
        assertThat(after.out()).contains("ALREADY_RECOVERED");
    }

    @Test
    @Order(2)
    void break_lock_refuses_an_id_that_is_not_this_clusters_run_lock_and_deletes_nothing(LocalKafkaCluster cluster)
            throws Exception {
        // given: a plan whose topic ids are those of real topics, another topic with records, and a lock held
        Path plan = plan(cluster, dir.resolve("ids.json"), "2");
        Uuid twice = Uuid.fromString(PlanFile.read(plan).partitions().get(0).topicId());
        Uuid kept = createTopic(cluster, "kept");
        try (Producer<String, String> producer = new KafkaProducer<>(cluster.clientProperties(), new StringSerializer(),
                new StringSerializer())) {
            for (int i = 0; i < 10; i++) {
                producer.send(new ProducerRecord<>("kept", "k" + i, "v" + i)).get(30, TimeUnit.SECONDS);
            }
        }

        // when: the plan's topic id, then the other topic's, is given as the lock to break
        CliRun fromThePlan = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test",
                "--plan", plan.toString(), "--accept-unknown-loss", "--break-lock", twice.toString());
        CliRun another = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test",
                "--plan", plan.toString(), "--accept-unknown-loss", "--break-lock", kept.toString());

        // then: both refused in one line, and the brokers still hold both topics, with their ids and records
        assertThat(fromThePlan.exitCode()).as(fromThePlan.out() + fromThePlan.err()).isEqualTo(ExitCode.USAGE);
        assertThat(fromThePlan.err()).contains("--break-lock " + twice + ": that id is topic 'twice', not the run lock",
                "nothing was deleted");
        assertThat(another.exitCode()).as(another.out() + another.err()).isEqualTo(ExitCode.USAGE);
        assertThat(another.err()).contains("that id is topic 'kept', not the run lock");
        try (Admin admin = cluster.createAdmin()) {
            assertThat(admin.describeTopics(TopicCollection.ofTopicIds(List.of(twice, kept))).allTopicIds()
                    .get(30, TimeUnit.SECONDS)).containsOnlyKeys(twice, kept);
            TopicPartition kept0 = new TopicPartition("kept", 0);
            assertThat(admin.listOffsets(Map.of(kept0, OffsetSpec.earliest())).all().get(30, TimeUnit.SECONDS)
                    .get(kept0).offset()).isZero();
            assertThat(admin.listOffsets(Map.of(kept0, OffsetSpec.latest())).all().get(30, TimeUnit.SECONDS)
                    .get(kept0).offset()).isEqualTo(10);
        }
        PartitionView untouched = cluster.metadata().describePartition(FOREIGN);
        assertThat(untouched.leader()).isEqualTo(PartitionView.NO_LEADER);
        assertThat(untouched.replicas()).isEqualTo(LastReplicaStandingOutage.ASSIGNMENT);

        // and: a plan of another cluster is refused before the lock it names is broken
        Uuid lockId = createTopic(cluster, RunLock.LOCK_TOPIC);
        Path foreign = dir.resolve("foreign-cluster.json");
        Files.writeString(foreign, Files.readString(plan).replace(cluster.clusterId(), "AAAAAAAAAAAAAAAAAAAAAA"));
        CliRun otherCluster = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test",
                "--plan", foreign.toString(), "--accept-unknown-loss", "--break-lock", lockId.toString());

        assertThat(otherCluster.exitCode()).as(otherCluster.out() + otherCluster.err()).isEqualTo(ExitCode.USAGE);
        assertThat(otherCluster.err()).contains("the plan was made for cluster AAAAAAAAAAAAAAAAAAAAAA, but"
                + " --bootstrap-server is cluster " + cluster.clusterId());
        try (Admin admin = cluster.createAdmin()) {
            assertThat(admin.describeTopics(TopicCollection.ofTopicIds(List.of(lockId))).allTopicIds()
                    .get(30, TimeUnit.SECONDS)).as("the lock is still there").containsOnlyKeys(lockId);
            admin.deleteTopics(TopicCollection.ofTopicIds(List.of(lockId))).all().get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    @Order(3)
    void a_lock_held_from_another_host_is_named_and_left_until_the_operator_breaks_it(LocalKafkaCluster cluster)
            throws Exception {
        Path plan = plan(cluster, dir.resolve("foreign.json"), "2");
        // given: a run on another host holds the lock (killed there, or still working: this host cannot tell)
        Uuid lockId = createTopic(cluster, RunLock.LOCK_TOPIC);
        createTopic(cluster, RunLock.LOCK_TOPIC + "." + lockId + ".4242.1700000000000.other-host.example");

        CliRun refused = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test", "--plan", plan.toString(),
                "--accept-unknown-loss");

        assertThat(refused.exitCode()).as(refused.out() + refused.err()).isEqualTo(ExitCode.FAILURE);
        assertThat(refused.err()).contains("another run is changing this cluster: pid 4242 on other-host.example,"
                + " started 2023-11-14T22:13:20Z holds the run lock " + lockId, "--break-lock " + lockId);
        PartitionView untouched = cluster.metadata().describePartition(FOREIGN);
        assertThat(untouched.leader()).isEqualTo(PartitionView.NO_LEADER);
        assertThat(untouched.replicas()).isEqualTo(LastReplicaStandingOutage.ASSIGNMENT);

        // when: the operator has checked that run is gone, and breaks that lock
        CliRun broken = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test", "--plan", plan.toString(),
                "--accept-unknown-loss", "--break-lock", lockId.toString());

        assertThat(broken.exitCode()).as(broken.out() + broken.err()).isEqualTo(ExitCode.OK);
        assertThat(broken.err()).contains("run lock " + lockId + " broken (--break-lock), with its owner topic");
        assertThat(cluster.metadata().awaitPartition(FOREIGN, v -> v.leader() != PartitionView.NO_LEADER,
                Duration.ofSeconds(30))
                .leader()).isEqualTo(LONGEST_SURVIVOR);
        assertThat(lockTopics(cluster)).as("the old owner topic is removed with its lock").isEmpty();
    }

    private static Path plan(LocalKafkaCluster cluster, Path file, String... partitions) {
        List<String> args = new java.util.ArrayList<>(List.of("--bootstrap-server", cluster.bootstrapServers(), "plan",
                "--strategy", "proactive", "--probe-timeout-ms", "3000", "--topic", "twice"));
        for (String p : partitions) {
            args.addAll(List.of("--partition", p));
        }
        args.addAll(List.of("--output-file", file.toString()));
        CliRun planned = CliRun.of(args.toArray(String[]::new));
        assertThat(planned.exitCode()).as(planned.out() + planned.err()).isEqualTo(ExitCode.OK);
        return file;
    }

    private static Uuid createTopic(LocalKafkaCluster cluster, String name) throws Exception {
        try (Admin admin = cluster.createAdmin()) {
            return admin.createTopics(List.of(new NewTopic(name, 1, (short) 1))).topicId(name).get(30, TimeUnit.SECONDS);
        }
    }

    private static Set<String> lockTopics(LocalKafkaCluster cluster) throws Exception {
        try (Admin admin = cluster.createAdmin()) {
            Set<String> names = admin.listTopics().names().get(30, TimeUnit.SECONDS);
            return names.stream().filter(n -> n.startsWith(RunLock.LOCK_TOPIC)).collect(java.util.stream.Collectors.toSet());
        }
    }
}
