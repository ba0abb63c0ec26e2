// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.connect.BrokerState;
import dev.uncleanrecovery.election.Decision;
import dev.uncleanrecovery.election.ElectionOptions;
import dev.uncleanrecovery.election.LeaderChoice;
import dev.uncleanrecovery.election.Strategy;
import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.evidence.ReplicaEvidence;
import dev.uncleanrecovery.execute.ExecutionResult;
import dev.uncleanrecovery.execute.Outcome;
import dev.uncleanrecovery.execute.PartitionOutcome;
import dev.uncleanrecovery.formats.Plan;
import dev.uncleanrecovery.formats.PlanBuilder;
import dev.uncleanrecovery.formats.PlanFile;
import dev.uncleanrecovery.support.DurableFiles;
import dev.uncleanrecovery.view.ExecutionReport;
import dev.uncleanrecovery.view.PlanPrinter;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;

/**
 * Not a command: the main class the launcher ({@code bin/kafka-unclean-recovery.sh}) runs once to record its
 * class-data archive (AppCDS), kept out of the command tree so no operator ever sees it. It must
 * load what real runs load — the plan, election, JSON and table code as well as kafka-clients' network stack — yet
 * touch no cluster. So it plans, writes, reads back and prints a made-up outage of a few partitions in a temporary
 * directory, writes a made-up result the same way, renders the usage text, writes and reads every request and answer
 * kafka-clients knows, and then asks a closed loopback port for the cluster's status and makes a recovery's Admin
 * calls there (which fail, after loading the clients). An archive recorded from {@code status} alone would hold only
 * the client's classes: a plan would still load and verify its own ones from the jar at every start.
 */
public final class ClassDataTraining {

    private static final String TOPIC = "class-data-training";

    private ClassDataTraining() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Files.createTempDirectory("kafka-unclean-recovery-training");
        PrintWriter sink = new PrintWriter(Writer.nullWriter());
        try {
            Instant now = Instant.now();
            List<BrokerState> brokers = List.of(new BrokerState(1, "127.0.0.1", 9, null, true),
                    new BrokerState(2, "127.0.0.1", 9, null, false), new BrokerState(3, "127.0.0.1", 9, null, false));
            PlanBuilder builder = new PlanBuilder(now, "training", "kafka-unclean-recovery", Strategy.PROACTIVE);
            List<PartitionOutcome> outcomes = new ArrayList<>();
            for (int partition = 0; partition < 50; partition++) {
                List<Integer> replicas = partition % 2 == 0 ? List.of(1, 3, 2) : List.of(1, 2, 3);
                TopicPartitionState offline = new TopicPartitionState(TOPIC, Uuid.ZERO_UUID, partition,
                        TopicPartitionState.NO_LEADER, 1, replicas, List.of(), List.of(), List.of(1), List.of(1));
                List<ReplicaEvidence> evidence = List.of(
                        ReplicaEvidence.failed(offline.topicPartition(), 1, EvidenceSource.STOCK, EvidenceStatus.UNREACHABLE,
                                "connection refused", now),
                        ReplicaEvidence.answered(offline.topicPartition(), 2, EvidenceSource.STOCK, 4, 0, 1, -1, now),
                        ReplicaEvidence.answered(offline.topicPartition(), 3, EvidenceSource.NATIVE, 2, 0, 1, 7, now));
                Decision decision = LeaderChoice.decide(offline, evidence, Set.of(1),
                        ElectionOptions.defaults().withStrategy(Strategy.PROACTIVE));
                builder.add(offline, evidence, decision);
                TopicPartitionState led = new TopicPartitionState(TOPIC, Uuid.ZERO_UUID, partition, 2, 2, replicas,
                        List.of(2), List.of(), List.of(), List.of(1));
                outcomes.add(new PartitionOutcome(offline.topicPartition(), 2, Outcome.ELECTED, "leader 2, leader epoch 1 -> 2",
                        offline, led));
            }
            Path planFile = dir.resolve("plan.json");
            PlanFile.write(planFile, builder.build());
            Plan plan = PlanFile.read(planFile);
            PlanPrinter.print(plan, planFile.toString(), sink);
            ExecutionResult result = new ExecutionResult("training", planFile.toString(), now, Duration.ofMillis(1),
                    "training", outcomes);
            ExecutionReport.print(result, result.toResultFile(ToolVersion.describe(), "127.0.0.1:9"), null,
                    dir.resolve("result.json"), false, sink, ExecutionReport.Page.NONE, ExecutionReport.Written.NONE);
        } finally {
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    DurableFiles.delete(p);
                }
            }
        }
        // the usage text, as --help and a mistyped option print it
        Main.run(sink, sink, "--help");
        protocolMessages();
        // The network side: discovery against a port nothing listens on (it fails, as it should here), and the Admin
        // calls of a recovery against the same port.
        Main.run(sink, sink, "--bootstrap-server", "127.0.0.1:9", "status", "--admin-timeout-ms", "2000");
        adminCalls();
    }

    /**
     * Each request and answer kafka-clients knows written and read once, the ones a recovery sends among them (no
     * list to keep in step with the code), and the error table every answer is read with (its first use builds an
     * exception factory per error code): a run loads these on its way to the first change.
     */
    private static void protocolMessages() {
        Errors.forCode(Errors.NONE.code());
        for (ApiKeys key : ApiKeys.values()) {
            short version = key.latestVersion();
            try {
                AbstractRequest.parseRequest(key, version,
                        MessageUtil.toByteBufferAccessor(key.messageType.newRequest(), version));
                AbstractResponse.parseResponse(key,
                        MessageUtil.toByteBufferAccessor(key.messageType.newResponse(), version), version);
            } catch (RuntimeException e) {
                // an empty message some version refuses: its classes are loaded all the same
            }
        }
    }

    /**
     * The Admin client the run lock, the elections and the consumer-group reads go through, and its calls, against a
     * port nothing listens on: each fails once its short timeout passes.
     */
    private static void adminCalls() {
        Properties properties = new Properties();
        properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9");
        properties.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "1000");
        properties.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "1000");
        TopicPartition tp = new TopicPartition(TOPIC, 0);
        try (Admin admin = Admin.create(properties)) {
            List<KafkaFuture<?>> calls = List.of(
                    admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all(),
                    admin.deleteTopics(List.of(TOPIC)).all(),
                    admin.alterPartitionReassignments(Map.of(tp, Optional.of(new NewPartitionReassignment(List.of(1)))))
                            .all(),
                    admin.listPartitionReassignments(Set.of(tp)).reassignments(),
                    admin.electLeaders(ElectionType.UNCLEAN, Set.of(tp)).all(),
                    admin.describeTopics(List.of(TOPIC)).allTopicNames(),
                    admin.listConsumerGroupOffsets(TOPIC).all());
            for (KafkaFuture<?> call : calls) {
                try {
                    call.get();
                } catch (ExecutionException | InterruptedException e) {
                    // nothing listens there
                }
            }
        }
    }
}
