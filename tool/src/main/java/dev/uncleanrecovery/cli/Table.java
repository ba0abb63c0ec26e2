// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** A plain text table for people: left-aligned columns, two spaces apart. */
final class Table {

    private final List<String> header;
    private final List<List<String>> rows = new ArrayList<>();

    Table(String... header) {
        this.header = List.of(header);
    }

    Table row(Object... cells) {
        rows.add(Arrays.stream(cells).map(c -> c == null ? "-" : c.toString()).toList());
        return this;
    }

    boolean isEmpty() {
        return rows.isEmpty();
    }

    void print(PrintWriter out) {
        int[] widths = new int[header.size()];
        for (int i = 0; i < widths.length; i++) {
            widths[i] = header.get(i).length();
            for (List<String> row : rows) {
                widths[i] = Math.max(widths[i], row.get(i).length());
            }
        }
        // One write for the whole table: the command's writer flushes at every line, and a plan has thousands.
        StringBuilder text = new StringBuilder();
        appendRow(text, header, widths);
        for (List<String> row : rows) {
            appendRow(text, row, widths);
        }
        out.print(text);
        out.flush();
    }

    private static void appendRow(StringBuilder text, List<String> cells, int[] widths) {
        int start = text.length();
        for (int i = 0; i < cells.size(); i++) {
            String cell = cells.get(i);
            text.append(cell);
            if (i < cells.size() - 1) {
                text.append(" ".repeat(widths[i] - cell.length() + 2));
            }
        }
        int end = text.length();
        while (end > start && Character.isWhitespace(text.charAt(end - 1))) {
            end--;
        }
        text.setLength(end);
        text.append(System.lineSeparator());
    }

    static String ids(List<Integer> ids) {
        return ids.toString().replace(" ", "");
    }
}
