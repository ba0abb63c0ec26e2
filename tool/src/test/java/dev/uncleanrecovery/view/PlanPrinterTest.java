// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.view;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.election.ElectionOptions;
import dev.uncleanrecovery.election.LeaderChoice;
import dev.uncleanrecovery.election.Strategy;
import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.evidence.ReplicaEvidence;
import dev.uncleanrecovery.election.TruncationEstimate;
import dev.uncleanrecovery.formats.ExpectedState;
import dev.uncleanrecovery.formats.Plan;
import dev.uncleanrecovery.formats.PlanBuilder;
import dev.uncleanrecovery.formats.PlanTruncation;
import dev.uncleanrecovery.formats.PlannedElection;
import dev.uncleanrecovery.formats.PlanUnansweredBroker;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

/** The plan as people read it: a dead broker's error is said once, not in every partition's row. */
class PlanPrinterTest {

    private static final Instant AT = Instant.parse("2026-11-30T06:00:00Z");
    private static final String REFUSED = "cannot connect to broker 1 (h1:9092): connection refused";

    private static void add(PlanBuilder plan, int partition, String brokerOneError) {
        add(plan, partition, brokerOneError, Strategy.PROACTIVE);
    }

    private static void add(PlanBuilder plan, int partition, String brokerOneError, Strategy strategy) {
        TopicPartition tp = new TopicPartition("orders", partition);
        TopicPartitionState state = new TopicPartitionState("orders", new Uuid(42, 7), partition,
                TopicPartitionState.NO_LEADER, 7, List.of(1, 3, 2), List.of(), List.of(),
                // balanced: broker 1 was the last in the ISR, so the plan waits for it
                strategy == Strategy.BALANCED ? List.of(1) : List.of(), List.of(1));
        List<ReplicaEvidence> evidence = List.of(
                ReplicaEvidence.failed(tp, 1, EvidenceSource.STOCK, EvidenceStatus.UNREACHABLE, brokerOneError, AT),
                ReplicaEvidence.answered(tp, 2, EvidenceSource.STOCK, 40, 6, 7, -1, AT),
                ReplicaEvidence.answered(tp, 3, EvidenceSource.STOCK, 20, 6, 7, -1, AT));
        plan.add(state, evidence, LeaderChoice.decide(state, evidence, Set.of(), ElectionOptions.defaults()
                .withStrategy(strategy)));
    }

    @Test
    void a_truncation_says_how_many_of_its_records_are_of_unknown_commitment() {
        // 3 loses 30 records past a high watermark that proves none of them; 1 loses 30 where none was read
        PlannedElection election = new PlannedElection("orders", 0, 2, new ExpectedState(7, List.of(1, 3, 2)), List.of(),
                "electing 2 loses 60 records", List.of(
                        new PlanTruncation(3, 30L, 100L, 130L, TruncationEstimate.EXACT, 0L, null),
                        new PlanTruncation(1, 30L, 100L, 130L, TruncationEstimate.EXACT, null, null)));
        StringWriter text = new StringWriter();

        PlanPrinter.print(new Plan(Plan.VERSION, AT, "cluster", "kafka-unclean-recovery test", Strategy.PROACTIVE,
                List.of(), List.of(election), List.of()), "plan.json", new PrintWriter(text, true));

        assertThat(text.toString().replaceAll("\\s+", " "))
                .contains("3: 30 [100..130), 0 committed, 30 of unknown commitment; 1: 30 [100..130), committed ?,"
                        + " 30 of unknown commitment");
    }

    @Test
    void an_unreachable_broker_is_explained_once_per_error_below_the_table() {
        PlanBuilder plan = new PlanBuilder(AT, "cluster", "kafka-unclean-recovery test", Strategy.PROACTIVE);
        add(plan, 0, REFUSED);
        add(plan, 1, REFUSED);
        add(plan, 2, "timed out after 30000 ms");
        StringWriter text = new StringWriter();

        PlanPrinter.print(plan.build(), "plan.json", new PrintWriter(text, true));

        String printed = text.toString();
        assertThat(printed.lines()).allSatisfy(line -> assertThat(line.length()).isLessThanOrEqualTo(Table.MAX_WIDTH));
        // the reason is a paragraph under its row; the three partitions look alike and share it
        assertThat(printed.replaceAll("\\s+", " ")).contains("orders-0..2 (3 partitions)", "1 (UNREACHABLE)",
                "beats 3 (epoch 6, LEO 20) and 1 (offline in metadata; unknown: its broker did not answer)");
        assertThat(printed.split(java.util.regex.Pattern.quote(REFUSED), -1)).hasSize(2);
        assertThat(printed.lines().filter(l -> l.startsWith("UNREACHABLE"))).containsExactly(
                "UNREACHABLE broker 1 (2 partition(s)): " + REFUSED,
                "UNREACHABLE broker 1 (1 partition(s)): timed out after 30000 ms");
    }

    @Test
    void a_plan_naming_its_unanswered_brokers_says_each_once_with_its_reason_also_when_everything_is_skipped() {
        PlanBuilder plan = new PlanBuilder(AT, "cluster", "kafka-unclean-recovery test", Strategy.BALANCED);
        // balanced waits for LastKnownELR member 1: every partition is skipped
        add(plan, 0, "broker 1 (h1:9092) did not answer ListOffsets within 3 s", Strategy.BALANCED);
        add(plan, 1, "broker 1 (h1:9092) did not answer ListOffsets within 3 s", Strategy.BALANCED);
        plan.unansweredBrokers(List.of(new PlanUnansweredBroker(1, "h1:9092", 2, 2,
                "broker 1 (h1:9092) did not answer ListOffsets within 3 s")));
        StringWriter text = new StringWriter();

        PlanPrinter.print(plan.build(), "plan.json", new PrintWriter(text, true));

        String printed = text.toString();
        assertThat(printed).contains("Partitions to elect: none", "Skipped: 2",
                "LastKnownELR member 1 is unknown: its broker did not answer");
        assertThat(printed.lines().filter(l -> l.contains("did not answer ListOffsets"))).containsExactly(
                "UNANSWERED broker 1 (h1:9092), 2 of 2 replica(s) unknown: broker 1 (h1:9092) did not answer ListOffsets within 3 s");
    }

    @Test
    void a_long_reason_of_an_unanswered_broker_wraps_within_120_columns() {
        PlanBuilder plan = new PlanBuilder(AT, "cluster", "kafka-unclean-recovery test", Strategy.PROACTIVE);
        String reason = "cannot connect to broker 1 (127.0.0.1:25419): connection refused or closed during setup (is the"
                + " broker running and is this its listener?) (fenced by the controller and not listening: not waiting"
                + " for it)";
        add(plan, 0, reason);
        plan.unansweredBrokers(List.of(new PlanUnansweredBroker(1, "127.0.0.1:25419", 1, 1, reason)));
        StringWriter text = new StringWriter();

        PlanPrinter.print(plan.build(), "plan.json", new PrintWriter(text, true));

        String printed = text.toString();
        assertThat(printed.lines()).allSatisfy(line -> assertThat(line.length()).isLessThanOrEqualTo(Table.MAX_WIDTH));
        assertThat(printed.replaceAll("\\s+", " ")).contains("UNANSWERED broker 1 (127.0.0.1:25419), 1 of 1 replica(s)"
                + " unknown: " + reason);
    }

    @Test
    void a_broker_read_from_its_disk_is_listed_once_with_what_its_disk_holds() {
        TopicPartition tp = new TopicPartition("orders", 0);
        TopicPartitionState state = new TopicPartitionState("orders", new Uuid(42, 7), 0,
                TopicPartitionState.NO_LEADER, 7, List.of(1, 3, 2), List.of(), List.of(), List.of(), List.of(1));
        // broker 1 is down (the probe's UNREACHABLE) and its disk was read with 'inspect' (--evidence)
        List<ReplicaEvidence> evidence = List.of(
                ReplicaEvidence.failed(tp, 1, EvidenceSource.STOCK, EvidenceStatus.UNREACHABLE, REFUSED, AT),
                ReplicaEvidence.answered(tp, 1, EvidenceSource.DISK, 55, 0, 7, -1, AT),
                ReplicaEvidence.answered(tp, 2, EvidenceSource.STOCK, 40, 6, 7, -1, AT),
                ReplicaEvidence.answered(tp, 3, EvidenceSource.STOCK, 20, 6, 7, -1, AT));
        PlanBuilder plan = new PlanBuilder(AT, "cluster", "kafka-unclean-recovery test", Strategy.PROACTIVE);
        plan.add(state, evidence, LeaderChoice.decide(state, evidence, Set.of(), ElectionOptions.defaults()
                .withStrategy(Strategy.PROACTIVE)));
        StringWriter text = new StringWriter();

        PlanPrinter.print(plan.build(), "plan.json", new PrintWriter(text, true));

        String row = text.toString().lines().filter(l -> l.startsWith("orders-0")).findFirst().orElseThrow();
        assertThat(row).contains("1 (epoch 0, LEO 55, disk)").doesNotContain("UNREACHABLE");
    }

    @Test
    void each_replica_and_each_loss_is_an_entry_of_its_own_and_no_value_is_broken_across_lines() {
        // five replicas with ten-digit offsets, a topic name of a real length: the cells must wrap
        String topic = "payments.settlement.events.eu-west-1.v2";
        PlanBuilder plan = new PlanBuilder(AT, "cluster", "kafka-unclean-recovery test", Strategy.PROACTIVE);
        for (int partition = 0; partition < 2; partition++) {
            TopicPartition tp = new TopicPartition(topic, 10 + 7 * partition);
            TopicPartitionState state = new TopicPartitionState(topic, new Uuid(42, 9), tp.partition(),
                    TopicPartitionState.NO_LEADER, 7, List.of(5, 3, 2, 4, 6), List.of(), List.of(), List.of(5),
                    List.of(5));
            List<ReplicaEvidence> evidence = List.of(
                    ReplicaEvidence.failed(tp, 5, EvidenceSource.STOCK, EvidenceStatus.UNREACHABLE, REFUSED, AT),
                    ReplicaEvidence.answered(tp, 3, EvidenceSource.STOCK, 1_234_600_000L + partition, 6, 7, -1, AT)
                            .withHighWatermark(1_234_400_000L),
                    ReplicaEvidence.answered(tp, 2, EvidenceSource.STOCK, 1_234_567_890L, 7, 7, -1, AT)
                            .withHighWatermark(1_234_500_000L),
                    ReplicaEvidence.answered(tp, 4, EvidenceSource.STOCK, 1_234_567_000L, 7, 7, -1, AT)
                            .withHighWatermark(1_234_500_000L),
                    ReplicaEvidence.answered(tp, 6, EvidenceSource.STOCK, 1_200_000_000L, 7, 7, -1, AT)
                            .withHighWatermark(1_199_000_000L));
            plan.add(state, evidence, LeaderChoice.decide(state, evidence, Set.of(5), ElectionOptions.defaults()
                    .withStrategy(Strategy.PROACTIVE), dev.uncleanrecovery.election.KnownCuts.under(2,
                    java.util.Map.of(3, 1_234_550_000L))));
        }
        Plan built = plan.build();
        StringWriter text = new StringWriter();

        PlanPrinter.print(built, "plan.json", new PrintWriter(text, true));

        List<String> lines = text.toString().lines().toList();
        assertThat(lines).allSatisfy(line -> assertThat(line.length()).isLessThanOrEqualTo(Table.MAX_WIDTH));
        // each of these is one value: on one line, never broken
        for (String value : List.of(topic + "-10", topic + "-17", "2 (epoch 7,", "LEO 1234567890,", "HW 1234500000)",
                "LEO 1234600000,", "HW 1234400000);", "LEO 1200000000,", "HW 1199000000)", "5 (UNREACHABLE);",
                "[1234550000..1234600000),", "[1234550000..1234600001),", "50000 never committed;",
                "50001 never committed;", "3: 50000", "3: 50001")) {
            assertThat(lines).as(value).anyMatch(line -> line.contains(value));
        }
        // the entries of a cell are apart by ";", the parts of one by ","
        PartitionRows.Group first = PlanView.of(built).elections().get(0);
        assertThat(first.cells()).containsExactly("2 (epoch 7, LEO 1234567890, HW 1234500000)",
                "5 (UNREACHABLE); 3 (epoch 6, LEO 1234600000, HW 1234400000); 4 (epoch 7, LEO 1234567000, HW"
                        + " 1234500000); 6 (epoch 7, LEO 1200000000, HW 1199000000)",
                "5: unknown; 3: 50000 [1234550000..1234600000), 0 committed, 50000 never committed; 4: 0; 6: 0");
    }
}
