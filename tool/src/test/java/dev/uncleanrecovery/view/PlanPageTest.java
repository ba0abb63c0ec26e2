// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.view;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.uncleanrecovery.UserInputException;
import dev.uncleanrecovery.formats.Plan;
import dev.uncleanrecovery.formats.ResultFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The page as a file: self-contained, the user's strings escaped, a reasonable size for any plan. */
class PlanPageTest {

    @TempDir
    Path dir;

    @Test
    void the_page_refers_to_nothing_outside_itself() throws Exception {
        Plan plan = PagePlans.severalGroups();
        for (String page : new String[] {PlanPage.render(PagePlans.example(), "plan.json", null, null),
                PlanPage.render(plan, "plan.json", PagePlans.resultOf(plan), "plan-result.json")}) {
            String lower = page.toLowerCase(java.util.Locale.ROOT);
            assertThat(lower).doesNotContain("http:", "https:", "//", "@import", "data:");
            assertAll(Pattern.compile("url\\(([^)]*)\\)").matcher(lower), "#");
            // every element is one of these, and none has an attribute that loads anything
            Matcher tags = Pattern.compile("<([a-z][a-z0-9]*)([^>]*)>").matcher(lower);
            while (tags.find()) {
                assertThat(tags.group(1)).isIn(ELEMENTS);
                assertThat(tags.group(2)).as(tags.group()).doesNotContain("src=", "href=", "action=", "style=", " on");
            }
        }
    }

    private static final java.util.Set<String> ELEMENTS = java.util.Set.of("html", "head", "meta", "title", "style",
            "body", "main", "header", "footer", "section", "h1", "h2", "h3", "h4", "p", "b", "code", "div", "span",
            "table", "thead", "tbody", "tr", "th", "td", "details", "summary", "svg", "defs", "pattern", "rect", "line",
            "text", "tspan", "path", "g");

    private static void assertAll(Matcher references, String prefix) {
        while (references.find()) {
            assertThat(references.group(1)).as(references.group()).startsWith(prefix);
        }
    }

    @Test
    void every_string_from_the_plan_is_escaped() {
        Plan plan = PagePlans.severalGroups();

        String page = PlanPage.render(plan, "<plan>.json", null, null);

        assertThat(page).contains("&lt;img src=x onerror=alert(1)&gt;&amp;&quot;billing&quot;", "&lt;plan&gt;.json")
                .doesNotContain(PagePlans.HOSTILE_GROUP);
    }

    /** The page's words as a reader sees them: markup gone, entities read, runs of spaces one. */
    private static String words(String page) {
        return page.replaceAll("(?s)<style>.*?</style>", " ").replaceAll("<[^>]*>", " ").replace("&lt;", "<")
                .replace("&gt;", ">").replace("&quot;", "\"").replace("&#39;", "'").replace("&amp;", "&")
                .replaceAll("\\s+", " ");
    }

    @Test
    void the_commands_that_approve_and_apply_the_plan_are_whole() {
        String page = words(PlanPage.render(PagePlans.severalGroups(), "plan.json", null, null));

        // as the plan was made: its bootstrap server, and the --reason every change needs
        assertThat(page).contains("kafka-unclean-recovery.sh --bootstrap-server 10.0.0.2:9092 execute --plan plan.json"
                        + " --reason \"WHY: the incident ticket\"",
                "kafka-unclean-recovery.sh plan approve --plan plan.json --by NAME --ssh-key KEY",
                "kafka-unclean-recovery.sh --bootstrap-server 10.0.0.2:9092 execute --plan plan.json --require-approval"
                        + " --allowed-signers FILE --reason \"WHY: the incident ticket\"");
    }

    @Test
    void each_replica_says_its_last_written_epoch_and_what_the_controller_recorded_of_it() {
        String page = words(PlanPage.render(PagePlans.severalGroups(), "plan.json", null, null));

        assertThat(page).contains("\u2605 broker 2 designated leader last written epoch 3 not in ISR or ELR",
                // orders' last leader, fenced: KIP-966 keeps it as the only LastKnownELR member
                "broker 1 UNREACHABLE LastKnownELR \u00b7 last leader")
                .doesNotContain("designated, epoch");
    }

    @Test
    void a_fenced_broker_that_did_not_answer_is_told_what_to_do_before_it_restarts() {
        String page = words(PlanPage.render(PagePlans.severalGroups(), "plan.json", null, null));

        String next = "run 'kafka-unclean-recovery.sh inspect --log-dir <its log.dirs> --salvage-beyond plan.json'"
                + " on its host before restarting it";
        // under the unanswered broker, and beside its replica in the drawings, both layouts
        assertThat(page).contains("UNANSWERED broker 1", "Next : " + next);
        assertThat(PagePlans.occurrences(page, next)).isGreaterThanOrEqualTo(3);
    }

    @Test
    void the_cards_and_the_sections_count_consumer_groups_alike() {
        String html = PlanPage.render(PagePlans.severalGroups(), "plan.json", null, null);
        String page = words(html);

        // billing read orders-0..3, fraud-detector and one more audit.log-2: three groups, six committed offsets
        assertThat(page).contains("3 consumer groups read past new ends, 6 offsets",
                "Consumer groups that read records this election destroys: 1 consumer group (4 committed offsets)",
                "Consumer groups that read records this election destroys: 2 consumer groups");
        // each section's heading counts the groups its table names
        Matcher section = Pattern.compile("destroys: (\\d+) consumer groups?.*?<tbody>(.*?)</tbody>").matcher(html);
        int sections = 0;
        while (section.find()) {
            sections++;
            java.util.Set<String> named = new java.util.HashSet<>();
            Matcher row = Pattern.compile("<tr><td>(.*?)</td>").matcher(section.group(2));
            while (row.find()) {
                named.add(row.group(1));
            }
            assertThat(named).hasSize(Integer.parseInt(section.group(1)));
        }
        assertThat(sections).isEqualTo(2);
    }

    @Test
    void the_legend_names_every_mark_the_drawings_hold() {
        Plan plan = PagePlans.severalGroups();
        for (String html : new String[] {PlanPage.render(plan, "plan.json", null, null),
                PlanPage.render(plan, "plan.json", PagePlans.resultOf(plan), "result.json")}) {
            String legend = html.substring(html.indexOf("<div class=\"legend\">"));
            legend = legend.substring(0, legend.indexOf("</div>"));
            java.util.Set<String> drawn = new java.util.TreeSet<>();
            Matcher marks = Pattern.compile("<(?:rect|line|path) class=\"([a-z-]+)\"").matcher(
                    html.substring(html.indexOf("<svg class=\"logs")));
            while (marks.find()) {
                drawn.add(marks.group(1));
            }
            drawn.remove("grid");
            assertThat(drawn).contains("groups-read", "hw", "new-end", "cut-start", "not-measured");
            for (String mark : drawn) {
                assertThat(legend).as("the legend's swatch of " + mark).contains("class=\"" + mark + "\"");
            }
        }
        assertThat(words(PlanPage.render(plan, "plan.json", null, null))).contains(
                "consumer groups read to here, past the new log end",
                "execute copies it to the salvage before electing");
        assertThat(words(PlanPage.render(plan, "plan.json", PagePlans.resultOf(plan), "r.json")))
                .contains("copied to the salvage before electing", "the cut the brokers answered after the election");
    }

    @Test
    void a_log_nobody_measured_is_not_drawn_to_a_length() throws Exception {
        String html = PlanPage.render(PagePlans.severalGroups(), "plan.json", null, null);

        // broker 1 did not answer: a fixed mark at offset 0 and the words, no bar along the axis
        Matcher replica = Pattern.compile("<g class=\"replica\">(<text class=\"broker\"[^>]*>broker 1<.*?)</g>")
                .matcher(html);
        int rows = 0;
        while (replica.find()) {
            rows++;
            Matcher rects = Pattern.compile("<rect class=\"([a-z-]+)\"[^>]* width=\"([0-9.]+)\"")
                    .matcher(replica.group(1));
            assertThat(rects.find()).isTrue();
            assertThat(rects.group(1)).isEqualTo("not-measured");
            assertThat(Double.parseDouble(rects.group(2))).isEqualTo(20.0);
            assertThat(rects.find()).as("no other bar").isFalse();
            assertThat(replica.group(1)).contains("log not measured (UNREACHABLE)");
        }
        assertThat(rows).as("in the wide and the narrow drawing").isEqualTo(2);
    }

    @Test
    void alike_partitions_of_a_5000_partition_plan_share_a_section_and_every_partition_is_named() {
        Plan plan = PagePlans.large(5_000, 3);

        String page = PlanPage.render(plan, "plan.json", null, null);

        assertThat(PagePlans.occurrences(page, "<svg class=\"logs wide\"")).isEqualTo(3);
        java.util.Set<String> named = new java.util.HashSet<>();
        Matcher lists = Pattern.compile("<p class=\"partitions\">([^<]*)</p>").matcher(page);
        while (lists.find()) {
            named.addAll(java.util.List.of(lists.group(1).split(" ")));
        }
        assertThat(named).containsAll(IntStream.range(0, 5_000).mapToObj(i -> "bench-" + i).toList());
        // 72 KB when written, most of it the 5,000 names
        assertThat(page.getBytes(StandardCharsets.UTF_8).length).isLessThan(150_000);
    }

    @Test
    void a_5000_partition_plan_with_no_two_alike_draws_the_groups_that_lose_most_and_lists_the_rest() {
        Plan plan = PagePlans.large(5_000, 5_000);

        String page = PlanPage.render(plan, "plan.json", null, null);

        assertThat(PagePlans.occurrences(page, "<svg class=\"logs wide\"")).isEqualTo(PlanPage.GROUPS_DRAWN);
        // bench-i's older replica loses 200 + 10 i records: the last hundred lose the most and are drawn
        assertThat(page).contains("4900 more groups, not drawn", "<h3>bench-4999", "<h3>bench-4900<",
                "<td>bench-0</td>",
                "<td>bench-4899</td>").doesNotContain("<h3>bench-4899<");
        // 1.2 MB when written, most of it the 4,900 rows
        assertThat(page.getBytes(StandardCharsets.UTF_8).length).isLessThan(2_000_000);
    }

    @Test
    void a_result_of_another_cluster_is_refused() {
        Plan plan = PagePlans.severalGroups();
        ResultFile result = PagePlans.resultOf(plan);
        ResultFile foreign = new ResultFile(result.version(), "another-cluster", result.planFile(), result.tool(),
                result.startedAt(), result.elapsedMs(), result.elector(), result.summary(), result.partitions(),
                result.warnings(), result.hangingTransactions(), result.salvageDir(), result.salvage(),
                result.leadersShownMs());

        assertThatThrownBy(() -> PlanPage.render(plan, "plan.json", foreign, "result.json"))
                .isInstanceOf(UserInputException.class).hasMessageContaining("of cluster another-cluster");
    }
}
