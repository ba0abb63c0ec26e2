// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.view;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.uncleanrecovery.UserInputException;
import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.execute.ExecutionResult;
import dev.uncleanrecovery.execute.Outcome;
import dev.uncleanrecovery.execute.PartitionOutcome;
import dev.uncleanrecovery.formats.Json;
import dev.uncleanrecovery.formats.Plan;
import dev.uncleanrecovery.formats.ResultFile;
import dev.uncleanrecovery.salvage.DoomedRange;
import dev.uncleanrecovery.salvage.SalvageSource;
import dev.uncleanrecovery.salvage.SalvagedFile;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The result file is written while the outcomes are printed; the outcomes are shown even if it cannot be written. */
class ExecutionReportTest {

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

    /** As execute prints it, with --output json or not, and the page when one is asked for. */
    private static void print(ExecutionResult result, Path file, boolean json, PrintWriter out,
                              ExecutionReport.Page page) throws IOException {
        ExecutionReport.print(result, result.toResultFile("kafka-unclean-recovery test", "h:9092"), null, file, json,
                out, page, ExecutionReport.Written.NONE);
    }

    private static void print(ExecutionResult result, Path file, PrintWriter out) throws IOException {
        print(result, file, false, out, ExecutionReport.Page.NONE);
    }

    @Test
    void the_result_file_is_on_disk_before_the_tool_says_so() throws IOException {
        Path file = dir.resolve("result.json");
        StringWriter printed = new StringWriter();

        print(elected(), file, new PrintWriter(printed, true));

        assertThat(printed.toString()).contains("orders-0", "ELECTED", "Result written to " + file.toAbsolutePath());
        assertThat(ResultFile.read(file).partitions()).singleElement()
                .satisfies(p -> assertThat(p.outcome()).isEqualTo("ELECTED"));
    }

    @Test
    void the_page_shows_the_plan_with_what_the_run_did_and_json_output_stays_json_alone() throws IOException {
        Plan example = PagePlans.example();
        Plan plan = new Plan(example.version(), example.createdAt(), "cluster", example.tool(), example.strategy(),
                example.unansweredBrokers(), example.partitions(), example.skipped(), example.notes());
        Path page = dir.resolve("result.html");
        StringWriter printed = new StringWriter();

        print(elected(), dir.resolve("result.json"), false, new PrintWriter(printed, true),
                new ExecutionReport.Page(page, plan));

        assertThat(printed.toString()).contains("Page written to " + page.toAbsolutePath());
        assertThat(Files.readString(page)).contains("<h1>Recovery result</h1>", "plan.json \u2192 result.json",
                ">ELECTED<", "leader 2, leader epoch 4 -&gt; 5");

        StringWriter jsonPrinted = new StringWriter();
        print(elected(), dir.resolve("result.json"), true, new PrintWriter(jsonPrinted, true),
                new ExecutionReport.Page(dir.resolve("json.html"), plan));

        assertThat(Json.mapper().readTree(jsonPrinted.toString()).get("partitions")).hasSize(1);
        assertThat(Files.readString(dir.resolve("json.html"))).contains("result-2.json");
    }

    @Test
    void the_wait_for_the_new_leaders_is_said_and_recorded() throws IOException {
        Path file = dir.resolve("result.json");
        StringWriter printed = new StringWriter();

        print(elected().withLeadersShown(Duration.ofMillis(420), java.util.List.of()), file,
                new PrintWriter(printed, true));

        assertThat(printed.toString()).contains("Every live broker's metadata showed every new leader 420 ms after"
                + " the controller's answer to the election.");
        assertThat(ResultFile.read(file).leadersShownMs()).isEqualTo(420L);
    }

    @Test
    void a_result_file_that_cannot_be_written_fails_after_the_outcomes_are_shown() {
        Path file = dir.resolve("no-such-directory").resolve("result.json");
        StringWriter printed = new StringWriter();

        assertThatThrownBy(() -> print(elected(), file, new PrintWriter(printed, true)))
                .isInstanceOf(UserInputException.class).hasMessage(file + " cannot be created: directory "
                        + file.getParent() + " does not exist; create it, or name a file in an existing directory");
        assertThat(printed.toString()).contains("orders-0", "ELECTED", "1 elected").doesNotContain("Result written to");
    }

    @Test
    void the_summary_names_the_elector_that_the_progress_line_explained() {
        assertThat(ExecutionReport.electorName("stock elector (controllers do not offer ElectLeaders v3): reorder replicas"
                + " best-first, ElectLeaders UNCLEAN, restore the order, verify")).isEqualTo("stock elector");
        assertThat(ExecutionReport.electorName("native: ElectLeaders v3 with DesignatedLeaders (UNCLEAN), through broker 2"))
                .isEqualTo("native");
        assertThat(ExecutionReport.electorName("none (dry run)")).isEqualTo("none");
    }

    @Test
    void each_salvaged_range_is_one_line_within_120_columns_and_the_file_lists_it() throws IOException {
        Path segment = dir.resolve("plan-salvage").resolve("orders-0").resolve("broker-3").resolve("00000000000000000010.log");
        DoomedRange range = new DoomedRange(new TopicPartition("a-topic-name-of-a-reasonable-length-for-production-use", 11),
                new Uuid(42, 7), 3, 1_234_567_890L, 1_234_600_000L, 7);
        SalvagedFile kept = new SalvagedFile(range, List.of(SalvageSource.FETCH_DEBUG_REPLICA,
                SalvageSource.FETCH_FUTURE_REPLICA), segment, segment.resolveSibling("manifest.json"), 1_234_567_880L,
                1_234_599_999L, 32_110, 321, 12_345_678, "sha", "manifest-sha");
        ExecutionResult result = new ExecutionResult("cluster", "plan.json", Instant.parse("2026-11-30T07:00:00Z"),
                Duration.ofMillis(42), "stock elector", List.of(new PartitionOutcome(range.partition(), 2,
                        Outcome.ELECTED, "leader 2, leader epoch 4 -> 5", null, null)))
                .withSalvage(dir.resolve("plan-salvage").toString(), null, java.util.Map.of(range.partition(), List.of(kept)));
        Path file = dir.resolve("result.json");
        StringWriter printed = new StringWriter();

        print(result, file, new PrintWriter(printed, true));

        List<String> lines = printed.toString().lines().toList();
        assertThat(lines).contains("Salvaged before electing, into " + dir.resolve("plan-salvage") + ":");
        assertThat(lines).filteredOn(l -> l.contains("replica 3 [1234567890..1234600000)")).singleElement()
                .satisfies(l -> {
                    assertThat(l).startsWith("  a-topic-name-of-a-reaso…h-for-production-use-11 replica 3")
                            .endsWith("32110 records, 11.8 MiB *");
                    assertThat(l.length()).isLessThanOrEqualTo(120);
                });
        assertThat(lines).contains("  * read above the replica's high watermark with Fetch ReplicaId -3 (undocumented"
                + " Kafka behaviour)");
        assertThat(ResultFile.read(file).partitions().get(0).salvaged()).singleElement().satisfies(s -> {
            assertThat(s.sources()).containsExactly("FETCH_DEBUG_REPLICA", "FETCH_FUTURE_REPLICA");
            assertThat(s.segment()).isEqualTo(segment.toString());
        });
    }

    @Test
    void a_warnings_command_is_printed_whole_or_with_shell_continuations_and_every_line_fits_120_columns() {
        String bootstrap = "kafka-1.prod.example.com:9093,kafka-2.prod.example.com:9093,kafka-3.prod.example.com:9093";
        String command = "kafka-transactions.sh --bootstrap-server " + bootstrap + " abort --topic orders --partition 0"
                + " --start-offset 1042";
        StringWriter printed = new StringWriter();
        try (PrintWriter out = new PrintWriter(printed)) {
            ExecutionReport.printWarning("Hanging transaction on orders-0 (producer id 7, epoch 0, from offset 1042):"
                    + " its commit marker was cut; read_committed consumers stop at offset 1042. Abort it with: "
                    + command + " (--abort-hanging-transactions did not: the coordinator did not answer)", out);
        }
        List<String> lines = printed.toString().lines().toList();
        assertThat(lines).allSatisfy(line -> assertThat(line.length()).isLessThanOrEqualTo(120));
        assertThat(lines.get(0)).startsWith("WARNING: Hanging transaction on orders-0");
        // the command's lines, pasted, are the command: each but the last ends with a continuation
        List<String> commandLines = lines.stream().dropWhile(l -> !l.trim().startsWith("kafka-transactions.sh"))
                .takeWhile(l -> !l.trim().startsWith("(")).toList();
        assertThat(commandLines).hasSizeGreaterThan(1);
        commandLines.subList(0, commandLines.size() - 1).forEach(l -> assertThat(l).endsWith(" \\"));
        assertThat(String.join(" ", commandLines.stream().map(l -> l.replaceAll(" \\\\$", "").trim()).toList()))
                .isEqualTo(command);
        assertThat(lines.get(lines.size() - 1).trim()).isEqualTo("(--abort-hanging-transactions did not: the"
                + " coordinator did not answer)");
    }

    @Test
    void a_short_command_stays_on_one_line() {
        StringWriter printed = new StringWriter();
        try (PrintWriter out = new PrintWriter(printed)) {
            Table.printCommand(out, "kafka-unclean-recovery.sh --bootstrap-server h:9092 execute --plan p.json", 2);
        }
        assertThat(printed.toString().lines().toList())
                .containsExactly("  kafka-unclean-recovery.sh --bootstrap-server h:9092 execute --plan p.json");
    }
}
