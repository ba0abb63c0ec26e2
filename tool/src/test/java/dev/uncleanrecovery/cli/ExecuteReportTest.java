// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.execute.ExecutionResult;
import dev.uncleanrecovery.execute.Outcome;
import dev.uncleanrecovery.execute.PartitionOutcome;
import dev.uncleanrecovery.plan.ResultFile;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The result file is written while the outcomes are printed; the outcomes are shown even if it cannot be written. */
class ExecuteReportTest {

    private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);

    @TempDir
    Path dir;

    private static ExecutionResult elected() {
        TopicPartitionState before = new TopicPartitionState("orders", new Uuid(42, 7), 0, TopicPartitionState.NO_LEADER,
                4, List.of(1, 3, 2), List.of(), List.of(), List.of(1), List.of(1));
        TopicPartitionState after = new TopicPartitionState("orders", new Uuid(42, 7), 0, 2, 5, List.of(1, 3, 2),
                List.of(2), List.of(), List.of(), List.of(1));
        return new ExecutionResult("cluster", "plan.json", Instant.parse("2026-11-30T07:00:00Z"), Duration.ofMillis(42),
                "stock elector", List.of(new PartitionOutcome(ORDERS_0, 2, Outcome.ELECTED, "leader 2, leader epoch 4 -> 5",
                        before, after)));
    }

    private static GlobalOptions text() {
        GlobalOptions global = new GlobalOptions();
        global.bootstrapServer = "h:9092";
        global.output = GlobalOptions.OutputFormat.text;
        return global;
    }

    @Test
    void the_result_file_is_on_disk_before_the_tool_says_so() throws IOException {
        Path file = dir.resolve("result.json");
        StringWriter printed = new StringWriter();

        int code = ExecuteCommand.report(elected(), file, text(), new PrintWriter(printed, true));

        assertThat(code).isEqualTo(ExitCode.OK);
        assertThat(printed.toString()).contains("orders-0", "ELECTED", "Result written to " + file.toAbsolutePath());
        assertThat(ResultFile.read(file).partitions()).singleElement()
                .satisfies(p -> assertThat(p.outcome()).isEqualTo("ELECTED"));
    }

    @Test
    void a_result_file_that_cannot_be_written_fails_after_the_outcomes_are_shown() {
        Path file = dir.resolve("no-such-directory").resolve("result.json");
        StringWriter printed = new StringWriter();

        assertThatThrownBy(() -> ExecuteCommand.report(elected(), file, text(), new PrintWriter(printed, true)))
                .isInstanceOf(IOException.class).hasMessageContaining("no-such-directory");
        assertThat(printed.toString()).contains("orders-0", "ELECTED", "1 elected").doesNotContain("Result written to");
    }

    @Test
    void the_summary_names_the_elector_that_the_progress_line_explained() {
        assertThat(ExecuteCommand.electorName("stock elector (controllers do not offer ElectLeaders v3): reorder replicas"
                + " best-first, ElectLeaders UNCLEAN, restore the order, verify")).isEqualTo("stock elector");
        assertThat(ExecuteCommand.electorName("native: ElectLeaders v3 with DesignatedLeaders (UNCLEAN), through broker 2"))
                .isEqualTo("native");
        assertThat(ExecuteCommand.electorName("none (dry run)")).isEqualTo("none");
    }
}
