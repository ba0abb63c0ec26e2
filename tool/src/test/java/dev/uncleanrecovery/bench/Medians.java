// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.bench;

import java.util.Arrays;
import java.util.List;
import java.util.LongSummaryStatistics;
import java.util.TreeSet;
import java.util.function.ToLongFunction;

/**
 * The real-cluster benchmark's summary over repeated runs: on a shared VM one run of either contender can be 30–50%
 * slower than the next, so the 2× target is judged on the medians, with the spread shown beside them.
 */
final class Medians {

    private Medians() {
    }

    static String table(List<RealClusterBenchmark.Row> rows) {
        StringBuilder sb = new StringBuilder("| N | runs | Kafka's wall ms: median (min–max) | recover wall ms: median (min–max)"
                + " | led ms, medians: first / median / all (Kafka's) | led ms, medians: first / median / all (recover)"
                + " | controller requests (Kafka's / recover) | recover CPU ms / peak RSS MiB (medians)"
                + " | wall vs Kafka's (medians) | recover's median led / all led vs Kafka's all led"
                + " | wrong leaders, worst run (Kafka's / recover) | records lost, worst run (Kafka's / recover) |\n"
                + "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (int n : new TreeSet<>(rows.stream().map(RealClusterBenchmark.Row::partitions).toList())) {
            List<RealClusterBenchmark.Row> stock = of(rows, n, "stock");
            List<RealClusterBenchmark.Row> tool = of(rows, n, "tool");
            sb.append(String.format("| %,d | %d | %s | %s | %s | %s | %s / %s | %s | %s | %s | %s |%n", n,
                    Math.max(stock.size(), tool.size()), spread(stock), spread(tool), led(stock), led(tool),
                    medianOf(stock, RealClusterBenchmark.Row::controllerRequests),
                    medianOf(tool, RealClusterBenchmark.Row::controllerRequests),
                    tool.isEmpty() ? "-" : String.format("%,d / %,d", median(values(tool, RealClusterBenchmark.Row::cpuMillis)),
                            median(values(tool, RealClusterBenchmark.Row::peakRssMib))),
                    ratio(tool, stock), ledRatios(tool, stock), losses(stock, tool)));
        }
        List<RealClusterBenchmark.Row> baselines = rows.stream().filter(r -> r.contender().equals("baseline")).toList();
        if (!baselines.isEmpty()) {
            sb.append("\n| N | runs | recover wall ms: median (min–max) | baseline wall ms: median (min–max) | CPU ms, medians"
                    + " (recover / baseline) | recover vs baseline (medians) | wrong leaders, worst run (recover / baseline)"
                    + " | records lost, worst run (recover / baseline) |\n|---|---|---|---|---|---|---|---|\n");
        }
        for (int n : new TreeSet<>(baselines.stream().map(RealClusterBenchmark.Row::partitions).toList())) {
            List<RealClusterBenchmark.Row> tool = of(rows, n, "tool");
            List<RealClusterBenchmark.Row> baseline = of(rows, n, "baseline");
            sb.append(String.format("| %,d | %d | %s | %s | %s / %s | %s | %s |%n", n,
                    Math.max(tool.size(), baseline.size()), spread(tool), spread(baseline),
                    medianOf(tool, RealClusterBenchmark.Row::cpuMillis), medianOf(baseline, RealClusterBenchmark.Row::cpuMillis),
                    ratio(tool, baseline), losses(tool, baseline)));
        }
        return sb.toString();
    }

    /** The median wall time of the first rows over that of the second, "-" without both. */
    private static String ratio(List<RealClusterBenchmark.Row> over, List<RealClusterBenchmark.Row> under) {
        return over.isEmpty() || under.isEmpty() ? "-" : String.format("**%.2f×**",
                (double) median(values(over, RealClusterBenchmark.Row::wallMillis))
                        / median(values(under, RealClusterBenchmark.Row::wallMillis)));
    }

    /** The medians of the first, the median and the last partition led, as "first / median / all". */
    private static String led(List<RealClusterBenchmark.Row> rows) {
        return rows.isEmpty() ? "-" : medianOf(rows, RealClusterBenchmark.Row::firstLedMillis) + " / "
                + medianOf(rows, RealClusterBenchmark.Row::medianLedMillis) + " / "
                + medianOf(rows, RealClusterBenchmark.Row::allLedMillis);
    }

    /** The median of {@code tool}'s median-led and all-led times over that of {@code stock}'s all-led time. */
    private static String ledRatios(List<RealClusterBenchmark.Row> tool, List<RealClusterBenchmark.Row> stock) {
        if (tool.isEmpty() || stock.isEmpty()) {
            return "-";
        }
        double stockAll = median(values(stock, RealClusterBenchmark.Row::allLedMillis));
        return String.format("%.2f× / %.2f×", median(values(tool, RealClusterBenchmark.Row::medianLedMillis)) / stockAll,
                median(values(tool, RealClusterBenchmark.Row::allLedMillis)) / stockAll);
    }

    /** The wrong leaders and the records lost of the worst run of each, as two cells "left / right". */
    private static String losses(List<RealClusterBenchmark.Row> left, List<RealClusterBenchmark.Row> right) {
        return worst(left, RealClusterBenchmark.Row::wrongLeaders) + " / " + worst(right, RealClusterBenchmark.Row::wrongLeaders)
                + " | " + worst(left, RealClusterBenchmark.Row::recordsLostByEndOffsets) + " / "
                + worst(right, RealClusterBenchmark.Row::recordsLostByEndOffsets);
    }

    private static String medianOf(List<RealClusterBenchmark.Row> rows, ToLongFunction<RealClusterBenchmark.Row> value) {
        return rows.isEmpty() ? "-" : String.format("%,d", median(values(rows, value)));
    }

    /** The middle value; of an even count, the lower of the two middle ones (a value that was measured). */
    static long median(long[] values) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[(sorted.length - 1) / 2];
    }

    private static List<RealClusterBenchmark.Row> of(List<RealClusterBenchmark.Row> rows, int n, String contender) {
        return rows.stream().filter(r -> r.partitions() == n && r.contender().equals(contender)).toList();
    }

    private static long[] values(List<RealClusterBenchmark.Row> rows, ToLongFunction<RealClusterBenchmark.Row> value) {
        return rows.stream().mapToLong(value).toArray();
    }

    private static String spread(List<RealClusterBenchmark.Row> rows) {
        if (rows.isEmpty()) {
            return "-";
        }
        LongSummaryStatistics walls = rows.stream().mapToLong(RealClusterBenchmark.Row::wallMillis).summaryStatistics();
        return String.format("%,d (%,d–%,d)", median(values(rows, RealClusterBenchmark.Row::wallMillis)), walls.getMin(),
                walls.getMax());
    }

    private static String worst(List<RealClusterBenchmark.Row> rows, ToLongFunction<RealClusterBenchmark.Row> value) {
        return rows.isEmpty() ? "-" : String.format("%,d", rows.stream().mapToLong(value).max().orElse(0));
    }
}
