// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.view;

import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.formats.PlanConsumerGroup;
import dev.uncleanrecovery.formats.PlanEvidence;
import dev.uncleanrecovery.formats.PlanTruncation;
import dev.uncleanrecovery.formats.PlannedElection;
import dev.uncleanrecovery.formats.ResultFile;
import dev.uncleanrecovery.election.TruncationEstimate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * One partition's replicas as an inline SVG drawing, to scale from offset 0: the designated leader's log first, then
 * each other replica's in assignment order, with what the election keeps and what it cuts (committed, of unknown
 * commitment, never committed), the high watermarks, the new log end across every row, the consumer groups that
 * read past it, and what is salvaged. After {@code execute}, the cut the brokers answered and what was copied.
 */
final class LogDrawing {

    static final int WIDTH = 980;
    private static final int BAR_X = 230;
    private static final int BAR_WIDTH = 600;
    private static final int BAR_HEIGHT = 20;
    /** The axis and its labels. */
    private static final int TOP = 30;
    /** A replica's row without annotation lines: the high watermark's label above the bar, the bar. */
    private static final int ROW = 44;
    private static final int LINE = 15;
    /** A cut narrower than this is widened so that it shows; its numbers are written under it. */
    private static final double NARROWEST_CUT = 3;

    private final StringBuilder svg = new StringBuilder(4096);
    private final long scale;

    private LogDrawing(long scale) {
        this.scale = scale;
    }

    /**
     * @param outcome what {@code execute} did with this partition; null for the plan alone
     */
    static String draw(PlannedElection p, ResultFile.Partition outcome) {
        Map<Integer, PlanEvidence> evidence = PlanPrinter.oneEach(p.evidence()).stream()
                .collect(Collectors.toMap(PlanEvidence::broker, Function.identity()));
        List<PlanTruncation> cuts = p.truncationsUnder(p.designatedLeader()).orElse(List.of());
        List<Integer> order = new ArrayList<>();
        order.add(p.designatedLeader());
        p.expected().replicas().stream().filter(b -> b != p.designatedLeader()).forEach(order::add);

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
        LogDrawing drawing = new LogDrawing(end);

        List<Row> rows = new ArrayList<>();
        for (int broker : order) {
            PlanTruncation cut = cuts.stream().filter(t -> t.broker() == broker).findFirst().orElse(null);
            boolean leader = broker == p.designatedLeader();
            rows.add(Row.of(broker, leader, evidence.get(broker), cut, outcome,
                    leader && !p.consumerGroupsAhead().isEmpty()));
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

    /** One replica: its evidence, its cut under the designated leader, and what execute measured and copied. */
    private record Row(int broker, boolean leader, PlanEvidence evidence, PlanTruncation cut, boolean planOnly,
                       ResultFile.Truncation measured, List<ResultFile.Salvaged> salvaged, List<String> notes,
                       boolean groupsAhead) {

        static Row of(int broker, boolean leader, PlanEvidence evidence, PlanTruncation cut, ResultFile.Partition outcome,
                      boolean groupsAhead) {
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
            return new Row(broker, leader, evidence, cut, outcome == null, measured, salvaged, notes, groupsAhead);
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

        int height() {
            return ROW + (notes.size() + (groupsAhead ? 1 : 0)) * LINE;
        }
    }

    private void open(PlannedElection p, int height) {
        svg.append("<svg class=\"logs\" role=\"img\" viewBox=\"0 0 ").append(WIDTH).append(' ').append(height)
                .append("\" width=\"").append(WIDTH).append("\" height=\"").append(height).append("\"><title>")
                .append(PlanPage.text(p.topicPartition().toString())).append(": each replica's log from offset 0, to scale")
                .append("</title>");
    }

    /** Offsets along the top, at round numbers, with faint lines down through every row. */
    private void axis(int height) {
        long step = roundStep(scale);
        for (long offset = 0; offset <= scale; offset += step) {
            double x = x(offset);
            svg.append("<line class=\"grid\" x1=\"").append(num(x)).append("\" y1=\"").append(TOP - 8)
                    .append("\" x2=\"").append(num(x)).append("\" y2=\"").append(height - 2 * LINE).append("\"/>");
            svg.append("<text class=\"tick\" x=\"").append(num(x)).append("\" y=\"").append(TOP - 12)
                    .append("\">").append(offset).append("</text>");
        }
        svg.append("<text class=\"axis\" x=\"").append(BAR_X - 10).append("\" y=\"").append(TOP - 12)
                .append("\">offset</text>");
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
        int bar = top + 16;
        svg.append("<g class=\"replica").append(row.leader() ? " designated" : "").append("\">");
        svg.append("<text class=\"broker\" x=\"10\" y=\"").append(bar + 14).append("\">")
                .append(row.leader() ? "\u2605 " : "").append("broker ").append(row.broker()).append("</text>");
        svg.append("<text class=\"role\" x=\"10\" y=\"").append(bar + 14 + LINE).append("\">")
                .append(PlanPage.text(role(row))).append("</text>");
        PlanEvidence e = row.evidence();
        if (e == null || e.status() != EvidenceStatus.OK) {
            rect("unknown-log", 0, scale, bar, false);
            svg.append("<text class=\"inside\" x=\"").append(num(x(scale / 2.0))).append("\" y=\"").append(bar + 14)
                    .append("\">log unknown").append(e == null ? "" : " (" + e.status() + ")").append("</text>");
        } else {
            drawLog(row, e, bar);
        }
        int line = bar + BAR_HEIGHT + LINE;
        for (String note : row.notes()) {
            svg.append("<text class=\"note\" x=\"").append(BAR_X).append("\" y=\"").append(line).append("\">")
                    .append(PlanPage.text(note)).append("</text>");
            line += LINE;
        }
        if (!groups.isEmpty() && e != null && e.status() == EvidenceStatus.OK) {
            long furthest = groups.stream().mapToLong(PlanConsumerGroup::committedOffset).max().orElseThrow();
            double from = x(e.logEndOffset());
            double to = x(furthest);
            int y = bar + BAR_HEIGHT / 2;
            svg.append("<line class=\"groups\" x1=\"").append(num(from)).append("\" y1=\"").append(y).append("\" x2=\"")
                    .append(num(to)).append("\" y2=\"").append(y).append("\"/>");
            svg.append("<text class=\"groups-label\" x=\"").append(BAR_X).append("\" y=\"").append(line)
                    .append("\">").append(groups.size()).append(groups.size() == 1 ? " consumer group" : " consumer groups")
                    .append(" read to ").append(furthest).append(", past the new log end: they read records this")
                    .append(" election destroys</text>");
        }
        svg.append("</g>");
    }

    /** "designated, epoch 6", "epoch 5 (disk)", "UNREACHABLE": what the evidence says of the replica's log. */
    private static String role(Row row) {
        PlanEvidence e = row.evidence();
        String log = e == null ? "no evidence" : e.status() != EvidenceStatus.OK ? e.status().toString()
                : "epoch " + e.lastWrittenLeaderEpoch() + (e.source() == EvidenceSource.STOCK ? ""
                        : " (" + e.source().name().toLowerCase(Locale.ROOT) + ")");
        return (row.leader() ? "designated, " : "") + log;
    }

    /** The kept part, the cut in its three kinds, the high watermark, what execute measured and copied. */
    private void drawLog(Row row, PlanEvidence e, int bar) {
        long logEnd = e.logEndOffset();
        PlanTruncation cut = row.cut();
        boolean known = cut != null && cut.estimate() != TruncationEstimate.UNKNOWN;
        long kept = known ? cut.fromOffset() : logEnd;
        rect(row.leader() ? "leader" : "kept", 0, kept, bar, false);
        if (known && cut.records() > 0) {
            long committed = cut.committedRecords() == null ? 0 : cut.committedRecords();
            long unknown = cut.unknownCommitmentRecords();
            long from = cut.fromOffset();
            // below the high watermark first: committed, then the rest of the same epoch, then a superseded suffix
            rect("cut-committed", from, from + committed, bar, true);
            rect("cut-unknown", from + committed, from + committed + unknown, bar, true);
            rect("cut-never", from + committed + unknown, cut.toOffset(), bar, true);
            svg.append("<line class=\"cut-mark\" x1=\"").append(num(x(from))).append("\" y1=\"").append(bar - 5)
                    .append("\" x2=\"").append(num(x(from))).append("\" y2=\"").append(bar + BAR_HEIGHT + 5).append("\"/>");
            if (row.planOnly()) {
                underline("salvage", from, cut.toOffset(), bar);
            }
        } else if (!known && !row.leader()) {
            rect("cut-unknown-amount", 0, logEnd, bar, false);
        }
        for (ResultFile.Salvaged s : row.salvaged()) {
            underline("salvage", s.fromOffset(), s.toOffset(), bar);
        }
        if (row.measured() != null && row.measured().measuredFromOffset() != null) {
            double x = x(row.measured().measuredFromOffset());
            int y = bar + BAR_HEIGHT + 2;
            svg.append("<path class=\"measured\" d=\"M").append(num(x)).append(' ').append(y).append(" l-5 8 h10 z\"/>");
        }
        if (e.highWatermark() != null) {
            double x = x(e.highWatermark());
            svg.append("<line class=\"hw\" x1=\"").append(num(x)).append("\" y1=\"").append(bar - 4).append("\" x2=\"")
                    .append(num(x)).append("\" y2=\"").append(bar + BAR_HEIGHT + 4).append("\"/>");
            svg.append("<text class=\"hw-label\" x=\"").append(num(x)).append("\" y=\"").append(bar - 6).append("\">HW ")
                    .append(e.highWatermark()).append("</text>");
        }
        svg.append("<text class=\"leo\" x=\"").append(BAR_X + BAR_WIDTH + 12).append("\" y=\"").append(bar + 15)
                .append("\">LEO ").append(logEnd).append("</text>");
    }

    /** The designated leader's log end, across every row: where the others are cut to, at most. */
    private void newLogEnd(Long offset, int height) {
        if (offset == null) {
            return;
        }
        double x = x(offset);
        svg.append("<line class=\"new-end\" x1=\"").append(num(x)).append("\" y1=\"").append(TOP - 4).append("\" x2=\"")
                .append(num(x)).append("\" y2=\"").append(height - 2 * LINE + 4).append("\"/>");
        svg.append("<text class=\"new-end-label\" x=\"").append(num(x)).append("\" y=\"").append(height - LINE + 2)
                .append("\">new log end ").append(offset).append("</text>");
    }

    private void rect(String kind, long from, long to, int bar, boolean widen) {
        if (to <= from) {
            return;
        }
        double x = x(from);
        double width = Math.max(x(to) - x, widen ? NARROWEST_CUT : 0.5);
        svg.append("<rect class=\"").append(kind).append("\" x=\"").append(num(x)).append("\" y=\"").append(bar)
                .append("\" width=\"").append(num(width)).append("\" height=\"").append(BAR_HEIGHT).append("\"/>");
    }

    private void underline(String kind, long from, long to, int bar) {
        double x = x(from);
        double width = Math.max(x(to) - x, NARROWEST_CUT);
        svg.append("<rect class=\"").append(kind).append("\" x=\"").append(num(x)).append("\" y=\"")
                .append(bar + BAR_HEIGHT + 2).append("\" width=\"").append(num(width)).append("\" height=\"3\"/>");
    }

    private double x(double offset) {
        return BAR_X + BAR_WIDTH * offset / scale;
    }

    private static String num(double value) {
        return String.format(Locale.ROOT, "%.1f", value);
    }
}
