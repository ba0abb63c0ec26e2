// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.election.ElectionOptions;
import dev.uncleanrecovery.election.LeaderChoice;
import dev.uncleanrecovery.election.Strategy;
import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.evidence.ReplicaEvidence;
import dev.uncleanrecovery.plan.PlanBuilder;
import dev.uncleanrecovery.plan.PlanUnansweredBroker;
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
    void an_unreachable_broker_is_explained_once_per_error_below_the_table() {
        PlanBuilder plan = new PlanBuilder(AT, "cluster", "kafka-unclean-recovery test", Strategy.PROACTIVE);
        add(plan, 0, REFUSED);
        add(plan, 1, REFUSED);
        add(plan, 2, "timed out after 30000 ms");
        StringWriter text = new StringWriter();

        PlanPrinter.print(plan.build(), new PrintWriter(text, true));

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

        PlanPrinter.print(plan.build(), new PrintWriter(text, true));

        String printed = text.toString();
        assertThat(printed).contains("Partitions to elect: none", "Skipped: 2",
                "LastKnownELR member 1 is unknown: its broker did not answer");
        assertThat(printed.lines().filter(l -> l.contains("did not answer ListOffsets"))).containsExactly(
                "UNANSWERED broker 1 (h1:9092), 2 of 2 replica(s) unknown: broker 1 (h1:9092) did not answer ListOffsets within 3 s");
    }
}
