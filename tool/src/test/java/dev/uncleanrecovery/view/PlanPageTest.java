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
            "text", "path", "g");

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

    @Test
    void alike_partitions_of_a_5000_partition_plan_share_a_section_and_every_partition_is_named() {
        Plan plan = PagePlans.large(5_000, 3);

        String page = PlanPage.render(plan, "plan.json", null, null);

        assertThat(PagePlans.occurrences(page, "<svg class=\"logs\"")).isEqualTo(3);
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

        assertThat(PagePlans.occurrences(page, "<svg class=\"logs\"")).isEqualTo(PlanPage.GROUPS_DRAWN);
        // bench-i's older replica loses 200 + 10 i records: the last hundred lose the most and are drawn
        assertThat(page).contains("4900 more groups, not drawn", "<h3>bench-4999", "<h3>bench-4900<", "<td>bench-0</td>",
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
