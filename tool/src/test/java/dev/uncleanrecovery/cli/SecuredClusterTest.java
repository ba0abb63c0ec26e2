// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.apache.kafka.common.acl.AclOperation.ALTER;
import static org.apache.kafka.common.acl.AclOperation.CREATE;
import static org.apache.kafka.common.acl.AclOperation.DELETE;
import static org.apache.kafka.common.acl.AclOperation.DESCRIBE;
import static org.apache.kafka.common.acl.AclOperation.DESCRIBE_CONFIGS;
import static org.apache.kafka.common.acl.AclOperation.READ;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.uncleanrecovery.recovery.KafkaToolsSteps;
import dev.uncleanrecovery.cluster.ClusterDiscovery;
import dev.uncleanrecovery.cluster.PartitionSelection;
import dev.uncleanrecovery.connect.ClientProperties;
import dev.uncleanrecovery.election.ElectionOptions;
import dev.uncleanrecovery.election.Strategy;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.execute.RunLock;
import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.harness.KafkaToolProcess;
import dev.uncleanrecovery.localcluster.ClusterAccess;
import dev.uncleanrecovery.localcluster.ClusterSecurity;
import dev.uncleanrecovery.localcluster.LastReplicaStandingOutage;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.PartitionView;
import dev.uncleanrecovery.formats.AuditLine;
import dev.uncleanrecovery.formats.Json;
import dev.uncleanrecovery.formats.Plan;
import dev.uncleanrecovery.formats.PlanEvidence;
import dev.uncleanrecovery.formats.PlanFile;
import dev.uncleanrecovery.formats.PlannedElection;
import dev.uncleanrecovery.formats.ResultFile;
import dev.uncleanrecovery.probe.ProbeMode;
import dev.uncleanrecovery.probe.ProbeSettings;
import dev.uncleanrecovery.recovery.PlanFlow;
import dev.uncleanrecovery.salvage.SalvageFixture;
import dev.uncleanrecovery.salvage.SalvageStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tool on a SASL/PLAIN cluster with ACLs (StandardAuthorizer, nothing allowed without an ACL), after
 * the KIP-966 outage left orders-0 offline with replicas [1,3,2] (2 holds the longest log). Credentials
 * reach the tool only through {@code --command-config}: the broker listener accepts nothing else, so a
 * plan that probes brokers 2 and 3 proves that Admin and the per-broker connections both log in.
 */
@KafkaClusterTest(security = ClusterSecurity.SASL_PLAIN_WITH_ACLS,
        saslUsers = {SecuredClusterTest.DESCRIBER, SecuredClusterTest.CONFIGLESS, SecuredClusterTest.CLUSTERLESS,
                SecuredClusterTest.LOCKLESS})
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SecuredClusterTest {

    /** May DESCRIBE the topic but not READ it: ListOffsets works, the stock probe's Fetch does not. */
    static final String DESCRIBER = "describer";
    /** The README ACLs but DESCRIBE_CONFIGS on the topic. */
    static final String CONFIGLESS = "configless";
    /** The README ACLs but DESCRIBE on the cluster. */
    static final String CLUSTERLESS = "clusterless";
    /** The README ACLs for execute (ALTER on the cluster included) but those on the run lock's topics. */
    static final String LOCKLESS = "lockless";
    private static final String TOPIC = "orders";
    /** Created last, with no ACL for anyone but admin. */
    private static final String AUDIT = "audit";
    private static final String KAFKA_CLUSTER = "kafka-cluster";
    private static final TopicPartition ORDERS_0 = new TopicPartition(TOPIC, 0);

    @TempDir
    static Path dir;

    @BeforeAll
    static void breakTheClusterAndGrantTheReadmeAcls(LocalKafkaCluster cluster) throws Exception {
        // Created and written as admin, the cluster's default client.
        LastReplicaStandingOutage.reproduce(cluster, TOPIC, 1, 50, 10, s -> { });
        cluster.access().allow(DESCRIBER, ResourceType.TOPIC, TOPIC, DESCRIBE, DESCRIBE_CONFIGS);
        cluster.access().allow(DESCRIBER, ResourceType.CLUSTER, KAFKA_CLUSTER, DESCRIBE);
        cluster.access().allow(CONFIGLESS, ResourceType.TOPIC, TOPIC, DESCRIBE, READ);
        cluster.access().allow(CONFIGLESS, ResourceType.CLUSTER, KAFKA_CLUSTER, DESCRIBE);
        cluster.access().allow(CLUSTERLESS, ResourceType.TOPIC, TOPIC, DESCRIBE, DESCRIBE_CONFIGS, READ);
        cluster.access().allow(LOCKLESS, ResourceType.TOPIC, TOPIC, DESCRIBE, DESCRIBE_CONFIGS, READ);
        cluster.access().allow(LOCKLESS, ResourceType.CLUSTER, KAFKA_CLUSTER, DESCRIBE, ALTER);
        // README "Permissions" for status and plan, exactly, and the run lock's (but not ALTER on the cluster);
        // granted last, so awaitAclsServed covers every grant.
        cluster.access().allow(ClusterAccess.RECOVERY_USER, ResourceType.TOPIC, RunLock.LOCK_TOPIC,
                PatternType.PREFIXED,
                CREATE, DELETE, DESCRIBE);
        cluster.access().allow(ClusterAccess.RECOVERY_USER, ResourceType.TOPIC, TOPIC, DESCRIBE, DESCRIBE_CONFIGS,
                READ);
        cluster.access().allow(ClusterAccess.RECOVERY_USER, ResourceType.CLUSTER, KAFKA_CLUSTER, DESCRIBE);
        awaitAclsServed(cluster);
    }

    @Test
    @Order(1)
    void a_principal_without_describe_is_told_which_permission_to_grant(LocalKafkaCluster cluster) {
        CliRun oneTopic = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "status", "--topic", TOPIC,
                "--command-config", commandConfig(cluster, ClusterAccess.NOBODY_USER));
        CliRun allTopics = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "status",
                "--command-config", commandConfig(cluster, ClusterAccess.NOBODY_USER));

        assertThat(oneTopic.exitCode()).as(oneTopic.err()).isEqualTo(ExitCode.USAGE);
        assertThat(oneTopic.err().strip()).isEqualTo("error: not authorized to describe topic 'orders':"
                + " grant DESCRIBE on it to this principal (see README Permissions)");
        assertThat(allTopics.exitCode()).as(allTopics.err()).isEqualTo(ExitCode.USAGE);
        // Without DESCRIBE on any topic, listing topics shows none; DESCRIBE on the cluster is what fails.
        assertThat(allTopics.err().strip()).isEqualTo("error: not authorized to list partition reassignments:"
                + " grant DESCRIBE on the cluster to this principal (see README Permissions)");
    }

    @Test
    @Order(2)
    void every_acl_the_readme_lists_for_status_is_needed_and_named_when_missing(LocalKafkaCluster cluster) {
        CliRun configless = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "status", "--topic", TOPIC,
                "--command-config", commandConfig(cluster, CONFIGLESS));
        CliRun clusterless = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "status", "--topic", TOPIC,
                "--command-config", commandConfig(cluster, CLUSTERLESS));

        assertThat(configless.exitCode()).as(configless.err()).isEqualTo(ExitCode.USAGE);
        assertThat(configless.err().strip()).isEqualTo("error: not authorized to describe the configs of topic 'orders':"
                + " grant DESCRIBE_CONFIGS on it to this principal (see README Permissions)");
        assertThat(clusterless.exitCode()).as(clusterless.err()).isEqualTo(ExitCode.USAGE);
        assertThat(clusterless.err().strip()).isEqualTo("error: not authorized to list partition reassignments:"
                + " grant DESCRIBE on the cluster to this principal (see README Permissions)");
    }

    @Test
    @Order(3)
    void status_with_the_readme_acls_shows_the_offline_partition(LocalKafkaCluster cluster) {
        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "status",
                "--command-config", commandConfig(cluster, ClusterAccess.RECOVERY_USER));

        assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCode.ATTENTION);
        assertThat(run.out()).containsPattern("(?m)^orders\\s+0\\s+none\\s");
    }

    @Test
    @Order(4)
    void proactive_plan_with_the_readme_acls_probes_over_sasl_and_designates_the_longest_log(LocalKafkaCluster cluster)
            throws Exception {
        Path file = dir.resolve("recovery-plan.json");

        CliRun run = planAsTheRecoveryUser(cluster, file);

        assertThat(run.exitCode()).as(run.err() + run.out()).isEqualTo(ExitCode.OK);
        PlannedElection election = PlanFile.read(file).partitions().get(0);
        assertThat(election.topicPartition()).isEqualTo(ORDERS_0);
        assertThat(election.designatedLeader()).isEqualTo(LastReplicaStandingOutage.LONGEST_SURVIVOR);
        assertThat(election.evidence()).filteredOn(e -> e.status() == EvidenceStatus.OK).hasSize(2);
        // the README's ACLs leave out consumer groups: the plan says, in one line, that it could not check them
        assertThat(PlanFile.read(file).notes()).singleElement().asString()
                .startsWith("consumer groups not checked: this principal may not DESCRIBE topic __consumer_offsets");
        assertThat(run.out()).startsWith("NOTE consumer groups not checked");
    }

    @Test
    @Order(5)
    void without_read_the_stock_probe_reports_an_authorization_error_per_replica_and_the_plan_skips(
            LocalKafkaCluster cluster) throws Exception {
        Path file = dir.resolve("describer-plan.json");
        Path describer = Path.of(commandConfig(cluster, DESCRIBER));

        PlanFlow.Result planned;
        try (ClusterDiscovery discovery = new ClusterDiscovery(
                ClientProperties.load(cluster.bootstrapServers(), describer, 30_000), 30_000)) {
            planned = new PlanFlow(discovery, Clock.systemUTC(), "test").plan(new PlanFlow.Options(
                    new PartitionSelection.OneTopic(TOPIC, List.of()), ElectionOptions.defaults().withStrategy(Strategy.PROACTIVE),
                    ProbeSettings.defaults().withTimeout(Duration.ofSeconds(10)), ProbeMode.STOCK), p -> { });
        }
        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "plan", "--strategy", "proactive",
                "--probe-timeout-ms", "10000", "--output-file", file.toString(), "--command-config", describer.toString());

        List<PlanEvidence> survivors = planned.plan().skipped().stream()
                .filter(s -> s.topicPartition().equals(ORDERS_0)).flatMap(s -> s.evidence().stream())
                .filter(e -> e.broker() != LastReplicaStandingOutage.LAST_LEADER).toList();
        assertThat(survivors).hasSize(2).allSatisfy(e -> {
            assertThat(e.status()).isEqualTo(EvidenceStatus.ERROR);
            assertThat(e.error()).contains("answered Fetch for orders-0 with TOPIC_AUTHORIZATION_FAILED",
                    "needs DESCRIBE (ListOffsets) and READ (Fetch) on the topic");
        });
        assertThat(run.exitCode()).as(run.err() + run.out()).isEqualTo(ExitCode.ATTENTION);
        Plan plan = PlanFile.read(file);
        assertThat(plan.partitions()).isEmpty();
        assertThat(plan.skipped()).singleElement().satisfies(s -> {
            assertThat(s.topicPartition()).isEqualTo(ORDERS_0);
            assertThat(s.reason()).contains("TOPIC_AUTHORIZATION_FAILED");
        });
    }

    @Test
    @Order(6)
    void a_wrong_password_is_one_line_about_authentication(LocalKafkaCluster cluster) {
        Path wrong = cluster.access().writeCommandConfig(ClusterAccess.RECOVERY_USER, "not-the-password",
                dir.resolve("wrong-password.properties"));

        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "status",
                "--command-config", wrong.toString());

        assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCode.USAGE);
        assertThat(run.err().strip()).isEqualTo("error: authentication failed: Invalid username or password"
                + " — check sasl.jaas.config (user name, password), sasl.mechanism and security.protocol in --command-config");
    }

    @Test
    @Order(7)
    void a_client_without_sasl_settings_times_out_with_a_hint_at_security_protocol(LocalKafkaCluster cluster) {
        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "status", "--admin-timeout-ms", "3000");

        // a listener that says nothing to a client of another protocol looks like a cluster that does not answer
        assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCode.UNREACHABLE);
        assertThat(run.err().strip()).startsWith("error: could not describe the cluster: no answer from --bootstrap-server")
                .endsWith("security.protocol right in --command-config?)").doesNotContain("\n");
    }

    @Test
    @Order(8)
    void without_alter_on_the_cluster_the_stock_reorder_is_refused_and_the_partition_is_left_as_it_was(
            LocalKafkaCluster cluster) throws Exception {
        // The README ACLs for status and plan only: no ALTER on the cluster.
        Path plan = dir.resolve("without-alter.json");
        CliRun planned = planAsTheRecoveryUser(cluster, plan);
        assertThat(planned.exitCode()).as(planned.err() + planned.out()).isEqualTo(ExitCode.OK);
        List<Integer> replicasBefore = cluster.metadata().describePartition(ORDERS_0).replicas();

        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test", "--plan", plan.toString(),
                "--accept-unknown-loss", "--command-config", commandConfig(cluster, ClusterAccess.RECOVERY_USER));

        assertThat(run.exitCode()).as(run.err() + run.out()).isEqualTo(ExitCode.ATTENTION);
        assertThat(run.out()).containsPattern("orders-0 +2 +REFUSED +reorder refused by the controller");
        assertThat(run.out().replaceAll("\\s+", " ")).contains("reorder refused by the controller: CLUSTER_AUTHORIZATION_FAILED: the tool's principal needs ALTER"
                        + " on the cluster to reorder replicas (see README Permissions); nothing changed");
        PartitionView after = cluster.metadata().describePartition(ORDERS_0);
        assertThat(after.leader()).isEqualTo(PartitionView.NO_LEADER);
        assertThat(after.replicas()).isEqualTo(replicasBefore).containsExactly(1, 3, 2);
    }

    @Test
    @Order(9)
    void a_named_topic_the_principal_may_not_describe_is_listed_with_its_error_beside_the_offline_partition(
            LocalKafkaCluster cluster) throws Exception {
        // given: audit exists, and the recovery user has no ACL on it; the election file names it beside orders-0
        cluster.createTopic(AUDIT, List.of(2, 3), java.util.Map.of());
        Path electionFile = Files.writeString(dir.resolve("orders-and-audit.json"),
                "{\"partitions\": [{\"topic\": \"orders\", \"partition\": 0}, {\"topic\": \"audit\", \"partition\": 0}]}");
        String recovery = commandConfig(cluster, ClusterAccess.RECOVERY_USER);
        Path planFile = dir.resolve("orders-and-audit-plan.json");

        // when
        CliRun text = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "status", "--path-to-json-file",
                electionFile.toString(), "--command-config", recovery);
        CliRun json = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "status", "--path-to-json-file",
                electionFile.toString(), "--command-config", recovery, "--output", "json");
        CliRun plan = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "plan", "--strategy", "proactive",
                "--probe-timeout-ms", "10000", "--path-to-json-file", electionFile.toString(), "--output-file",
                planFile.toString(), "--command-config", recovery);

        // then: status shows what it could read and what it could not, and exits 2 (an ACL to grant)
        assertThat(text.exitCode()).as(text.err() + text.out()).isEqualTo(ExitCode.USAGE);
        assertThat(text.out()).containsPattern("(?m)^orders\\s+0\\s+none\\s")
                .containsPattern("(?m)^audit\\s+TOPIC_AUTHORIZATION_FAILED");
        assertThat(text.out().replaceAll("\\s+", " ")).contains("not authorized to describe topic 'audit': grant DESCRIBE"
                + " on it to this principal (see README Permissions)");
        assertThat(json.exitCode()).as(json.err()).isEqualTo(ExitCode.USAGE);
        JsonNode report = Json.mapper().readTree(json.out());
        assertThat(report.get("offline")).singleElement().satisfies(p -> assertThat(p.get("topic").asText()).isEqualTo(TOPIC));
        assertThat(report.get("unreadableTopics")).singleElement().satisfies(t -> {
            assertThat(t.get("topic").asText()).isEqualTo(AUDIT);
            assertThat(t.get("error").asText()).isEqualTo("TOPIC_AUTHORIZATION_FAILED");
            assertThat(t.has("badInput")).isFalse();
        });
        // and plan the same: orders-0 planned, audit named in a note, exit 2
        assertThat(plan.exitCode()).as(plan.err() + plan.out()).isEqualTo(ExitCode.USAGE);
        Plan written = PlanFile.read(planFile);
        assertThat(written.partitions()).singleElement().satisfies(p -> assertThat(p.topicPartition()).isEqualTo(ORDERS_0));
        assertThat(written.notes()).first().asString().isEqualTo("topic 'audit' not read (TOPIC_AUTHORIZATION_FAILED):"
                + " not authorized to describe topic 'audit': grant DESCRIBE on it to this principal (see README"
                + " Permissions); its partitions are not in this plan");
        assertThat(plan.out()).contains("NOTE topic 'audit' not read (TOPIC_AUTHORIZATION_FAILED)");
    }

    @Test
    @Order(10)
    void without_the_run_locks_acls_execute_changes_nothing_and_names_them(LocalKafkaCluster cluster) throws Exception {
        Path plan = dir.resolve("without-lock-acls.json");
        CliRun planned = planAsTheRecoveryUser(cluster, plan);
        assertThat(planned.exitCode()).as(planned.err() + planned.out()).isEqualTo(ExitCode.OK);

        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test", "--plan", plan.toString(),
                "--accept-unknown-loss", "--command-config", commandConfig(cluster, LOCKLESS));

        assertThat(run.exitCode()).as(run.err() + run.out()).isEqualTo(ExitCode.USAGE);
        assertThat(run.err().replaceAll("\\s+", " ")).contains("error: cannot take the run lock (topic "
                + RunLock.LOCK_TOPIC + "): TOPIC_AUTHORIZATION_FAILED: the tool's principal needs CREATE, DELETE and"
                + " DESCRIBE on the topics prefixed " + RunLock.LOCK_TOPIC, "nothing was changed", "--without-lock");
        PartitionView after = cluster.metadata().describePartition(ORDERS_0);
        assertThat(after.leader()).isEqualTo(PartitionView.NO_LEADER);
        assertThat(after.replicas()).containsExactly(1, 3, 2);
    }

    @Test
    @Order(11)
    void the_sasl_password_is_in_no_output_no_request_log_and_no_file_the_tool_writes(LocalKafkaCluster cluster)
            throws Exception {
        // given: the super user's password, and a wrong one, only in --command-config files outside the tool's directory
        String password = cluster.access().saslPassword(ClusterAccess.ADMIN_USER);
        String wrongPassword = "wr0ng-Pa55w0rd-for-admin";
        Path right = cluster.access().writeCommandConfig(ClusterAccess.ADMIN_USER, password,
                dir.resolve("admin.properties"));
        Path wrong = cluster.access().writeCommandConfig(ClusterAccess.ADMIN_USER, wrongPassword,
                dir.resolve("wrong.properties"));
        Path work = Files.createDirectory(dir.resolve("secrets"));
        Path plan = work.resolve("plan.json");
        Path salvage = work.resolve("replay-salvage");
        SalvageFixture.copied().writeTo(SalvageStore.open(salvage, SalvageFixture.PLAN));
        cluster.createTopic("secrets-replayed", List.of(LastReplicaStandingOutage.LONGEST_SURVIVOR), java.util.Map.of());
        String bootstrap = cluster.bootstrapServers();

        // when: each command that connects runs as operators run it, in a JVM of its own with its request log on,
        // with and without --verbose, logged in and refused
        List<ToolJvm.Run> runs = List.of(
                tool(work, "--bootstrap-server", bootstrap, "--command-config", right.toString(), "--verbose", "plan",
                        "--strategy", "proactive", "--probe-timeout-ms", "10000", "--topic", TOPIC, "--output-file",
                        plan.toString(), "--kafka-tools", work.resolve("steps").toString()),
                tool(work, "--bootstrap-server", bootstrap, "--command-config", right.toString(), "execute", "--reason", "test", "--plan",
                        plan.toString(), "--accept-unknown-loss"),
                tool(work, "--bootstrap-server", bootstrap, "--command-config", right.toString(), "--verbose", "replay",
                        "--salvage-dir", salvage.toString(), "--to-topic", "secrets-replayed", "--partition-map", "hash",
                        "--execute", "--reason", "test", "--without-result"),
                tool(work, "--bootstrap-server", bootstrap, "--command-config", wrong.toString(), "status"),
                tool(work, "--bootstrap-server", bootstrap, "--command-config", wrong.toString(), "--verbose", "plan",
                        "--topic", TOPIC, "--output-file", work.resolve("refused-plan.json").toString()));

        // then: they did what they were asked
        assertThat(runs.get(0).exitCode()).as(runs.get(0).output()).isEqualTo(ExitCode.OK);
        assertThat(runs.get(1).exitCode()).as(runs.get(1).output()).isEqualTo(ExitCode.OK);
        assertThat(runs.get(2).exitCode()).as(runs.get(2).output()).isEqualTo(ExitCode.OK);
        for (ToolJvm.Run refused : runs.subList(3, 5)) {
            assertThat(refused.exitCode()).as(refused.output()).isEqualTo(ExitCode.USAGE);
            assertThat(refused.output()).contains("error: authentication failed: Invalid username or password");
        }
        // kafka-clients logged its configuration at --verbose, the JAAS line hidden
        assertThat(runs.get(0).output()).contains("sasl.jaas.config = [hidden]");
        // and neither password is in what they printed, nor in any file they wrote: plan, Kafka tools' steps, result,
        // salvage, replay journal, request logs
        for (ToolJvm.Run run : runs) {
            assertThat(run.output()).doesNotContain(password).doesNotContain(wrongPassword);
        }
        List<Path> written;
        try (var files = Files.walk(work)) {
            written = files.filter(Files::isRegularFile).toList();
        }
        assertThat(written).extracting(f -> f.getFileName().toString())
                .anyMatch(name -> name.startsWith("requests-")).contains("plan.json", "STEPS.txt", "plan-result.json",
                        "manifest.json", "replay-into-secrets-replayed.json");
        for (Path file : written) {
            String content = new String(Files.readAllBytes(file), java.nio.charset.StandardCharsets.ISO_8859_1);
            assertThat(content).as(file.toString()).doesNotContain(password).doesNotContain(wrongPassword);
        }
    }

    @Test
    @Order(12)
    void kafkas_own_tools_log_in_with_the_command_config_the_steps_name(LocalKafkaCluster cluster) throws Exception {
        // given: the steps of the plan above as they would be with every replica's broker registered (here broker 1
        // is gone, so plan --kafka-tools wrote none), for the run's --command-config
        Path config = cluster.access().writeCommandConfig(ClusterAccess.ADMIN_USER,
                cluster.access().saslPassword(ClusterAccess.ADMIN_USER), dir.resolve("steps-admin.properties"));
        Plan plan = PlanFile.read(dir.resolve("secrets").resolve("plan.json"));
        KafkaToolsSteps.Written steps = KafkaToolsSteps.write(plan, dir.resolve("secrets").resolve("plan.json"),
                cluster.bootstrapServers(), config, java.util.Set.of(1, 2, 3), dir.resolve("all-listed-steps"));
        List<String> commands = Files.readString(steps.steps()).lines().filter(l -> !l.isBlank() && !l.startsWith("#"))
                .toList();

        // when: Kafka's own tools run the check and the election as printed (the listener takes SASL only)
        KafkaToolProcess.Run check = KafkaToolProcess.runAsPrinted(commands.get(0));
        KafkaToolProcess.Run elect = KafkaToolProcess.runAsPrinted(commands.stream()
                .filter(c -> c.startsWith("kafka-leader-election.sh")).findFirst().orElseThrow());

        // then: both logged in; orders-0 has its leader since execute above, so the election is not needed
        assertThat(check.exitCode()).as(check.output()).isZero();
        assertThat(check.output()).contains("Topic: " + TOPIC + "\tPartition: 0\tLeader: 2");
        assertThat(elect.exitCode()).as(elect.output()).isZero();
        assertThat(elect.output()).contains("Valid replica already elected for partitions " + ORDERS_0);
    }

    @Test
    @Order(13)
    void a_consumer_group_the_principal_may_not_describe_leaves_the_offset_repair_incomplete(LocalKafkaCluster cluster)
            throws Exception {
        // given: the run above elected orders-0; groups shipping and payments committed on it since (as admin); the
        // recovery user has the README's ACLs for consumer groups on shipping and __consumer_offsets, none on payments
        for (String group : List.of("shipping", "payments")) {
            Properties props = new Properties();
            props.putAll(cluster.clientProperties());
            props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
            try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(),
                    new ByteArrayDeserializer())) {
                consumer.commitSync(Map.of(ORDERS_0, new OffsetAndMetadata(1)));
            }
        }
        cluster.access().allow(ClusterAccess.RECOVERY_USER, ResourceType.GROUP, "shipping", DESCRIBE, READ);
        cluster.access().allow(ClusterAccess.RECOVERY_USER, ResourceType.TOPIC, Topic.GROUP_METADATA_TOPIC_NAME,
                DESCRIBE);
        awaitGroupDescribable(cluster, "shipping");
        Path result = dir.resolve("secrets").resolve("plan-result.json");
        assertThat(ResultFile.read(result).partitions()).extracting(ResultFile.Partition::outcome)
                .containsExactly("ELECTED");

        // when: the recovery user repairs the groups of that run
        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "consumer-offsets", "--result-file",
                result.toString(), "--execute", "--reason", "test", "--command-config",
                commandConfig(cluster, ClusterAccess.RECOVERY_USER));

        // then: exit 3, the group it could not read named, and the audit log says 3 too
        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.ATTENTION);
        assertThat(run.out()).startsWith("NOTE no DESCRIBE on consumer group(s) payments: their offsets were not read")
                .contains("none among those read; no offset was changed.");
        List<AuditLine> audit = AuditLine.readAll(dir.resolve("secrets").resolve(AuditLine.FILE_NAME));
        AuditLine finished = audit.get(audit.size() - 1);
        assertThat(finished.command()).isEqualTo("consumer-offsets");
        assertThat(finished.exitCode()).isEqualTo(ExitCode.ATTENTION);
    }

    /** ACLs are metadata records: waits until a broker lets the recovery user read {@code group}'s offsets. */
    private static void awaitGroupDescribable(LocalKafkaCluster cluster, String group) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        try (Admin admin = Admin.create(cluster.access().clientProperties(ClusterAccess.RECOVERY_USER))) {
            while (true) {
                try {
                    admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
                    return;
                } catch (java.util.concurrent.ExecutionException refused) {
                    if (System.nanoTime() > deadline) {
                        throw refused;
                    }
                    Thread.sleep(500);
                }
            }
        }
    }

    /** The tool in its own JVM, to its end: what it prints and its request log are all there is. */
    private static ToolJvm.Run tool(Path work, String... args) throws Exception {
        return ToolJvm.runToTheEnd(work, List.of(), Duration.ofSeconds(120), args);
    }

    private static String commandConfig(LocalKafkaCluster cluster, String user) {
        return cluster.access().writeCommandConfig(user).toString();
    }

    // ACLs are metadata records: each broker authorizes with them once it has replayed them.
    private static void awaitAclsServed(LocalKafkaCluster cluster) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            CliRun probe = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "status", "--topic", TOPIC,
                    "--command-config", commandConfig(cluster, ClusterAccess.RECOVERY_USER));
            if (probe.exitCode() == ExitCode.ATTENTION || System.nanoTime() > deadline) {
                return;
            }
            Thread.sleep(500);
        }
    }

    /** A proactive plan of every offline partition, as the README's recovery user (SASL, its ACLs). */
    private static CliRun planAsTheRecoveryUser(LocalKafkaCluster cluster, Path file) throws Exception {
        return CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "plan", "--strategy", "proactive",
                "--probe-timeout-ms", "10000", "--output-file", file.toString(),
                "--command-config", commandConfig(cluster, ClusterAccess.RECOVERY_USER));
    }
}
