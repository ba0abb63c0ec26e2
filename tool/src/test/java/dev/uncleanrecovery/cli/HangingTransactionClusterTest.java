// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.harness.KafkaToolProcess;
import dev.uncleanrecovery.localcluster.LocalClusterException;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.PartitionView;
import dev.uncleanrecovery.localcluster.RoundProducer;
import dev.uncleanrecovery.formats.AuditLine;
import dev.uncleanrecovery.formats.ResultFile;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A producer dies mid-transaction on ledger-0 (replicas [1,2], min.insync.replicas=1): its 3 records reach both
 * replicas. Then 2 dies; the coordinator aborts the expired transaction and writes the abort marker to 1 alone. Then
 * 1 dies for good. Electing 2, which has the records but not the marker, leaves a transaction nobody will close.
 * journal-0 goes through the same with a producer of its own, for the run that aborts what it finds, and register-0
 * for the command that aborts later what a run's result recorded.
 */
@KafkaClusterTest(brokerProperties = "transaction.abort.timed.out.transaction.cleanup.interval.ms=500")
class HangingTransactionClusterTest {

    private static final TopicPartition LEDGER = new TopicPartition("ledger", 0);
    private static final String TRANSACTIONAL_ID = "ledger-writer";
    private static final TopicPartition JOURNAL = new TopicPartition("journal", 0);
    private static final String JOURNAL_WRITER = "journal-writer";
    private static final TopicPartition REGISTER = new TopicPartition("register", 0);
    private static final String REGISTER_WRITER = "register-writer";
    private static final int LAST_LEADER = 1;
    private static final int SURVIVOR = 2;
    private static final Duration STEP = Duration.ofSeconds(60);

    @TempDir
    static Path dir;

    @BeforeAll
    static void loseTheAbortMarker(LocalKafkaCluster cluster) throws Exception {
        cluster.createTopic(LEDGER.topic(), List.of(LAST_LEADER, SURVIVOR), 1);
        cluster.createTopic(JOURNAL.topic(), List.of(LAST_LEADER, SURVIVOR), 1);
        cluster.createTopic(REGISTER.topic(), List.of(LAST_LEADER, SURVIVOR), 1);
        RoundProducer.produce(cluster, List.of(LEDGER, JOURNAL, REGISTER), 5, "all", "before", Duration.ofSeconds(30));
        // the producers die mid-transaction; acks=all put their records on both replicas
        RoundProducer.openTransactionAndDie(cluster, LEDGER, TRANSACTIONAL_ID, 3, Duration.ofSeconds(3));
        RoundProducer.openTransactionAndDie(cluster, JOURNAL, JOURNAL_WRITER, 3, Duration.ofSeconds(3));
        RoundProducer.openTransactionAndDie(cluster, REGISTER, REGISTER_WRITER, 3, Duration.ofSeconds(3));

        cluster.killBroker(SURVIVOR);
        for (TopicPartition tp : List.of(LEDGER, JOURNAL, REGISTER)) {
            cluster.metadata().awaitPartition(tp, v -> v.isr().equals(List.of(LAST_LEADER)), STEP);
        }
        awaitAborted(cluster, TRANSACTIONAL_ID, LEDGER);
        awaitAborted(cluster, JOURNAL_WRITER, JOURNAL);
        awaitAborted(cluster, REGISTER_WRITER, REGISTER);

        cluster.killBroker(LAST_LEADER);
        cluster.startBroker(SURVIVOR);
        for (TopicPartition tp : List.of(LEDGER, JOURNAL, REGISTER)) {
            cluster.metadata().awaitPartition(tp, v -> v.leader() == PartitionView.NO_LEADER, STEP);
        }
    }

    @Test
    void the_hanging_transaction_is_reported_after_the_election_and_the_abort_command_clears_it(
            LocalKafkaCluster cluster) throws Exception {
        Path plan = dir.resolve("ledger.json");
        CliRun planned = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "plan", "--topic", LEDGER.topic(),
                "--strategy", "proactive", "--output-file", plan.toString());
        assertThat(planned.exitCode()).as(planned.out() + planned.err()).isEqualTo(ExitCode.OK);

        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test", "--accept-unknown-loss", "--plan", plan.toString());

        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.OK);
        ResultFile result = ResultFile.read(dir.resolve("ledger-result.json"));
        assertThat(result.hangingTransactions()).singleElement().satisfies(h -> {
            assertThat(h.topic()).isEqualTo(LEDGER.topic());
            assertThat(h.startOffset()).isEqualTo(5);
            assertThat(h.why()).contains("transaction '" + TRANSACTIONAL_ID + "' CompleteAbort");
            assertThat(h.abortCommand()).isEqualTo("kafka-transactions.sh --bootstrap-server "
                    + cluster.bootstrapServers() + " abort --topic ledger --partition 0 --start-offset 5");
        });
        // the command on lines of its own, to be pasted
        assertThat(run.out()).contains("WARNING: Hanging transaction on ledger-0", "Abort it with:\n",
                "    kafka-transactions.sh --bootstrap-server " + cluster.bootstrapServers());
        // the broker agrees: its producer state still has the transaction open from offset 5
        assertThat(cluster.metadata().openTransactionStarts(LEDGER)).containsExactly(5L);

        // the command the tool printed, run with Kafka's own tool, clears it
        KafkaToolProcess.Run abort = KafkaToolProcess.runAsPrinted(result.hangingTransactions().get(0).abortCommand());
        assertThat(abort.exitCode()).as(abort.output()).isZero();
        assertThat(cluster.metadata().openTransactionStarts(LEDGER)).isEmpty();
    }

    @Test
    void abort_hanging_transactions_closes_what_it_found_and_read_committed_consumers_read_on(LocalKafkaCluster cluster)
            throws Exception {
        Path plan = dir.resolve("journal.json");
        CliRun planned = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "plan", "--topic", JOURNAL.topic(),
                "--strategy", "proactive", "--output-file", plan.toString());
        assertThat(planned.exitCode()).as(planned.out() + planned.err()).isEqualTo(ExitCode.OK);

        List<String> sentRequests;
        CliRun run;
        try (SentRequests sent = SentRequests.record()) {
            run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test",
                    "--accept-unknown-loss", "--abort-hanging-transactions", "--plan", plan.toString());
            sentRequests = sent.apis();
        }

        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.OK);
        // the abort is a change: it is sent while the run lock is held, before the lock topic's deletion releases it
        assertThat(sentRequests).as("requests, in order").contains("CREATE_TOPICS", "WRITE_TXN_MARKERS",
                "DELETE_TOPICS");
        assertThat(sentRequests.lastIndexOf("WRITE_TXN_MARKERS")).as(sentRequests.toString())
                .isLessThan(sentRequests.indexOf("DELETE_TOPICS"));
        ResultFile result = ResultFile.read(dir.resolve("journal-result.json"));
        assertThat(result.hangingTransactions()).singleElement().satisfies(h -> {
            assertThat(h.topic()).isEqualTo(JOURNAL.topic());
            assertThat(h.startOffset()).isEqualTo(5);
            assertThat(h.aborted()).isTrue();
            assertThat(h.abortError()).isNull();
        });
        assertThat(run.out()).contains("Aborted the hanging transaction on journal-0").doesNotContain("WARNING: Hanging");
        assertThat(result.warnings()).noneMatch(w -> w.contains("Hanging transaction"));
        // the abort is part of the run: in its FINISHED line
        List<AuditLine> audit = AuditLine.readAll(dir.resolve(AuditLine.FILE_NAME));
        assertThat(audit.get(audit.size() - 1).outcomes()).extracting(AuditLine.Outcome::outcome)
                .contains("ELECTED", "ABORTED");
        // the broker agrees: no transaction open, and the last stable offset is the high watermark again
        assertThat(cluster.metadata().openTransactionStarts(JOURNAL)).isEmpty();
        assertReadCommittedReadsOn(cluster, JOURNAL);
    }

    @Test
    void hanging_transactions_aborts_later_what_the_result_recorded_dry_run_first(LocalKafkaCluster cluster)
            throws Exception {
        Path plan = dir.resolve("register.json");
        CliRun planned = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "plan", "--topic", REGISTER.topic(),
                "--strategy", "proactive", "--output-file", plan.toString());
        assertThat(planned.exitCode()).as(planned.out() + planned.err()).isEqualTo(ExitCode.OK);
        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--accept-unknown-loss",
                "--reason", "test", "--plan", plan.toString());
        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.OK);
        Path resultFile = dir.resolve("register-result.json");
        assertThat(ResultFile.read(resultFile).hangingTransactions()).singleElement()
                .satisfies(h -> assertThat(h.aborted()).isNull());

        // the dry run checks it is still open as found, and changes nothing
        CliRun shown = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "hanging-transactions",
                "--result-file", resultFile.toString());
        assertThat(shown.exitCode()).as(shown.out() + shown.err()).isEqualTo(ExitCode.OK);
        assertThat(shown.out()).contains("register-0", "WOULD ABORT", "Nothing was changed");
        assertThat(cluster.metadata().openTransactionStarts(REGISTER)).containsExactly(5L);

        CliRun unexplained = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "hanging-transactions",
                "--result-file", resultFile.toString(), "--execute");
        assertThat(unexplained.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(unexplained.err()).contains("--reason");
        CliRun aborted = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "hanging-transactions",
                "--result-file", resultFile.toString(), "--execute", "--reason", "INC-7 register stuck");
        assertThat(aborted.exitCode()).as(aborted.out() + aborted.err()).isEqualTo(ExitCode.OK);
        assertThat(aborted.out()).contains("ABORTED", "1 hanging transaction(s) aborted, 0 not.");
        // the audit log beside the result says who aborted what, and why
        List<AuditLine> audit = AuditLine.readAll(dir.resolve(AuditLine.FILE_NAME));
        AuditLine finished = audit.get(audit.size() - 1);
        assertThat(finished.command()).isEqualTo("hanging-transactions");
        assertThat(finished.reason()).isEqualTo("INC-7 register stuck");
        assertThat(finished.outcomes()).singleElement().satisfies(o -> {
            assertThat(o.topic()).isEqualTo(REGISTER.topic());
            assertThat(o.outcome()).isEqualTo("ABORTED");
        });
        assertThat(ResultFile.read(dir.resolve("register-result-2.json")).hangingTransactions()).singleElement()
                .satisfies(h -> assertThat(h.aborted()).isTrue());
        // the broker agrees: nothing open, the last stable offset is the high watermark again
        assertThat(cluster.metadata().openTransactionStarts(REGISTER)).isEmpty();
        assertReadCommittedReadsOn(cluster, REGISTER);

        // once more: nothing is left to abort in the rewritten result
        CliRun again = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "hanging-transactions",
                "--result-file", dir.resolve("register-result-2.json").toString(), "--execute", "--reason", "test");
        assertThat(again.exitCode()).as(again.out() + again.err()).isEqualTo(ExitCode.OK);
        assertThat(again.out()).contains(": none.");
    }

    /** The last stable offset is the high watermark again, past the aborted transaction. */
    private static void assertReadCommittedReadsOn(LocalKafkaCluster cluster, TopicPartition tp) throws Exception {
        try (Admin admin = cluster.createAdmin()) {
            long stable = admin.listOffsets(Map.of(tp, OffsetSpec.latest()),
                    new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).partitionResult(tp).get().offset();
            long end = admin.listOffsets(Map.of(tp, OffsetSpec.latest())).partitionResult(tp).get().offset();
            assertThat(stable).isEqualTo(end).isGreaterThan(5 + 3);
        }
    }

    /** Until the coordinator has aborted the expired transaction (its marker then is on the leader, broker 1). */
    private static void awaitAborted(LocalKafkaCluster cluster, String transactionalId, TopicPartition tp)
            throws Exception {
        long deadline = System.nanoTime() + STEP.toNanos();
        try (Admin admin = cluster.createAdmin()) {
            while (true) {
                TransactionState state = admin.describeTransactions(List.of(transactionalId)).all().get()
                        .get(transactionalId).state();
                if (state == TransactionState.COMPLETE_ABORT && cluster.metadata().openTransactionStarts(tp).isEmpty()) {
                    return;
                }
                if (System.nanoTime() > deadline) {
                    throw new LocalClusterException("the coordinator did not abort " + transactionalId + " within "
                            + STEP.toSeconds() + " s; it is " + state);
                }
                Thread.sleep(200);
            }
        }
    }
}
