// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import dev.uncleanrecovery.cluster.ClusterDiscovery;
import dev.uncleanrecovery.cluster.HangingTransactions;
import dev.uncleanrecovery.formats.Json;
import dev.uncleanrecovery.formats.ResultFile;
import dev.uncleanrecovery.recovery.HangingTransactionRepair;
import dev.uncleanrecovery.view.PartitionRows;
import dev.uncleanrecovery.view.Table;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.kafka.common.TopicPartition;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

@Command(name = "hanging-transactions", mixinStandardHelpOptions = true, sortOptions = false,
        header = "Abort the hanging transactions a run's result file records (dry run unless --execute).",
        description = {"For each hanging transaction the run of --result-file found on a partition it elected and did "
                + "not abort (execute --abort-hanging-transactions aborts them at once): if it is still open on its "
                + "partition as found (same start offset, producer id and epoch: the checks kafka-transactions.sh "
                + "abort makes), write its abort marker, so read_committed consumers read on. One that closed "
                + "meanwhile or changed hands is left alone and said why.",
            "Dry run unless --execute: shows which are still open. With --execute the result is written again with "
                + "the aborts, under the next free name (<result>-2.json, ...). Needs ALTER on the cluster.",
            "--execute needs --reason and appends to the audit log, as consumer-offsets --execute does."},
        exitCodeListHeading = ExitCode.HELP_HEADING,
        exitCodeList = {"0:done or shown", ExitCode.FAILURE_HELP, ExitCode.USAGE_HELP,
            "3:a transaction could not be aborted", ExitCode.UNREACHABLE_HELP})
public class HangingTransactionsCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @ParentCommand
    RootCommand root;

    @Mixin
    ResultFileOption resultFile;

    @Option(names = "--execute", description = "Abort them; without it nothing is changed.")
    boolean execute;

    @Mixin
    AuditOptions audit;

    @Mixin
    ConnectionOptions connection;

    @Override
    public Integer call() throws Exception {
        if (execute) {
            audit.requireReason(spec);
        }
        ResultFile result = ResultFile.read(resultFile.path);
        return audit.run(spec, root.global, execute, resultFile.path, line -> line
                .withFiles(result.salvageDir(), null, List.of(resultFile.path.toAbsolutePath().toString())),
                trail -> run(result, trail));
    }

    /** @param trail the audit of a run that aborts; null for a dry run */
    private int run(ResultFile result, AuditTrail trail) throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        try (ClusterDiscovery discovery = connection.discovery(root.global)) {
            resultFile.requireClusterOf(result, discovery);
            HangingTransactionRepair.Repair repair = HangingTransactionRepair.run(discovery.admin(),
                    discovery.requestTimeout(), result, execute);
            ResultFile withAborts = result.withHangingTransactions(repair.transactions());
            Path written = execute && !repair.open().isEmpty() ? ResultFile.write(resultFile.path, withAborts) : null;
            if (trail != null) {
                trail.aborts(repair.attempted());
                if (written != null) {
                    trail.files(null, written, null);
                }
            }
            if (root.global.output == GlobalOptions.OutputFormat.json) {
                out.println(Json.mapper().writeValueAsString(withAborts));
            } else {
                print(repair, out);
                if (written != null) {
                    out.println("Result written to " + written);
                }
            }
            return execute && repair.notAborted() > 0 ? ExitCode.ATTENTION : ExitCode.OK;
        }
    }

    private void print(HangingTransactionRepair.Repair repair, PrintWriter out) {
        if (repair.open().isEmpty()) {
            out.println("Hanging transactions not aborted in " + resultFile.path + ": none.");
            return;
        }
        Table table = new Table("PARTITION", "PRODUCER ID", "EPOCH", "START OFFSET", "OUTCOME");
        for (int i = 0; i < repair.open().size(); i++) {
            ResultFile.HangingTransaction h = repair.open().get(i);
            HangingTransactions.Abort abort = repair.aborts().get(i);
            boolean stillOpen = abort.stillOpen();
            table.row(PartitionRows.label(List.of(new TopicPartition(h.topic(), h.partition()))), h.producerId(),
                    h.producerEpoch(), h.startOffset(), abort.aborted() ? "ABORTED" : stillOpen ? "WOULD ABORT"
                            : "NOT ABORTED");
            if (!abort.aborted() && !stillOpen) {
                table.note(abort.detail());
            }
        }
        table.print(out);
        if (execute) {
            out.printf("%d hanging transaction(s) aborted, %d not.%n", repair.aborted(), repair.notAborted());
        } else {
            out.printf("Dry run: %d still open as found would be aborted. Nothing was changed.%n",
                    repair.aborts().stream().filter(HangingTransactions.Abort::stillOpen).count());
        }
    }
}
