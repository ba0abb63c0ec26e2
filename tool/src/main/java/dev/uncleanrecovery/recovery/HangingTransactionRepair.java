// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.recovery;

import dev.uncleanrecovery.cluster.HangingTransactions;
import dev.uncleanrecovery.formats.ResultFile;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.TopicPartition;

/**
 * The hanging transactions a run's result file records and did not abort, aborted later (after their producers were
 * found gone, say), with the checks {@code kafka-transactions.sh abort} makes: each must still be open on its partition
 * as the run found it. Dry run unless asked to change.
 */
public final class HangingTransactionRepair {

    /**
     * @param open        the transactions the result records as not aborted, in its order
     * @param aborts      what became of each of {@code open}: aborted, or why not (a dry run's: still open or not)
     * @param transactions the result's whole list, with the aborts made now recorded
     * @param attempted   the entries of {@code open} as this run left them: with their abort's outcome when it
     *                    executed, as they were after a dry run
     */
    public record Repair(List<ResultFile.HangingTransaction> open, List<HangingTransactions.Abort> aborts,
                         List<ResultFile.HangingTransaction> transactions,
                         List<ResultFile.HangingTransaction> attempted) {

        public long aborted() {
            return aborts.stream().filter(HangingTransactions.Abort::aborted).count();
        }

        /** Still hanging after this run: not aborted, whatever the reason (a dry run's count every one). */
        public long notAborted() {
            return aborts.size() - aborted();
        }
    }

    private HangingTransactionRepair() {
    }

    public static Repair run(Admin admin, Duration timeout, ResultFile result, boolean execute) {
        List<ResultFile.HangingTransaction> recorded = result.hangingTransactions() == null ? List.of()
                : result.hangingTransactions();
        List<ResultFile.HangingTransaction> open = recorded.stream().filter(h -> !Boolean.TRUE.equals(h.aborted()))
                .toList();
        List<HangingTransactions.Hanging> hanging = open.stream().map(h -> new HangingTransactions.Hanging(
                new TopicPartition(h.topic(), h.partition()), h.producerId(), h.producerEpoch(), h.startOffset(),
                h.why())).toList();
        List<HangingTransactions.Abort> aborts = hanging.isEmpty() ? List.of()
                : HangingTransactions.abort(admin, hanging, timeout, execute);
        List<ResultFile.HangingTransaction> updated = new ArrayList<>();
        List<ResultFile.HangingTransaction> attempted = new ArrayList<>();
        for (ResultFile.HangingTransaction h : recorded) {
            int i = open.indexOf(h);
            if (!execute || i < 0) {
                updated.add(h);
                if (i >= 0) {
                    attempted.add(h);
                }
                continue;
            }
            HangingTransactions.Abort abort = aborts.get(i);
            ResultFile.HangingTransaction tried = new ResultFile.HangingTransaction(h.topic(), h.partition(),
                    h.producerId(), h.producerEpoch(), h.startOffset(), h.why(), h.abortCommand(), abort.aborted(),
                    abort.detail());
            updated.add(tried);
            attempted.add(tried);
        }
        return new Repair(open, aborts, List.copyOf(updated), List.copyOf(attempted));
    }
}
