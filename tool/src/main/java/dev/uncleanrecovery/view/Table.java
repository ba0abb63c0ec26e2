// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.view;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A plain text table for people: left-aligned columns, two spaces apart. */
public final class Table {

    private final List<String> header;
    private final List<List<String>> rows = new ArrayList<>();
    /** Per row, a paragraph printed under it (null: none), wrapped from the second column on. */
    private final List<String> notes = new ArrayList<>();

    public Table(String... header) {
        this.header = List.of(header);
    }

    public Table row(Object... cells) {
        rows.add(Arrays.stream(cells).map(c -> c == null ? "-" : c.toString()).toList());
        notes.add(null);
        return this;
    }

    /** A paragraph under the last row (a plan's reason): it would make a column too wide to read. */
    public Table note(String text) {
        notes.set(notes.size() - 1, text);
        return this;
    }

    public boolean isEmpty() {
        return rows.isEmpty();
    }

    /** Widest line a table prints: wider cells wrap inside their column. */
    public static final int MAX_WIDTH = 120;
    /** A column is never wrapped narrower than this (or its header). */
    private static final int MIN_COLUMN = 12;

    public void print(PrintWriter out) {
        int[] widths = new int[header.size()];
        for (int i = 0; i < widths.length; i++) {
            widths[i] = header.get(i).length();
            for (List<String> row : rows) {
                widths[i] = Math.max(widths[i], row.get(i).length());
            }
        }
        fit(widths);
        // One write for the whole table: a plan has thousands of lines.
        StringBuilder text = new StringBuilder();
        appendRow(text, header, widths);
        int indent = widths.length > 1 ? widths[0] + 2 : 2;
        for (int r = 0; r < rows.size(); r++) {
            appendRow(text, rows.get(r), widths);
            if (notes.get(r) != null) {
                for (String line : wrap(notes.get(r), MAX_WIDTH - indent)) {
                    text.append(" ".repeat(indent)).append(line).append(System.lineSeparator());
                }
            }
        }
        out.print(text);
        out.flush();
    }

    /**
     * Narrows the widest columns until a line fits in {@link #MAX_WIDTH}: first none below its longest part (up to
     * {@link #LONGEST_PART_KEPT}; see {@link #wrapCell}), so that no value is broken; where that is not enough, none
     * below its header or {@link #MIN_COLUMN}.
     */
    private void fit(int[] widths) {
        int[] wanted = widths.clone();
        if (!fit(widths, this::partFloor)) {
            System.arraycopy(wanted, 0, widths, 0, widths.length);
            fit(widths, this::floor);
        }
    }

    /** Whether the widths could be made to fit, narrowing the widest column first, none below its floor. */
    private static boolean fit(int[] widths, java.util.function.IntUnaryOperator floor) {
        int total = Arrays.stream(widths).sum() + 2 * (widths.length - 1);
        while (total > MAX_WIDTH) {
            int widest = -1;
            for (int i = 0; i < widths.length; i++) {
                if (widths[i] > floor.applyAsInt(i) && (widest < 0 || widths[i] > widths[widest])) {
                    widest = i;
                }
            }
            if (widest < 0) {
                return false;
            }
            int cut = Math.min(total - MAX_WIDTH, widths[widest] - floor.applyAsInt(widest));
            widths[widest] -= cut;
            total -= cut;
        }
        return true;
    }

    /** A part this long or shorter (a group of partitions' label, at most) is never broken when the table can fit. */
    static final int LONGEST_PART_KEPT = 48;

    private int floor(int column) {
        return Math.max(MIN_COLUMN, header.get(column).length());
    }

    /** The column's floor, or its longest part ({@link #wrapCell}) if longer: no part of it is then broken. */
    private int partFloor(int column) {
        int longest = 0;
        for (List<String> row : rows) {
            Matcher part = PART.matcher(row.get(column));
            while (part.find()) {
                longest = Math.max(longest, Math.min(part.group().stripTrailing().length(), LONGEST_PART_KEPT));
            }
        }
        return Math.max(floor(column), longest);
    }

    private static void appendRow(StringBuilder text, List<String> cells, int[] widths) {
        List<List<String>> wrapped = new ArrayList<>();
        int height = 1;
        for (int i = 0; i < cells.size(); i++) {
            List<String> lines = wrapCell(cells.get(i), widths[i]);
            wrapped.add(lines);
            height = Math.max(height, lines.size());
        }
        for (int line = 0; line < height; line++) {
            int start = text.length();
            for (int i = 0; i < cells.size(); i++) {
                String part = line < wrapped.get(i).size() ? wrapped.get(i).get(line) : "";
                text.append(part);
                if (i < cells.size() - 1) {
                    text.append(" ".repeat(widths[i] - part.length() + 2));
                }
            }
            int end = text.length();
            while (end > start && Character.isWhitespace(text.charAt(end - 1))) {
                end--;
            }
            text.setLength(end);
            text.append(System.lineSeparator());
        }
    }

    /**
     * A command for people to paste, indented by {@code indent}: whole on one line when it fits {@link #MAX_WIDTH},
     * else broken before an option (or between words) with shell continuations ({@code " \\"}), the later lines indented four more, so a
     * paste of every line still runs the same command. A word longer than a line stays whole.
     */
    public static void printCommand(PrintWriter out, String command, int indent) {
        String first = " ".repeat(indent);
        String next = " ".repeat(indent + 4);
        StringBuilder line = new StringBuilder(first);
        boolean empty = true;
        for (String word : optionsWithValues(words(command))) {
            // room for " " + word, and for the " \\" this line ends with if another follows
            if (!empty && line.length() + 1 + word.length() + 2 > MAX_WIDTH) {
                out.println(line.append(" \\"));
                line = new StringBuilder(next);
                empty = true;
            }
            line.append(empty ? "" : " ").append(word);
            empty = false;
        }
        out.println(line);
    }

    /** A command's words: a double-quoted one (a reason) stays whole, spaces and all. */
    private static String[] words(String command) {
        List<String> words = new ArrayList<>();
        Matcher word = WORD.matcher(command);
        while (word.find()) {
            words.add(word.group());
        }
        return words.toArray(String[]::new);
    }

    private static final Pattern WORD = Pattern.compile("(?:\"[^\"]*\"|\\S)+");

    /** The words of a command, an option and its value as one ({@code --plan p.json}): broken before options. */
    private static List<String> optionsWithValues(String[] words) {
        List<String> grouped = new ArrayList<>();
        for (String word : words) {
            int last = grouped.size() - 1;
            if (last >= 0 && !word.startsWith("-") && grouped.get(last).startsWith("--")
                    && !grouped.get(last).contains(" ")) {
                grouped.set(last, grouped.get(last) + " " + word);
            } else {
                grouped.add(word);
            }
        }
        return grouped;
    }

    /**
     * A line of text that may be long (a reason, a broker's error) in lines of at most {@link #MAX_WIDTH}, the
     * continuation lines indented by {@code indent} spaces.
     */
    public static void printWrapped(PrintWriter out, String text, int indent) {
        String first = wrap(text, MAX_WIDTH).get(0);
        out.println(first);
        // the rest as it was, not the first wrap's pieces joined: a word longer than a line gains no space
        String rest = text.substring(first.length());
        rest = rest.startsWith(" ") ? rest.substring(1) : rest;
        if (!rest.isEmpty()) {
            for (String line : wrap(rest, MAX_WIDTH - indent)) {
                out.println(" ".repeat(indent) + line);
            }
        }
    }

    /**
     * A cell in lines of at most {@code width}: broken after the "; " between entries or the ", " between the parts
     * of one, so that a value ("LEO 400", "[200..400)", "20 never committed") stays on one line; a part longer than a
     * line is broken after spaces.
     */
    static List<String> wrapCell(String cell, int width) {
        List<String> lines = new ArrayList<>();
        StringBuilder line = new StringBuilder();
        Matcher part = PART.matcher(cell);
        while (part.find()) {
            String token = part.group();
            if (token.isEmpty()) {
                continue;
            }
            if (line.length() > 0 && (line + token).stripTrailing().length() > width) {
                lines.add(line.toString().stripTrailing());
                line.setLength(0);
            }
            if (line.length() == 0 && token.stripTrailing().length() > width) {
                List<String> broken = wrap(token.stripTrailing(), width);
                lines.addAll(broken.subList(0, broken.size() - 1));
                line.append(broken.get(broken.size() - 1)).append(token.substring(token.stripTrailing().length()));
            } else {
                line.append(token);
            }
        }
        if (line.length() > 0 || lines.isEmpty()) {
            lines.add(line.toString().stripTrailing());
        }
        return lines;
    }

    /** A part of a cell and the separator after it: up to and including "; " or ", ", or the rest. */
    private static final Pattern PART = Pattern.compile(".*?(?:[;,] |$)");

    /** The text in lines of at most {@code width}, broken after spaces where it can be. */
    static List<String> wrap(String cell, int width) {
        List<String> lines = new ArrayList<>();
        String rest = cell;
        while (rest.length() > width) {
            int brk = rest.lastIndexOf(' ', width);
            // a break in the indentation would leave a line of spaces: a word longer than the line is cut instead
            if (brk <= 0 || rest.substring(0, brk).isBlank()) {
                brk = width;
                lines.add(rest.substring(0, brk));
                rest = rest.substring(brk);
            } else {
                lines.add(rest.substring(0, brk));
                rest = rest.substring(brk + 1);
            }
        }
        lines.add(rest);
        return lines;
    }

    public static String ids(List<Integer> ids) {
        return ids.toString().replace(" ", "");
    }
}
