// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.chaos;

import java.util.List;


/** The line each seed prints and the table of a run, per kind of producer (docs/chaos.md shows both). */
final class SummaryTable {

    private static final String ROW = "%-14s %7s %8s %8s %11s %9s %9s %9s %9s%n";

    private SummaryTable() {
    }

    static String line(TrialOutcome outcome, long seconds) {
        if (!outcome.trial()) {
            return String.format("seed %d: not a trial (%s) in %d s", outcome.seed(), String.join("; ", outcome.notes()),
                    seconds);
        }
        TrialOutcome.Counts t = outcome.total();
        return String.format("seed %d %s %s: %d offline (led by the tool %d, by Kafka's election %d), %d acked (%d on no replica before recovery, %d only on a"
                        + " lost disk), lost by the tool %d, by Kafka's election %d, salvaged %d, replayed %d; %d s%s",
                outcome.seed(), outcome.failed() ? "FAILED" : "ok", outcome.path(), outcome.offline(),
                outcome.ledByTool(), outcome.ledByKafka(), t.acked(),
                t.onNoReplica(), t.onLostDiskOnly(), t.lostByTool(), t.lostByKafka(), t.salvaged(), t.replayed(),
                seconds, outcome.notes().isEmpty() ? "" : "\n    " + String.join("\n    ", outcome.notes()));
    }

    static String table(List<TrialOutcome> outcomes) {
        List<TrialOutcome> trials = outcomes.stream().filter(TrialOutcome::trial).toList();
        long offline = trials.stream().mapToLong(TrialOutcome::offline).sum();
        StringBuilder text = new StringBuilder();
        text.append(String.format("%d seeds, %d trials (%d failed), %d offline partitions: the tool led %d, Kafka's"
                + " election %d%n", outcomes.size(), trials.size(), trials.stream().filter(TrialOutcome::failed).count(),
                offline, trials.stream().mapToLong(TrialOutcome::ledByTool).sum(),
                trials.stream().mapToLong(TrialOutcome::ledByKafka).sum()));
        text.append(String.format(ROW, "producer", "trials", "acked", "on none", "lost disk", "tool lost",
                "Kafka lost", "salvaged", "replayed"));
        for (Workload.Acks acks : Workload.Acks.values()) {
            TrialOutcome.Counts sum = trials.stream().map(o -> o.counts().getOrDefault(acks, TrialOutcome.Counts.ZERO))
                    .reduce(TrialOutcome.Counts.ZERO, TrialOutcome.Counts::plus);
            text.append(row(name(acks), trials.size(), sum));
        }
        TrialOutcome.Counts all = trials.stream().map(TrialOutcome::total)
                .reduce(TrialOutcome.Counts.ZERO, TrialOutcome.Counts::plus);
        text.append(row("all", trials.size(), all));
        return text.toString();
    }

    private static String row(String name, int trials, TrialOutcome.Counts c) {
        return String.format(ROW, name, trials, c.acked(), c.onNoReplica(), c.onLostDiskOnly(), c.lostByTool(),
                c.lostByKafka(), c.salvaged(), c.replayed());
    }

    private static String name(Workload.Acks acks) {
        return switch (acks) {
            case ALL -> "acks=all";
            case ONE -> "acks=1";
            case TRANSACTIONAL -> "transactional";
        };
    }

}
