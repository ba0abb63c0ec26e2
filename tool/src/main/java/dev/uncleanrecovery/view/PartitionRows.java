// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.view;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.kafka.common.TopicPartition;

/**
 * Table rows, one per partition, where partitions whose other cells and note are all the same share one row: an
 * outage of thousands of partitions that look alike prints a few rows instead of thousands, and the partition that
 * differs stands out. The files keep every partition.
 */
public final class PartitionRows {

    /** A shared row's partition cell longer than this ends in "… (N partitions)". */
    static final int LABEL_WIDTH = Table.LONGEST_PART_KEPT;

    private final Map<List<String>, List<TopicPartition>> groups = new LinkedHashMap<>();

    /** @param note the paragraph under the row, or null */
    PartitionRows add(TopicPartition partition, String note, Object... cells) {
        List<String> key = new ArrayList<>(cells.length + 1);
        for (Object cell : cells) {
            key.add(cell == null ? "-" : cell.toString());
        }
        key.add(note);
        groups.computeIfAbsent(key, k -> new ArrayList<>()).add(partition);
        return this;
    }

    /**
     * Partitions whose cells and note are all the same, in the order first seen.
     *
     * @param cells what the table prints after the partition cell ("-" for a null cell)
     * @param note  the paragraph under the row, or null
     */
    record Group(List<TopicPartition> partitions, List<String> cells, String note) {

        /** The partition cell of the row: {@link PartitionRows#label}. */
        String label() {
            return PartitionRows.label(partitions);
        }
    }

    /** The rows as {@link #into} prints them: the table and the plan's page group partitions alike. */
    List<Group> groups() {
        List<Group> rows = new ArrayList<>(groups.size());
        groups.forEach((key, partitions) -> rows.add(new Group(List.copyOf(partitions),
                List.copyOf(key.subList(0, key.size() - 1)), key.get(key.size() - 1))));
        return rows;
    }

    /** Each group as one row of {@code table}: the partitions, then the cells, then the note, in the order first seen. */
    void into(Table table) {
        into(groups(), table);
    }

    /** {@code groups} as rows of {@code table}: the partitions, then the cells, then the note. */
    static void into(List<Group> groups, Table table) {
        for (Group group : groups) {
            Object[] cells = new Object[group.cells().size() + 1];
            cells[0] = group.label();
            for (int i = 0; i < group.cells().size(); i++) {
                cells[i + 1] = group.cells().get(i);
            }
            table.row(cells);
            if (group.note() != null) {
                table.note(group.note());
            }
        }
    }

    /** {@code orders-0}; {@code orders-0..3,7, payments-2 (6 partitions)}; cut to about {@link #LABEL_WIDTH}. */
    public static String label(List<TopicPartition> partitions) {
        if (partitions.size() == 1) {
            return partitions.get(0).toString();
        }
        Map<String, TreeSet<Integer>> byTopic = new LinkedHashMap<>();
        partitions.forEach(tp -> byTopic.computeIfAbsent(tp.topic(), t -> new TreeSet<>()).add(tp.partition()));
        List<String> parts = new ArrayList<>();
        byTopic.forEach((topic, numbers) -> parts.add(topic + "-" + runs(numbers)));
        String all = String.join(", ", parts);
        String count = " (" + partitions.size() + " partitions)";
        if (all.length() <= LABEL_WIDTH) {
            return all + count;
        }
        int cut = Math.max(all.lastIndexOf(',', LABEL_WIDTH), 1);
        return all.substring(0, cut) + " …" + count;
    }

    /** {@code 0..3,7,9..10}: consecutive partition numbers as runs. */
    private static String runs(TreeSet<Integer> numbers) {
        StringBuilder out = new StringBuilder();
        Integer start = null;
        Integer previous = null;
        for (int n : numbers) {
            if (previous != null && n == previous + 1) {
                previous = n;
                continue;
            }
            appendRun(out, start, previous);
            start = n;
            previous = n;
        }
        appendRun(out, start, previous);
        return out.toString();
    }

    private static void appendRun(StringBuilder out, Integer start, Integer end) {
        if (start == null) {
            return;
        }
        if (out.length() > 0) {
            out.append(',');
        }
        out.append(start);
        if (end > start) {
            out.append(end == start + 1 ? "," : "..").append(end);
        }
    }
}
