// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.view;

import dev.uncleanrecovery.election.TruncationEstimate;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.formats.PlanConsumerGroup;
import dev.uncleanrecovery.formats.PlanEvidence;
import dev.uncleanrecovery.formats.PlanTruncation;
import dev.uncleanrecovery.formats.PlanUnansweredBroker;
import dev.uncleanrecovery.formats.PlannedElection;
import dev.uncleanrecovery.formats.ResultFile;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * One partition's replicas as an inline SVG drawing, to scale from offset 0: the designated leader's log first, then
 * each other replica's in assignment order, with what the election keeps and what it cuts (committed, of unknown
 * commitment, never committed), the high watermarks, the new log end across every row, the consumer groups that
 * read past it, and what is salvaged. After {@code execute}, the cut the brokers answered and what was copied. A log
 * nobody measured is not drawn: there is no length to draw it to.
 *
 * <p>Drawn in two layouts, at the size each is read at: {@link Layout#WIDE}, names left of the logs, and
 * {@link Layout#NARROW} for a narrow window, names above them; the page shows the one that fits.
 */
final class LogDrawing {

    /** Where the parts of a drawing go. */
    enum Layout {
        /** Names in a column left of the logs, the log end right of each. */
        WIDE(980, 230, 600, 104),
        /** Names and the log end above each log, the logs the whole width. */
        NARROW(520, 12, 496, 74);

        final int width;
        final int barX;
        final int barWidth;
        /** Characters of a note line: about 7 px each at its size. */
        final int noteChars;

        Layout(int width, int barX, int barWidth, int noteChars) {
            this.width = width;
            this.barX = barX;
            this.barWidth = barWidth;
            this.noteChars = noteChars;
        }
    }

    /**
     * The marks a drawing may hold, each with the words the legend gives it: the page's legend names every mark its
     * drawings use.
     */
    enum Mark {
        DESIGNATED("designated", "designated leader (\u2605): its log is kept whole"),
        KEPT("kept", "kept on another replica"),
        CUT_COMMITTED("cut-committed", "cut: committed"),
        CUT_UNKNOWN("cut-unknown", "cut: of unknown commitment"),
        CUT_NEVER("cut-never", "cut: never committed"),
        CUT_START("cut-start", "where the cut begins"),
        UNKNOWN_AMOUNT("unknown-amount", "loses an unknown amount of this log"),
        NOT_MEASURED("not-measured", "log not measured: its broker did not answer"),
        HIGH_WATERMARK("hw", "high watermark (HW)"),
        NEW_LOG_END("new-end", "new log end: the designated leader's"),
        TO_SALVAGE("to-salvage", "execute copies it to the salvage before electing"),
        SALVAGED("salvaged", "copied to the salvage before electing"),
        MEASURED("measured", "the cut the brokers answered after the election"),
        GROUPS_READ("groups-read", "consumer groups read to here, past the new log end");

        final String css;
        final String words;

        Mark(String css, String words) {
            this.css = css;
            this.words = words;
        }
    }

    private static final int BAR_HEIGHT = 20;
    /** The axis and its labels. */
    private static final int TOP = 30;
    private static final int LINE = 15;
    /** From a bar's top to the first note under it: room for the salvage line and the measured cut's mark. */
    private static final int NOTES_FROM_BAR = BAR_HEIGHT + 20;
    /** Above a bar: the high watermark's label. */
    private static final int ABOVE_BAR = 18;
    /** A cut narrower than this is widened so that it shows; its numbers are written under it. */
    private static final double NARROWEST_CUT = 3;
    /** Rough width of a character of the labels, to keep them inside the drawing. */
    private static final double CHAR_WIDTH = 7;

    private final StringBuilder svg = new StringBuilder(4096);
    private final Layout layout;
    private final long scale;
    private final Set<Mark> used;

    private LogDrawing(Layout layout, long scale, Set<Mark> used) {
        this.layout = layout;
        this.scale = scale;
        this.used = used;
    }

    /**
     * @param outcome    what {@code execute} did with this partition; null for the plan alone
     * @param unanswered the plan's unanswered brokers, by id: a fenced one gets its next step
     * @param planName   how the next step names the plan
     * @param used       given every mark the drawing holds, for the legend
     */
    static String draw(PlannedElection p, ResultFile.Partition outcome, Map<Integer, PlanUnansweredBroker> unanswered,
                       String planName, Layout layout, Set<Mark> used) {
        Map<Integer, PlanEvidence> evidence = PlanView.oneEach(p.evidence()).stream()
                .collect(Collectors.toMap(PlanEvidence::broker, Function.identity()));
        List<PlanTruncation> cuts = p.truncationsUnder(p.designatedLeader()).orElse(List.of());
        List<Integer> order = new ArrayList<>();
        order.add(p.designatedLeader());
        p.expected().replicas().stream().filter(b -> b != p.designatedLeader()).forEach(order::add);

        // only what was measured sets the scale: a log nobody measured has no length
        long end = 1;
        for (PlanEvidence e : evidence.values()) {
            if (e.status() == EvidenceStatus.OK) {
                end = Math.max(end, e.logEndOffset());
            }
        }
        for (PlanTruncation t : cuts) {
            end = Math.max(end, t.toOffset() == null ? 0 : t.toOffset());
        }
        for (PlanConsumerGroup g : p.consumerGroupsAhead()) {
            end = Math.max(end, g.committedOffset());
        }
        LogDrawing drawing = new LogDrawing(layout, end, used);

        List<Row> rows = new ArrayList<>();
        for (int broker : order) {
            PlanTruncation cut = cuts.stream().filter(t -> t.broker() == broker).findFirst().orElse(null);
            boolean leader = broker == p.designatedLeader();
            String next = unanswered.containsKey(broker) ? PlanView.nextStep(unanswered.get(broker), planName) : null;
            rows.add(Row.of(p, broker, leader, evidence.get(broker), cut, outcome, next, layout));
        }
        int height = TOP + rows.stream().mapToInt(Row::height).sum() + 2 * LINE;
        drawing.open(p, height);
        drawing.axis(height);
        PlanEvidence leader = evidence.get(p.designatedLeader());
        Long newLogEnd = leader != null && leader.status() == EvidenceStatus.OK ? leader.logEndOffset() : null;
        int y = TOP;
        for (Row row : rows) {
            drawing.row(row, y, row.leader() ? p.consumerGroupsAhead() : List.of());
            y += row.height();
        }
        drawing.newLogEnd(newLogEnd, height);
        drawing.svg.append("</svg>");
        return drawing.svg.toString();
    }

    /**
     * One replica: the lines that name it, its evidence, its cut under the designated leader, what execute measured
     * and copied, and the notes under its log.
     */
    private record Row(int broker, boolean leader, PlanEvidence evidence, PlanTruncation cut, boolean planOnly,
                       ResultFile.Truncation measured, List<ResultFile.Salvaged> salvaged, List<String> names,
                       List<String> notes, Layout layout) {

        static Row of(PlannedElection p, int broker, boolean leader, PlanEvidence evidence, PlanTruncation cut,
                      ResultFile.Partition outcome, String nextStep, Layout layout) {
            ResultFile.Truncation measured = outcome == null || outcome.truncations() == null ? null
                    : outcome.truncations().stream().filter(t -> t.broker() == broker).findFirst().orElse(null);
            List<ResultFile.Salvaged> salvaged = outcome == null || outcome.salvaged() == null ? List.of()
                    : outcome.salvaged().stream().filter(s -> s.broker() == broker).toList();
            List<String> notes = new ArrayList<>();
            boolean answered = evidence != null && evidence.status() == EvidenceStatus.OK;
            if (leader) {
                notes.add(answered ? "keeps its whole log: " + evidence.logEndOffset() + " is the new log end"
                        : "designated without evidence of its log");
            } else if (cut == null) {
                notes.add("the plan states no loss for it under this leader");
            } else if (cut.estimate() == TruncationEstimate.UNKNOWN) {
                notes.add("loses an UNKNOWN amount: " + (answered ? "the brokers did not say where it diverges"
                        : "its broker did not answer"));
            } else if (cut.records() == 0) {
                notes.add("loses nothing");
            } else {
                notes.add(cutNote(cut) + (outcome == null ? "; execute copies them to the salvage first" : ""));
            }
            if (nextStep != null && !leader) {
                notes.add("next: " + nextStep);
            }
            if (measured != null && measured.measuredFromOffset() != null) {
                notes.add("after the election the brokers answered: cut at " + measured.measuredFromOffset() + ", "
                        + (measured.toOffset() - measured.measuredFromOffset()) + " records"
                        + (measured.measuredFromOffset().equals(measured.plannedFromOffset()) ? ", as planned" : ""));
            } else if (measured != null) {
                notes.add("after the election the brokers did not say where it was cut");
            }
            for (ResultFile.Salvaged s : salvaged) {
                notes.add("salvaged [" + s.fromOffset() + ".." + s.toOffset() + "): " + s.records() + " records in "
                        + s.batches() + " batch(es), " + s.segment());
            }
            if (leader && !p.consumerGroupsAhead().isEmpty()) {
                long furthest = p.consumerGroupsAhead().stream().mapToLong(PlanConsumerGroup::committedOffset).max()
                        .orElseThrow();
                notes.add(PlanView.consumerGroupCount(PlanView.consumerGroups(List.of(p)),
                        PlanView.groupOffsets(List.of(p))) + " read to " + furthest + ", past the new log end: they"
                        + " read records this election destroys");
            }
            List<String> wrapped = new ArrayList<>();
            notes.forEach(n -> wrapped.addAll(Table.wrap(n, layout.noteChars)));
            return new Row(broker, leader, evidence, cut, outcome == null, measured, salvaged,
                    names(p, broker, leader, evidence, layout), wrapped, layout);
        }

        /**
         * "★ broker 2", "designated leader", "last written epoch 6", "ISR · last leader": left of the log in the wide
         * layout; above it in the narrow one, with its log end, as few lines as fit.
         */
        private static List<String> names(PlannedElection p, int broker, boolean leader, PlanEvidence e,
                                          Layout layout) {
            List<String> parts = new ArrayList<>();
            parts.add((leader ? "\u2605 " : "") + "broker " + broker);
            if (leader) {
                parts.add("designated leader");
            }
            boolean answered = e != null && e.status() == EvidenceStatus.OK;
            parts.add(e == null ? "no evidence" : !answered ? e.status().toString()
                    : "last written epoch " + e.lastWrittenLeaderEpoch() + (e.source() == dev.uncleanrecovery.evidence
                            .EvidenceSource.STOCK ? "" : " (" + e.source().name().toLowerCase(Locale.ROOT) + ")"));
            String membership = PlanView.membership(p.expected(), broker);
            if (membership != null) {
                parts.add(membership);
            }
            if (layout == Layout.WIDE) {
                return parts;
            }
            if (answered) {
                parts.add("LEO " + e.logEndOffset());
            }
            return Table.wrap(String.join(" \u00b7 ", parts), layout.noteChars - 4);
        }

        /** "cuts 200 records [200..400): 0 committed, 200 of unknown commitment", every part said. */
        private static String cutNote(PlanTruncation cut) {
            long never = cut.neverCommittedRecords() == null ? 0 : cut.neverCommittedRecords();
            return "cuts " + (cut.estimate() == TruncationEstimate.AT_LEAST ? "at least " : "") + cut.records()
                    + " records [" + cut.fromOffset() + ".." + cut.toOffset() + "): "
                    + (cut.committedRecords() == null ? cut.unknownCommitmentRecords() + " of unknown commitment (no"
                            + " high watermark of this log was read)"
                            : cut.committedRecords() + " committed" + (cut.unknownCommitmentRecords() > 0 ? ", "
                                    + cut.unknownCommitmentRecords() + " of unknown commitment" : ""))
                    + (never > 0 ? ", " + never + " never committed" : "");
        }

        /** From the row's top to its bar's. */
        int barOffset() {
            return layout == Layout.WIDE ? ABOVE_BAR : names.size() * LINE + ABOVE_BAR;
        }

        int height() {
            int underBar = NOTES_FROM_BAR + (notes.size() - 1) * LINE + 12;
            int namesLeft = layout == Layout.WIDE ? 14 + (names.size() - 1) * LINE + 8 : 0;
            return barOffset() + Math.max(underBar, namesLeft) + 6;
        }
    }

    private void open(PlannedElection p, int height) {
        svg.append("<svg class=\"logs ").append(layout.name().toLowerCase(Locale.ROOT))
                .append("\" role=\"img\" viewBox=\"0 0 ").append(layout.width).append(' ').append(height)
                .append("\" width=\"").append(layout.width).append("\" height=\"").append(height).append("\"><title>")
                .append(Html.text(p.topicPartition().toString()))
                .append(": each replica's log from offset 0, to scale</title>");
    }

    /** Offsets along the top, at round numbers, with faint lines down through every row. */
    private void axis(int height) {
        long step = roundStep(scale);
        for (long offset = 0; offset <= scale; offset += step) {
            double x = x(offset);
            svg.append("<line class=\"grid\" x1=\"").append(num(x)).append("\" y1=\"").append(TOP - 8)
                    .append("\" x2=\"").append(num(x)).append("\" y2=\"").append(height - 2 * LINE).append("\"/>");
            label("tick", Long.toString(offset), x, TOP - 12);
        }
        if (layout == Layout.WIDE) {
            svg.append("<text class=\"axis\" x=\"").append(layout.barX - 10).append("\" y=\"").append(TOP - 12)
                    .append("\">offset</text>");
        }
    }

    /** 1, 2 or 5 times a power of ten: four or five ticks across the longest log. */
    static long roundStep(long scale) {
        long step = 1;
        while (true) {
            for (long multiple : new long[] {1, 2, 5}) {
                if (scale / (step * multiple) <= 5) {
                    return step * multiple;
                }
            }
            step *= 10;
        }
    }

    private void row(Row row, int top, List<PlanConsumerGroup> groups) {
        int bar = top + row.barOffset();
        svg.append("<g class=\"replica").append(row.leader() ? " designated" : "").append("\">");
        if (row.leader()) {
            used.add(Mark.DESIGNATED);
        }
        int nameY = layout == Layout.WIDE ? bar + 14 : top + 12;
        for (int i = 0; i < row.names().size(); i++) {
            svg.append("<text class=\"").append(i == 0 ? "broker" : "role").append("\" x=\"")
                    .append(layout == Layout.WIDE ? 10 : layout.barX).append("\" y=\"").append(nameY + i * LINE)
                    .append("\">");
            String name = row.names().get(i);
            if (i == 0 && layout == Layout.NARROW) {
                // the broker in bold, the rest of the line as the role's
                int dot = name.indexOf(" \u00b7 ");
                svg.append(Html.text(dot < 0 ? name : name.substring(0, dot)));
                if (dot >= 0) {
                    svg.append("<tspan class=\"role\">").append(Html.text(name.substring(dot))).append("</tspan>");
                }
            } else {
                svg.append(Html.text(name));
            }
            svg.append("</text>");
        }
        PlanEvidence e = row.evidence();
        if (e == null || e.status() != EvidenceStatus.OK) {
            notMeasured(e, bar);
        } else {
            drawLog(row, e, bar);
        }
        int line = bar + NOTES_FROM_BAR;
        for (String note : row.notes()) {
            svg.append("<text class=\"note\" x=\"").append(layout.barX).append("\" y=\"").append(line).append("\">")
                    .append(Html.text(note)).append("</text>");
            line += LINE;
        }
        if (!groups.isEmpty() && e != null && e.status() == EvidenceStatus.OK) {
            long furthest = groups.stream().mapToLong(PlanConsumerGroup::committedOffset).max().orElseThrow();
            int y = bar + BAR_HEIGHT / 2;
            svg.append("<line class=\"groups-read\" x1=\"").append(num(x(e.logEndOffset()))).append("\" y1=\"")
                    .append(y).append("\" x2=\"").append(num(x(furthest))).append("\" y2=\"").append(y).append("\"/>");
            used.add(Mark.GROUPS_READ);
        }
        svg.append("</g>");
    }

    /**
     * A log nobody measured: a mark at its start and the words, not a bar, for there is no length to draw it to.
     */
    private void notMeasured(PlanEvidence e, int bar) {
        svg.append("<rect class=\"not-measured\" x=\"").append(layout.barX).append("\" y=\"").append(bar)
                .append("\" width=\"").append(BAR_HEIGHT).append("\" height=\"").append(BAR_HEIGHT).append("\"/>");
        svg.append("<text class=\"not-measured-mark\" x=\"").append(layout.barX + BAR_HEIGHT / 2).append("\" y=\"")
                .append(bar + 15).append("\">?</text>");
        svg.append("<text class=\"inside\" x=\"").append(layout.barX + BAR_HEIGHT + 8).append("\" y=\"")
                .append(bar + 15).append("\">log not measured").append(e == null ? "" : " (" + e.status() + ")").append("</text>");
        used.add(Mark.NOT_MEASURED);
    }

    /** The kept part, the cut in its three kinds, the high watermark, what execute measured and copied. */
    private void drawLog(Row row, PlanEvidence e, int bar) {
        long logEnd = e.logEndOffset();
        PlanTruncation cut = row.cut();
        boolean known = cut != null && cut.estimate() != TruncationEstimate.UNKNOWN;
        long kept = known ? cut.fromOffset() : logEnd;
        if (!known && !row.leader()) {
            rect(Mark.UNKNOWN_AMOUNT, 0, logEnd, bar, false);
        } else {
            rect(row.leader() ? Mark.DESIGNATED : Mark.KEPT, 0, kept, bar, false);
        }
        if (known && cut.records() > 0) {
            long committed = cut.committedRecords() == null ? 0 : cut.committedRecords();
            long unknown = cut.unknownCommitmentRecords();
            long from = cut.fromOffset();
            // below the high watermark first: committed, then the rest of the same epoch, then a superseded suffix
            rect(Mark.CUT_COMMITTED, from, from + committed, bar, true);
            rect(Mark.CUT_UNKNOWN, from + committed, from + committed + unknown, bar, true);
            rect(Mark.CUT_NEVER, from + committed + unknown, cut.toOffset(), bar, true);
            svg.append("<line class=\"cut-start\" x1=\"").append(num(x(from))).append("\" y1=\"").append(bar - 5)
                    .append("\" x2=\"").append(num(x(from))).append("\" y2=\"").append(bar + BAR_HEIGHT + 5)
                    .append("\"/>");
            used.add(Mark.CUT_START);
            if (row.planOnly()) {
                underline(Mark.TO_SALVAGE, from, cut.toOffset(), bar);
            }
        }
        for (ResultFile.Salvaged s : row.salvaged()) {
            underline(Mark.SALVAGED, s.fromOffset(), s.toOffset(), bar);
        }
        if (row.measured() != null && row.measured().measuredFromOffset() != null) {
            double x = x(row.measured().measuredFromOffset());
            int y = bar + BAR_HEIGHT + 2;
            svg.append("<path class=\"measured\" d=\"M").append(num(x)).append(' ').append(y)
                    .append(" l-5 8 h10 z\"/>");
            used.add(Mark.MEASURED);
        }
        if (e.highWatermark() != null) {
            double x = x(e.highWatermark());
            svg.append("<line class=\"hw\" x1=\"").append(num(x)).append("\" y1=\"").append(bar - 4).append("\" x2=\"")
                    .append(num(x)).append("\" y2=\"").append(bar + BAR_HEIGHT + 4).append("\"/>");
            label("hw-label", "HW " + e.highWatermark(), x, bar - 6);
            used.add(Mark.HIGH_WATERMARK);
        }
        if (layout == Layout.WIDE) {
            svg.append("<text class=\"leo\" x=\"").append(layout.barX + layout.barWidth + 12).append("\" y=\"")
                    .append(bar + 15).append("\">LEO ").append(logEnd).append("</text>");
        }
    }

    /** The designated leader's log end, across every row: where the others are cut to, at most. */
    private void newLogEnd(Long offset, int height) {
        if (offset == null) {
            return;
        }
        double x = x(offset);
        svg.append("<line class=\"new-end\" x1=\"").append(num(x)).append("\" y1=\"").append(TOP - 4).append("\" x2=\"")
                .append(num(x)).append("\" y2=\"").append(height - 2 * LINE + 4).append("\"/>");
        label("new-end-label", "new log end " + offset, x, height - LINE + 2);
        used.add(Mark.NEW_LOG_END);
    }

    /** A label centred on {@code x}, moved in where it would reach past the drawing's edges. */
    private void label(String css, String words, double x, int y) {
        double half = words.length() * CHAR_WIDTH / 2;
        double centre = Math.max(half + 2, Math.min(layout.width - half - 2, x));
        svg.append("<text class=\"").append(css).append("\" x=\"").append(num(centre)).append("\" y=\"").append(y)
                .append("\">").append(Html.text(words)).append("</text>");
    }

    private void rect(Mark kind, long from, long to, int bar, boolean widen) {
        if (to <= from) {
            return;
        }
        double x = x(from);
        double width = Math.max(x(to) - x, widen ? NARROWEST_CUT : 0.5);
        svg.append("<rect class=\"").append(kind.css).append("\" x=\"").append(num(x)).append("\" y=\"").append(bar)
                .append("\" width=\"").append(num(width)).append("\" height=\"").append(BAR_HEIGHT).append("\"/>");
        used.add(kind);
    }

    private void underline(Mark kind, long from, long to, int bar) {
        double x = x(from);
        double width = Math.max(x(to) - x, NARROWEST_CUT);
        svg.append("<rect class=\"").append(kind.css).append("\" x=\"").append(num(x)).append("\" y=\"")
                .append(bar + BAR_HEIGHT + 2).append("\" width=\"").append(num(width)).append("\" height=\"3\"/>");
        used.add(kind);
    }

    private double x(double offset) {
        return layout.barX + layout.barWidth * offset / scale;
    }

    private static String num(double value) {
        return String.format(Locale.ROOT, "%.1f", value);
    }

    /** A fresh set for {@link #draw}'s {@code used}. */
    static Set<Mark> noMarks() {
        return EnumSet.noneOf(Mark.class);
    }
}
