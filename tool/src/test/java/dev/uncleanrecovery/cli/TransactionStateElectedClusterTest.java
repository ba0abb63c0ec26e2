// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.harness.KafkaToolProcess;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.PartitionView;
import dev.uncleanrecovery.localcluster.RoundProducer;
import dev.uncleanrecovery.formats.PlanFile;
import dev.uncleanrecovery.formats.PlannedElection;
import dev.uncleanrecovery.formats.ResultFile;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The coordinator forgets a transaction: __transaction_state-0 (one partition, replicas [a,b]) has b out of its ISR
 * when a producer opens a transaction on ledger-0 (replicas [a,c]) and dies without closing it; then a dies for good.
 * ledger-0 stays online on c with the transaction open; __transaction_state-0 goes offline, and electing b, which
 * never saw the transaction, leaves a coordinator that knows no such producer: nothing will ever close it.
 */
@KafkaClusterTest(brokerProperties = {"transaction.state.log.num.partitions=1",
        "transaction.state.log.replication.factor=2", "transaction.state.log.min.isr=1"})
class TransactionStateElectedClusterTest {

    private static final TopicPartition STATE = new TopicPartition(Topic.TRANSACTION_STATE_TOPIC_NAME, 0);
    private static final TopicPartition LEDGER = new TopicPartition("ledger", 0);
    private static final Duration STEP = Duration.ofSeconds(60);

    @TempDir
    static Path dir;

    private static int forgetful;

    @BeforeAll
    static void forgetAnOpenTransaction(LocalKafkaCluster cluster) throws Exception {
        // the first transactional producer makes the coordinator create its topic
        try (KafkaProducer<String, String> first = producer(cluster, "first")) {
            first.initTransactions();
        }
        PartitionView state = cluster.metadata().awaitPartition(STATE, v -> v.leader() >= 0 && v.isr().size() == 2,
                STEP);
        int coordinator = state.leader();
        forgetful = state.replicas().stream().filter(b -> b != coordinator).findFirst().orElseThrow();
        List<Integer> others = new ArrayList<>(cluster.brokerIds());
        others.removeAll(state.replicas());
        int keeper = others.get(0);
        cluster.createTopic(LEDGER.topic(), List.of(coordinator, keeper), 1);

        cluster.killBroker(forgetful);
        cluster.metadata().awaitPartition(STATE, v -> v.isr().equals(List.of(coordinator)), STEP);
        // dies with the transaction open: its timeout (60 s) outlives the coordinator, which dies next
        RoundProducer.openTransactionAndDie(cluster, LEDGER, "ledger-writer", 3, Duration.ofSeconds(60));

        cluster.killBroker(coordinator);
        cluster.startBroker(forgetful);
        cluster.metadata().awaitPartition(STATE, v -> v.leader() == PartitionView.NO_LEADER, STEP);
        cluster.metadata().awaitPartition(LEDGER, v -> v.leader() == keeper, STEP);
    }

    @Test
    void electing_the_forgetful_coordinator_replica_shows_the_transaction_it_forgot_and_the_abort_clears_it(
            LocalKafkaCluster cluster) throws Exception {
        Path plan = dir.resolve("state.json");
        CliRun planned = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "plan", "--strategy", "proactive",
                "--output-file", plan.toString());
        assertThat(planned.exitCode()).as(planned.out() + planned.err()).isEqualTo(ExitCode.OK);
        assertThat(PlanFile.read(plan).partitions()).extracting(PlannedElection::topicPartition).containsExactly(STATE);

        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test", "--accept-unknown-loss", "--plan", plan.toString());

        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.OK);
        assertThat(run.err()).contains(Topic.TRANSACTION_STATE_TOPIC_NAME + " was elected: looking for hanging"
                + " transactions on all");
        ResultFile result = ResultFile.read(dir.resolve("state-result.json"));
        // ledger-0 was not elected: the coordinator's lost state is what makes its transaction hang
        assertThat(result.hangingTransactions()).singleElement().satisfies(h -> {
            assertThat(h.topic()).isEqualTo(LEDGER.topic());
            assertThat(h.startOffset()).isZero();
            assertThat(h.why()).startsWith("no transaction coordinator knows producer id");
        });
        assertThat(cluster.metadata().openTransactionStarts(LEDGER)).hasSize(1);

        KafkaToolProcess.Run abort = KafkaToolProcess.runAsPrinted(result.hangingTransactions().get(0).abortCommand());
        assertThat(abort.exitCode()).as(abort.output()).isZero();
        assertThat(cluster.metadata().openTransactionStarts(LEDGER)).isEmpty();
    }

    private static KafkaProducer<String, String> producer(LocalKafkaCluster cluster, String transactionalId) {
        Properties props = new Properties();
        props.putAll(cluster.clientProperties());
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        props.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "60000");
        return new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
    }
}
