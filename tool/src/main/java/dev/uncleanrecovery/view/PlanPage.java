// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.view;

import dev.uncleanrecovery.UserInputException;
import dev.uncleanrecovery.election.TruncationEstimate;
import dev.uncleanrecovery.formats.Plan;
import dev.uncleanrecovery.formats.PlanAlternative;
import dev.uncleanrecovery.formats.PlanConsumerGroup;
import dev.uncleanrecovery.formats.PlanEvidence;
import dev.uncleanrecovery.formats.PlanTruncation;
import dev.uncleanrecovery.formats.PlanUnansweredBroker;
import dev.uncleanrecovery.formats.PlannedElection;
import dev.uncleanrecovery.formats.ResultFile;
import dev.uncleanrecovery.support.DurableFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;

/**
 * The plan, and after {@code execute} its result, as one self-contained HTML page for a reviewer's browser
 * ({@link PlanView} as HTML): inline CSS and SVG, no script, no reference to anything outside the file (incident
 * networks are closed). Partitions that look alike share one section, as they share a row of the table; each section
 * draws its first partition's replicas ({@link LogDrawing}), in a wide and a narrow layout of which the window shows
 * the one that fits, and names every partition it stands for. A pure function of the plan and result: every string
 * from them (topic names, groups, reasons) is escaped.
 */
public final class PlanPage {

    /** Sections drawn at most; the groups after them are rows of one table, so that any plan stays a page. */
    static final int GROUPS_DRAWN = 100;
    /** Consumer groups listed per section; the plan file has them all. */
    private static final int GROUPS_LISTED = 25;

    /** What is being written: a section, then the page. */
    private StringBuilder html = new StringBuilder();
    private final PlanView view;
    private final Plan plan;
    private final ResultFile result;
    private final String planName;
    private final Map<Integer, PlanUnansweredBroker> unanswered;
    /** Every mark the drawings hold, for the legend. */
    private final Set<LogDrawing.Mark> marks = LogDrawing.noMarks();

    private PlanPage(PlanView view, String planName) {
        this.view = view;
        this.plan = view.plan();
        this.result = view.result();
        this.planName = planName;
        this.unanswered = plan.unansweredBrokers().stream()
                .collect(Collectors.toMap(PlanUnansweredBroker::broker, Function.identity()));
    }

    /**
     * @param planName   how the page names the plan (its file name)
     * @param result     what {@code execute} did with the plan, or null for the plan alone
     * @param resultName how the page names the result file, when there is one
     * @throws UserInputException when the result is not of this plan (another cluster, or partitions it does not hold)
     */
    static String render(Plan plan, String planName, ResultFile result, String resultName) {
        return new PlanPage(PlanView.of(plan, planName, result, resultName), planName).page(resultName);
    }

    /** Renders and writes the page, a new file as every file the tool writes ({@link DurableFiles#writeNew}). */
    public static void write(Path file, Plan plan, String planName, ResultFile result, String resultName)
            throws IOException {
        byte[] page = render(plan, planName, result, resultName).getBytes(StandardCharsets.UTF_8);
        DurableFiles.writeNew(file, out -> out.write(page));
    }

    private String page(String resultName) {
        List<PartitionRows.Group> groups = view.elections();
        String title = (result == null ? "Recovery plan" : "Recovery result") + ": " + plan.partitions().size()
                + " partition(s) to elect, cluster " + plan.clusterId();
        // the sections first: the legend above them names the marks they hold
        Set<PartitionRows.Group> drawn = drawn(groups);
        int number = 0;
        for (PartitionRows.Group g : groups) {
            if (drawn.contains(g)) {
                election(++number, g);
            }
        }
        String sections = html.toString();
        html = new StringBuilder(64 * 1024 + sections.length());
        html.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
                .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
                .append("<title>").append(Html.text(title)).append("</title><style>").append(STYLE).append("</style></head>\n")
                .append("<body>").append(PATTERNS).append("<main>");
        header(resultName);
        warnings();
        if (result != null) {
            resultSection();
        }
        html.append("<h2>Partitions to elect: ").append(plan.partitions().isEmpty() ? "none" : plan.partitions().size())
                .append(groups.size() < plan.partitions().size() ? " in " + groups.size() + " groups of alike partitions"
                        : "").append("</h2>\n");
        legend();
        if (drawn.size() < groups.size()) {
            html.append("<p class=\"meta\">Drawn: the ").append(GROUPS_DRAWN).append(" groups that lose the most (unknown")
                    .append(" loss, then committed, then unknown commitment, then records), in the plan's order; the other ")
                    .append(groups.size() - drawn.size()).append(" are rows of the table below them.</p>");
        }
        html.append(sections);
        if (drawn.size() < groups.size()) {
            undrawn(groups.stream().filter(g -> !drawn.contains(g)).toList());
        }
        skipped();
        html.append("<footer>From ").append(Html.text(planName))
                .append(result == null ? "" : " and " + Html.text(resultName))
                .append(". The plan file is what execute reads; this page only shows it.</footer>")
                .append("</main></body></html>\n");
        return html.toString();
    }

    /** Every group when they are few; else the {@link #GROUPS_DRAWN} whose first partition loses the most. */
    private Set<PartitionRows.Group> drawn(List<PartitionRows.Group> groups) {
        Comparator<PartitionRows.Group> worstFirst = Comparator.comparing(
                (PartitionRows.Group g) -> PlanView.Loss.of(view.first(g))).reversed();
        return groups.stream().sorted(worstFirst).limit(GROUPS_DRAWN).collect(Collectors.toCollection(HashSet::new));
    }

    private void header(String resultName) {
        html.append("<header><h1>").append(result == null ? "Recovery plan" : "Recovery result").append("</h1>")
                .append("<p class=\"meta\">").append(Html.text(planName)).append(result == null ? "" : " \u2192 "
                        + Html.text(resultName)).append(" \u00b7 cluster <code>").append(Html.text(plan.clusterId()))
                .append("</code> \u00b7 planned ").append(plan.createdAt()).append(" \u00b7 strategy ")
                .append(Html.text(plan.strategy().spelling())).append(" \u00b7 ").append(Html.text(plan.tool())).append("</p>");
        PlanView.Totals t = view.totals();
        html.append("<div class=\"cards\">");
        card("to elect", t.toElect(), t.groups() < t.toElect() ? "in " + t.groups() + " groups" : "partitions", "");
        card("skipped", t.skipped(), "partitions", t.skipped() > 0 ? "warn" : "");
        card("records cut", t.recordsCut(), "on other replicas", t.recordsCut() > 0 ? "warn" : "");
        card("committed cut", t.committedCut(), "at least", t.committedCut() > 0 ? "bad" : "");
        card("unknown commitment", t.unknownCommitment(), "records", t.unknownCommitment() > 0 ? "warn" : "");
        card("loss unknown", t.lossUnknown(), "replicas", t.lossUnknown() > 0 ? "bad" : "");
        card("consumer groups", t.consumerGroups(), t.groupOffsets() == t.consumerGroups() ? "read past new ends"
                : "read past new ends, " + t.groupOffsets() + " offsets", t.consumerGroups() > 0 ? "warn" : "");
        html.append("</div>");
        if (result == null && !plan.partitions().isEmpty()) {
            html.append("<p class=\"next\">Nothing has been changed. After review, apply it with:</p>");
            command(PlanView.applyCommand(plan, planName));
            html.append("<p class=\"next\">Where <code>execute --require-approval</code> is the rule, approve it")
                    .append(" first, then apply it with <code>--require-approval</code>:</p>");
            command(PlanView.approveCommand(planName));
            command(PlanView.applyApprovedCommand(plan, planName, true));
        }
        html.append("</header>\n");
    }

    /** A command to paste, whole; a narrow window wraps it between words, never inside one ("--ssh-" / "key"). */
    private void command(String command) {
        html.append("<p class=\"command\"><code>");
        String[] words = command.split(" ");
        for (int i = 0; i < words.length; i++) {
            html.append(i == 0 ? "" : " ").append("<span>").append(Html.text(words[i])).append("</span>");
        }
        html.append("</code></p>");
    }

    private void card(String name, long value, String unit, String tone) {
        html.append("<div class=\"card ").append(tone).append("\"><div class=\"value\">")
                .append(String.format(Locale.ROOT, "%,d", value)).append("</div><div class=\"name\">")
                .append(name).append("</div><div class=\"unit\">").append(unit).append("</div></div>");
    }

    private void warnings() {
        if (plan.notes().isEmpty() && plan.unansweredBrokers().isEmpty()) {
            return;
        }
        html.append("<section class=\"notes\">");
        for (String note : plan.notes()) {
            html.append("<p><b>NOTE</b> ").append(Html.text(note)).append("</p>");
        }
        for (PlanUnansweredBroker b : plan.unansweredBrokers()) {
            html.append("<p><b>UNANSWERED broker ").append(b.broker()).append("</b>")
                    .append(b.address() == null ? "" : " (" + Html.text(b.address()) + ")").append(", ")
                    .append(b.replicasUnknown()).append(" of ").append(b.replicas()).append(" replica(s) unknown: ")
                    .append(Html.text(b.reason())).append("</p>");
            String next = PlanView.nextStep(b, planName);
            if (next != null) {
                html.append("<p class=\"step\"><b>Next</b>: ").append(Html.text(next)).append("</p>");
            }
        }
        html.append("</section>\n");
    }

    /** What execute did: the summary, the warnings, the outcomes grouped as execute prints them, hanging transactions. */
    private void resultSection() {
        ResultFile.Summary s = result.summary();
        html.append("<section class=\"result\"><h2>What execute did</h2><p class=\"meta\">started ")
                .append(result.startedAt()).append(", ").append(result.elapsedMs()).append(" ms, ")
                .append(Html.text(result.elector())).append("</p><div class=\"cards\">");
        card("elected", s.elected(), "partitions", "");
        card("already recovered", s.alreadyRecovered(), "partitions", "");
        card("refused", s.refused(), "partitions", s.refused() > 0 ? "warn" : "");
        card("elected another", s.electedOther(), "partitions", s.electedOther() > 0 ? "bad" : "");
        card("failed", s.failed(), "partitions", s.failed() > 0 ? "bad" : "");
        if (s.wouldElect() > 0) {
            card("would elect", s.wouldElect(), "dry run", "");
        }
        html.append("</div>");
        if (!result.warnings().isEmpty()) {
            html.append("<section class=\"notes\">");
            result.warnings().forEach(w -> html.append("<p><b>WARNING</b> ").append(Html.text(w)).append("</p>"));
            html.append("</section>");
        }
        if (result.salvage() != null || result.salvageDir() != null) {
            html.append("<p>Salvage: ").append(Html.text(result.salvageDir() == null ? "" : result.salvageDir()))
                    .append(result.salvage() == null ? "" : " \u2014 " + Html.text(result.salvage())).append("</p>");
        }
        PartitionRows rows = new PartitionRows();
        result.partitions().forEach(p -> rows.add(new TopicPartition(p.topic(), p.partition()), null,
                p.designatedLeader(), p.outcome(), p.detail()));
        html.append("<table><thead><tr><th>partition</th><th>designated</th><th>outcome</th><th>detail</th></tr></thead>")
                .append("<tbody>");
        for (PartitionRows.Group g : rows.groups()) {
            html.append("<tr><td>").append(partitions(g)).append("</td><td>").append(Html.text(g.cells().get(0)))
                    .append("</td><td><span class=\"outcome ").append(Html.text(g.cells().get(1))).append("\">")
                    .append(Html.text(g.cells().get(1))).append("</span></td><td>").append(Html.text(g.cells().get(2)))
                    .append("</td></tr>");
        }
        html.append("</tbody></table>");
        if (result.hangingTransactions() != null && !result.hangingTransactions().isEmpty()) {
            html.append("<h3>Hanging transactions</h3><table><thead><tr><th>partition</th><th>producer id</th>")
                    .append("<th>from offset</th><th>abort with</th></tr></thead><tbody>");
            for (ResultFile.HangingTransaction h : result.hangingTransactions()) {
                html.append("<tr><td>").append(Html.text(h.topic() + "-" + h.partition())).append("</td><td>")
                        .append(h.producerId()).append("</td><td>").append(h.startOffset()).append("</td><td><code>")
                        .append(Html.text(h.abortCommand())).append("</code></td></tr>");
            }
            html.append("</tbody></table>");
        }
        html.append("</section>\n");
    }

    /** Every mark the drawings hold, named; and what the words beside each replica mean. */
    private void legend() {
        if (marks.isEmpty()) {
            return;
        }
        html.append("<div class=\"legend\">");
        for (LogDrawing.Mark mark : marks) {
            html.append("<span>").append(swatch(mark)).append(Html.text(mark.words)).append("</span>");
        }
        html.append("</div>\n<p class=\"meta\">Beside each replica: its last written leader epoch (the epoch of the")
                .append(" last batch in its log)");
        if (plan.partitions().stream().anyMatch(p -> p.expected().recordsMembership())) {
            html.append(" and, as the controller recorded them when the plan was made, whether it was in the ISR, the")
                    .append(" ELR (it held every committed record when the ISR shrank) or LastKnownELR (it did, then")
                    .append(" stopped uncleanly; or it is the last known leader), and whether it was the last leader");
        }
        html.append(".</p>\n");
    }

    /** The mark as the drawings draw it, small. */
    private static String swatch(LogDrawing.Mark mark) {
        String svg = "<svg class=\"swatch\" width=\"22\" height=\"18\" aria-hidden=\"true\">";
        return svg + switch (mark) {
            case HIGH_WATERMARK -> "<line class=\"hw\" x1=\"11\" y1=\"1\" x2=\"11\" y2=\"17\"/>";
            case NEW_LOG_END -> "<line class=\"new-end\" x1=\"11\" y1=\"0\" x2=\"11\" y2=\"18\"/>";
            case CUT_START -> "<line class=\"cut-start\" x1=\"11\" y1=\"0\" x2=\"11\" y2=\"18\"/>";
            case TO_SALVAGE, SALVAGED -> "<rect class=\"" + mark.css + "\" x=\"1\" y=\"8\" width=\"20\" height=\"3\"/>";
            case MEASURED -> "<path class=\"measured\" d=\"M11 5 l-5 8 h10 z\"/>";
            case GROUPS_READ -> "<line class=\"groups-read\" x1=\"1\" y1=\"9\" x2=\"21\" y2=\"9\"/>";
            case NOT_MEASURED -> "<rect class=\"not-measured\" x=\"3\" y=\"1\" width=\"16\" height=\"16\"/>"
                    + "<text class=\"not-measured-mark\" x=\"11\" y=\"13\">?</text>";
            default -> "<rect class=\"" + mark.css + "\" x=\"1\" y=\"3\" width=\"20\" height=\"12\"/>";
        } + "</svg>";
    }

    private void election(int number, PartitionRows.Group group) {
        PlannedElection p = view.first(group);
        html.append("<section class=\"election\" id=\"group-").append(number).append("\"><h3>")
                .append(Html.text(group.label())).append(p.tieredStorage() ? " <span class=\"badge\">tiered storage</span>"
                        : "").append(outcomeBadges(group)).append("</h3>");
        html.append("<p class=\"meta\">designated leader <b>").append(p.designatedLeader()).append("</b> \u00b7 leader")
                .append(" epoch ").append(p.expected().leaderEpoch()).append(" \u2192 ").append(p.expected().leaderEpoch() + 1)
                .append(" \u00b7 replicas ").append(p.expected().replicas()).append(group.partitions().size() > 1
                        ? " \u00b7 drawn: " + Html.text(p.topicPartition().toString()) + ", the " + group.partitions().size()
                                + " partitions of this group look alike in the table" : "")
                .append("</p>");
        ResultFile.Partition outcome = view.outcome(p.topicPartition());
        for (LogDrawing.Layout layout : LogDrawing.Layout.values()) {
            html.append(LogDrawing.draw(p, outcome, unanswered, planName, layout, marks));
        }
        html.append("<p class=\"reason\">").append(Html.text(group.note())).append("</p>");
        consumerGroups(group);
        alternatives(p);
        if (group.partitions().size() > 1) {
            html.append("<details><summary>All ").append(group.partitions().size()).append(" partitions</summary>")
                    .append("<p class=\"partitions\">").append(names(group.partitions())).append("</p></details>");
        }
        html.append("</section>\n");
    }

    /** "ELECTED ×40": how execute ended for the partitions of the group. */
    private String outcomeBadges(PartitionRows.Group group) {
        if (result == null) {
            return "";
        }
        Map<String, Long> counts = new TreeMap<>(group.partitions().stream().map(view::outcome)
                .collect(Collectors.groupingBy(o -> o == null ? "NOT IN THE RESULT" : o.outcome(), Collectors.counting())));
        StringBuilder badges = new StringBuilder();
        counts.forEach((outcome, n) -> badges.append(" <span class=\"outcome ").append(Html.text(outcome)).append("\">")
                .append(Html.text(outcome)).append(group.partitions().size() > 1 ? " \u00d7" + n : "").append("</span>"));
        return badges.toString();
    }

    private void consumerGroups(PartitionRows.Group group) {
        List<PlannedElection> withGroups = group.partitions().stream().map(view::election)
                .filter(e -> !e.consumerGroupsAhead().isEmpty()).toList();
        if (withGroups.isEmpty()) {
            return;
        }
        long offsets = PlanView.groupOffsets(withGroups);
        html.append("<h4>Consumer groups that read records this election destroys: ")
                .append(Html.text(PlanView.consumerGroupCount(PlanView.consumerGroups(withGroups), offsets))).append("</h4>")
                .append("<table><thead><tr><th>group</th><th>partition</th><th>committed offset</th>")
                .append("<th>new log end</th><th>read and lost</th></tr></thead><tbody>");
        int listed = 0;
        for (PlannedElection e : withGroups) {
            for (PlanConsumerGroup g : e.consumerGroupsAhead()) {
                if (listed++ == GROUPS_LISTED) {
                    break;
                }
                html.append("<tr><td>").append(Html.text(g.group())).append("</td><td>")
                        .append(Html.text(e.topicPartition().toString())).append("</td><td>").append(g.committedOffset())
                        .append("</td><td>").append(g.newLogEnd()).append("</td><td>").append(g.offsetsReadAndLost())
                        .append("</td></tr>");
            }
        }
        html.append("</tbody></table>");
        if (offsets > GROUPS_LISTED) {
            html.append("<p class=\"meta\">").append(offsets - GROUPS_LISTED).append(" more in the plan file.</p>");
        }
    }

    /** What electing each other candidate instead would cut, so the reviewer sees the cost of editing the plan. */
    private void alternatives(PlannedElection p) {
        if (p.alternatives().isEmpty()) {
            return;
        }
        Map<Integer, PlanEvidence> evidence = PlanView.oneEach(p.evidence()).stream()
                .collect(Collectors.toMap(PlanEvidence::broker, e -> e));
        html.append("<h4>Alternatives: what designating another replica would cut</h4><table><thead><tr>")
                .append("<th>designate</th><th>its log</th><th>cuts</th><th>committed cut</th></tr></thead><tbody>");
        html.append("<tr class=\"chosen\"><td>").append(p.designatedLeader()).append(" (the plan's)</td><td>")
                .append(Html.text(PlanView.log(evidence.get(p.designatedLeader())))).append("</td>")
                .append(cost(p.truncationsUnder(p.designatedLeader()).orElse(List.of()))).append("</tr>");
        for (PlanAlternative a : p.alternatives()) {
            html.append("<tr><td>").append(a.broker()).append("</td><td>")
                    .append(Html.text(PlanView.log(evidence.get(a.broker())))).append("</td>")
                    .append(cost(a.expectedTruncation())).append("</tr>");
        }
        html.append("</tbody></table>");
    }

    private static String cost(List<PlanTruncation> truncations) {
        String each = truncations.isEmpty() ? "nothing" : truncations.stream().map(PlanView::truncation)
                .collect(Collectors.joining(PlanView.ENTRIES));
        // a lower bound, or no high watermark to split by: more may be committed than counted
        boolean unknown = truncations.stream().anyMatch(t -> t.estimate() != TruncationEstimate.EXACT
                || t.committedRecords() == null);
        long committed = truncations.stream().mapToLong(t -> t.committedRecords() == null ? 0 : t.committedRecords()).sum();
        return "<td>" + Html.text(each) + "</td><td class=\"" + (committed > 0 ? "bad" : "") + "\">" + committed
                + (unknown ? " + unknown" : "") + "</td>";
    }

    /** The groups past {@link #GROUPS_DRAWN}, as the table prints them, each partition named. */
    private void undrawn(List<PartitionRows.Group> groups) {
        html.append("<section class=\"undrawn\"><h3>").append(groups.size()).append(" more groups, not drawn</h3>")
                .append("<table><thead><tr><th>partitions</th><th>designated leader</th><th>other replicas</th>")
                .append("<th>expected truncation</th></tr></thead><tbody>");
        for (PartitionRows.Group g : groups) {
            html.append("<tr><td>").append(partitions(g)).append("</td>");
            g.cells().forEach(cell -> html.append("<td>").append(Html.text(cell)).append("</td>"));
            html.append("</tr>");
        }
        html.append("</tbody></table></section>\n");
    }

    private void skipped() {
        if (plan.skipped().isEmpty()) {
            return;
        }
        html.append("<h2>Skipped: ").append(plan.skipped().size()).append("</h2><table class=\"skipped\"><thead><tr>")
                .append("<th>partitions</th><th>reason</th></tr></thead><tbody>");
        for (PartitionRows.Group g : view.skipped()) {
            html.append("<tr><td>").append(partitions(g)).append("</td><td>").append(Html.text(g.cells().get(0)))
                    .append("</td></tr>");
        }
        html.append("</tbody></table>\n");
    }

    /** The group's label, and every partition by name when it stands for several (the browser's find reaches them). */
    private static String partitions(PartitionRows.Group g) {
        if (g.partitions().size() == 1) {
            return Html.text(g.label());
        }
        return "<details><summary>" + Html.text(g.label()) + "</summary><p class=\"partitions\">" + names(g.partitions())
                + "</p></details>";
    }

    private static String names(List<TopicPartition> partitions) {
        return partitions.stream().map(tp -> Html.text(tp.toString())).collect(Collectors.joining(" "));
    }

    /** The cut's fills, defined once for every drawing: stripes tell the kinds apart without colour too. */
    private static final String PATTERNS = "<svg class=\"defs\" width=\"0\" height=\"0\" aria-hidden=\"true\"><defs>"
            + "<pattern id=\"stripes-unknown\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\""
            + " patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#f0a04b\"/>"
            + "<rect width=\"3\" height=\"6\" fill=\"#d9731a\"/></pattern>"
            + "<pattern id=\"hatch-never\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\""
            + " patternTransform=\"rotate(-45)\"><rect width=\"6\" height=\"6\" fill=\"#e2e8f0\"/>"
            + "<rect width=\"2\" height=\"6\" fill=\"#94a3b8\"/></pattern>"
            + "<pattern id=\"hatch-unknown\" width=\"8\" height=\"8\" patternUnits=\"userSpaceOnUse\""
            + " patternTransform=\"rotate(45)\"><rect width=\"8\" height=\"8\" fill=\"#fdf2f2\"/>"
            + "<rect width=\"2\" height=\"8\" fill=\"#e8a0a0\"/></pattern>"
            + "</defs></svg>";

    private static final String STYLE = """
            body{margin:0;background:#f4f6f9;color:#1a202c;font:14px/1.45 "DejaVu Sans","Liberation Sans",\
            "Helvetica Neue",Arial,sans-serif}
            main{max-width:1040px;margin:0 auto;padding:20px 24px 40px}
            h1{font-size:24px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 10px}
            section>h2:first-child{margin-top:0}
            h3{font-size:16px;margin:0 0 4px;word-break:break-all}h4{font-size:13px;margin:14px 0 6px;color:#334155}
            .meta{color:#526070;font-size:12.5px;margin:2px 0 10px}
            code{font:12.5px "DejaVu Sans Mono","Liberation Mono",monospace}
            p code{white-space:nowrap}td code{overflow-wrap:anywhere}
            .cards{display:flex;flex-wrap:wrap;gap:10px;margin:14px 0}
            .card{flex:1 1 auto;background:#fff;border:1px solid #d8dee7;border-top:4px solid #3a6ea5;border-radius:6px;\
            padding:8px 10px;white-space:nowrap}
            .card.warn{border-top-color:#dd6b20}.card.bad{border-top-color:#c53030}
            .card .value{font-size:22px;font-weight:700}.card .name{font-weight:600;font-size:12px}
            .card .unit{color:#64748b;font-size:11px}
            .next{font-size:13px;margin:8px 0 4px}
            .command{margin:2px 0 6px;padding:6px 10px;background:#fff;border:1px solid #d8dee7;border-radius:4px}
            .command code{white-space:normal}.command code span{white-space:nowrap}
            .notes{background:#fff8e6;border:1px solid #f0c36d;border-radius:6px;padding:6px 14px;margin:12px 0;\
            overflow-wrap:anywhere}
            .notes p{margin:6px 0}.notes p.step{margin-left:18px}
            .legend{display:flex;flex-wrap:wrap;gap:6px 18px;font-size:12.5px;margin:12px 0 4px}
            .legend span{display:inline-flex;align-items:center;gap:6px}
            section.election,section.result,section.undrawn{background:#fff;border:1px solid #d8dee7;border-radius:8px;\
            padding:14px 18px;margin:14px 0}
            .reason{font-size:13px;color:#334155;margin:8px 0;overflow-wrap:anywhere}
            .badge{font-size:11px;background:#e0e7ff;color:#3730a3;border-radius:4px;padding:1px 6px;font-weight:600}
            .outcome{font-size:11.5px;border-radius:4px;padding:1px 6px;font-weight:700;background:#e2e8f0;\
            white-space:nowrap}
            .outcome.ELECTED,.outcome.ALREADY_RECOVERED,.outcome.WOULD_ELECT{background:#c6f6d5;color:#22543d}
            .outcome.REFUSED{background:#feebc8;color:#7b341e}
            .outcome.FAILED,.outcome.ELECTED_OTHER{background:#fed7d7;color:#822727}
            table{border-collapse:collapse;width:100%;font-size:12.5px;background:#fff}
            th,td{border:1px solid #e2e8f0;padding:4px 8px;text-align:left;vertical-align:top;overflow-wrap:break-word}
            th{background:#f1f5f9;font-weight:600}td.bad{color:#c53030;font-weight:700}
            tr.chosen td{background:#f0fff4}
            details summary{cursor:pointer}.partitions{font:12px "DejaVu Sans Mono",monospace;word-spacing:6px}
            footer{color:#64748b;font-size:12px;margin-top:24px}
            svg.defs{position:absolute}
            svg.logs{display:block;max-width:100%;height:auto;margin:6px 0}
            svg.logs.narrow{display:none}
            /* below 1000 px the wide drawing would be shrunk past reading: the narrow one, at its own size */
            @media (max-width:999px){
            main{padding:14px 12px 30px}
            section.election,section.result,section.undrawn{padding:12px 10px}
            svg.logs.wide{display:none}svg.logs.narrow{display:block}
            }
            svg text{font-family:"DejaVu Sans","Liberation Sans",Arial,sans-serif}
            .broker{font-size:14px;font-weight:700;fill:#1a202c}.designated .broker{fill:#22663f}
            .role{font-size:11.5px;font-weight:400;fill:#526070}
            .tick{font-size:11px;fill:#64748b;text-anchor:middle}.axis{font-size:11px;fill:#64748b;text-anchor:end}
            .grid{stroke:#e5e9f0;stroke-width:1}
            .note{font-size:12px;fill:#334155}
            .inside{font-size:12px;fill:#526070;font-style:italic}
            .leo{font-size:12px;fill:#1a202c;font-weight:600}
            rect.designated{fill:#2f855a}rect.kept{fill:#90acd0}
            rect.cut-committed{fill:#c53030}rect.cut-unknown{fill:url(#stripes-unknown)}
            rect.cut-never{fill:url(#hatch-never)}
            rect.unknown-amount{fill:url(#hatch-unknown);stroke:#c53030;stroke-dasharray:4 3}
            rect.not-measured{fill:#fff;stroke:#94a3b8;stroke-dasharray:3 2}
            .not-measured-mark{font-size:13px;font-weight:700;fill:#64748b;text-anchor:middle}
            rect.to-salvage,rect.salvaged{fill:#0e8a8a}
            .cut-start{stroke:#1a202c;stroke-width:1.5}
            .hw{stroke:#111;stroke-width:2.5}.hw-label{font-size:11px;font-weight:700;fill:#111;text-anchor:middle}
            .new-end{stroke:#22663f;stroke-width:1.5;stroke-dasharray:5 4}
            .new-end-label{font-size:11.5px;fill:#22663f;font-weight:700;text-anchor:middle}
            .measured{fill:#1a202c}
            .groups-read{stroke:#7c3aed;stroke-width:3;stroke-dasharray:2 3}
            """;
}
