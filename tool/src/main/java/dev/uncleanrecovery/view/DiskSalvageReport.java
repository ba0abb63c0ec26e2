// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.view;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.uncleanrecovery.logdir.LogDirReport;
import dev.uncleanrecovery.formats.Json;
import dev.uncleanrecovery.recovery.DiskSalvageFlow;
import dev.uncleanrecovery.salvage.DiskSalvage;
import dev.uncleanrecovery.salvage.DiskSalvage.Outcome;
import dev.uncleanrecovery.salvage.DiskSalvage.Status;
import dev.uncleanrecovery.salvage.SalvagedFile;
import dev.uncleanrecovery.support.Sizes;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.kafka.common.TopicPartition;

/** What {@code inspect --salvage-beyond PLAN} prints of the copy of a stopped broker's doomed ranges. */
public final class DiskSalvageReport {

    private static final int WIDTH = 120;

    private final PrintWriter out;
    private final CopyProgress progress;
    private final boolean json;

    /** @param json {@code --output json}: the outcomes as one JSON document */
    public DiskSalvageReport(PrintWriter out, PrintWriter err, boolean json) {
        this.out = out;
        this.progress = new CopyProgress(err);
        this.json = json;
    }

    /** Progress of the copy on stderr: silent for the first second, then at most one line a second. */
    public DiskSalvage.Progress progress() {
        return progress;
    }

    /** The outcome of each partition of the plan, and where the copies went. */
    public void print(DiskSalvageFlow.Copied copied, Path planFile) throws IOException {
        progress.done();
        LogDirReport report = copied.report();
        Path dir = copied.directory();
        List<Outcome> outcomes = copied.outcomes();
        if (json) {
            out.print(Json.mapper().writeValueAsString(JsonReport.of(report.brokerId(), planFile, dir, outcomes)) + "\n");
        } else {
            print(report, planFile, dir, outcomes);
        }
        out.flush();
    }

    private void print(LogDirReport report, Path planFile, Path dir, List<Outcome> outcomes) {
        Table.printWrapped(out, "Broker " + report.brokerId() + ": salvage beyond the cuts of " + planFile, 2);
        Table.printWrapped(out, "  into " + dir.toAbsolutePath(), 4);
        out.println();
        int nameWidth = Math.min(40, outcomes.stream().mapToInt(o -> o.partition().toString().length()).max().orElse(9));
        List<String> details = new ArrayList<>();
        for (Outcome o : outcomes) {
            String line = String.format(Locale.ROOT, "%-" + nameWidth + "s  %-15s %s", o.partition(),
                    o.status().name().replace('_', '-'), line(o));
            out.println(fit(line));
            if (line.length() > WIDTH) {
                details.add(o.partition() + ": " + o.detail());
            }
            o.notes().forEach(n -> details.add(o.partition() + ": " + n));
        }
        if (!details.isEmpty()) {
            out.println();
            details.forEach(d -> Table.printWrapped(out, "  " + d, 4));
        }
        long copied = outcomes.stream().filter(o -> o.status() == Status.COPIED).count();
        long records = outcomes.stream().filter(o -> o.file() != null).mapToLong(o -> o.file().records()).sum();
        long bytes = outcomes.stream().filter(o -> o.file() != null).mapToLong(o -> o.file().bytes()).sum();
        long attention = outcomes.stream().filter(o -> o.status() == Status.NEEDS_ATTENTION).count();
        out.println();
        out.printf(Locale.ROOT, "%d partition(s): %d copied (%,d records, %s), %d with nothing beyond the cut,"
                        + " %d skipped, %d need attention.%n", outcomes.size(), copied, records, Sizes.human(bytes),
                outcomes.stream().filter(o -> o.status() == Status.NOTHING_BEYOND).count(),
                outcomes.stream().filter(o -> o.status() == Status.SKIPPED).count(), attention);
        Table.printWrapped(out, attention > 0
                ? "Do NOT restart broker " + report.brokerId() + " until they are copied: following the new leader"
                + " it truncates them. Nothing in the log dirs was changed."
                : "Nothing in the log dirs was changed.", 2);
    }

    /** "20..24 from broker 2's log end 20: 5 records, 1 batch, 420 B" */
    private static String line(Outcome o) {
        String from = o.fromSource() == null ? "" : switch (o.fromSource()) {
            case PLANNED_TRUNCATION -> "the plan's exact cut " + o.fromOffset();
            case LEADER_LOG_END -> "the leader's planned log end " + o.fromOffset();
        };
        if (o.status() == Status.COPIED) {
            SalvagedFile f = o.file();
            return String.format(Locale.ROOT, "%d..%d from %s: %,d records, %,d batch%s, %s",
                    o.fromOffset(), o.logEndOffset() - 1, from, f.records(), f.batches(), f.batches() == 1 ? "" : "es",
                    Sizes.human(f.bytes()));
        }
        if (o.status() == Status.NOTHING_BEYOND) {
            return "log ends at " + o.logEndOffset() + ", at or before " + from;
        }
        return o.detail();
    }

    private static String fit(String line) {
        return line.length() <= WIDTH ? line : line.substring(0, WIDTH - 12) + " (see below)";
    }

    /** Progress on stderr, silent for the first second, then at most one line a second. */
    private static final class CopyProgress implements DiskSalvage.Progress {
        private final PrintWriter err;
        private final long startedAt = System.currentTimeMillis();
        private long lastPrinted;
        private boolean printed;

        CopyProgress(PrintWriter err) {
            this.err = err;
        }

        @Override
        public void copied(TopicPartition partition, long bytes, long records) {
            long now = System.currentTimeMillis();
            if (now - startedAt >= 1000 && now - lastPrinted >= 1000) {
                lastPrinted = now;
                printed = true;
                err.printf(Locale.ROOT, "copying %s: %s, %,d records%n", partition, Sizes.human(bytes), records);
                err.flush();
            }
        }

        void done() {
            if (printed) {
                err.println("copying done");
                err.flush();
            }
        }
    }

    /** The {@code --output json} form. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record JsonReport(int broker, String plan, String salvageDir, List<JsonPartition> partitions) {
        static JsonReport of(int broker, Path plan, Path dir, List<Outcome> outcomes) {
            return new JsonReport(broker, plan.toString(), dir.toString(),
                    outcomes.stream().map(JsonPartition::of).toList());
        }
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    record JsonPartition(String topic, int partition, String status, String detail, String fromSource,
                         Long fromOffset, Long logEndOffset, Long firstOffset, Long lastOffset, Long records,
                         Integer batches, Long bytes, String segment, String manifest, String sha256,
                         List<String> notes) {
        static JsonPartition of(Outcome o) {
            SalvagedFile f = o.file();
            return new JsonPartition(o.partition().topic(), o.partition().partition(), o.status().name(), o.detail(),
                    o.fromSource() == null ? null : o.fromSource().name(),
                    o.fromOffset() < 0 ? null : o.fromOffset(), o.logEndOffset() < 0 ? null : o.logEndOffset(),
                    f == null ? null : f.firstOffset(), f == null ? null : f.lastOffset(),
                    f == null ? null : f.records(), f == null ? null : f.batches(), f == null ? null : f.bytes(),
                    f == null || f.segment() == null ? null : f.segment().toString(),
                    f == null || f.manifest() == null ? null : f.manifest().toString(),
                    f == null ? null : f.sha256(), o.notes());
        }
    }
}
