// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.view;

import dev.uncleanrecovery.formats.ConsumerOffsetReset;
import dev.uncleanrecovery.formats.DivergencePoint;
import dev.uncleanrecovery.recovery.ConsumerOffsetRepair;
import java.io.PrintWriter;

/** The consumer offset resets as a table, for {@code consumer-offsets}, {@code execute} and {@code recover}. */
public final class ConsumerOffsetTable {

    private ConsumerOffsetTable() {
    }

    /** Prints the resets and what was done; {@code execute} false is a dry run. */
    public static void print(ConsumerOffsetRepair.Repair repair, boolean execute, PrintWriter out) {
        repair.notes().forEach(n -> Table.printWrapped(out, "NOTE " + n, 5));
        if (repair.resets().isEmpty()) {
            out.println("Consumer groups past the divergence point of the " + repair.elected()
                    + " elected partition(s): none" + (repair.notes().isEmpty() ? "" : " among those read")
                    + (execute ? "; no offset was changed." : "."));
            return;
        }
        out.println("Consumer groups past the divergence point (the first offset where the new leader's log differs"
                + " from what they read):");
        Table table = new Table("GROUP", "PARTITION", "COMMITTED", "RESET TO", "DIVERGENCE FROM", "OUTCOME");
        for (ConsumerOffsetReset r : repair.resets()) {
            table.row(r.group(), PartitionRows.label(java.util.List.of(r.topicPartition())), r.committedOffset(), r.divergenceOffset(),
                    switch (r.basis()) {
                        case REPLICA_CUT -> "cut of " + r.historyReplica();
                        case NEW_LOG_END -> "new log end";
                        case COMMITTED_EPOCH_END -> "its epoch's end";
                        case LEADER_HIGH_WATERMARK -> "leader's HW";
                    },
                    r.outcome());
            if (r.detail() != null) {
                table.note(r.detail());
            }
        }
        table.print(out);
        long notTouched = repair.count(ConsumerOffsetReset.Outcome.ACTIVE_GROUP)
                + repair.count(ConsumerOffsetReset.Outcome.FAILED);
        long earlier = repair.count(ConsumerOffsetReset.Outcome.ALREADY_RESET);
        String setBefore = earlier == 0 ? "" : ", " + earlier + " set back before and read on since";
        if (execute) {
            out.printf("%d offset(s) set to the divergence point, %d not changed%s.%n",
                    repair.count(ConsumerOffsetReset.Outcome.RESET), notTouched, setBefore);
        } else {
            out.printf("Dry run: %d offset(s) would be set to the divergence point, %d would not%s. Nothing was"
                    + " changed.%n", repair.count(ConsumerOffsetReset.Outcome.WOULD_RESET), notTouched, setBefore);
        }
    }
}
