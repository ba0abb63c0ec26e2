// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Help;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;
import picocli.CommandLine.Model.UsageMessageSpec;

/**
 * picocli's usage help, its lines broken at spaces only. picocli breaks where the JDK's line BreakIterator allows,
 * which is also after '.', ',', ':' and '/' inside a word ("sasl." / "*", "kafka-leader-election." / "sh",
 * "HOST:" / "PORT"): a name or a command split that way cannot be read or pasted. Every table of the help is made
 * here, with the same columns as picocli's.
 */
final class SpaceWrappedHelp extends Help {

    /** picocli's bound on the synopsis' indent, as a share of the width (private in UsageMessageSpec). */
    private static final double MAX_SYNOPSIS_INDENT = 0.9;

    SpaceWrappedHelp(CommandSpec command, ColorScheme colorScheme) {
        super(command, colorScheme);
    }

    @Override
    public Layout createDefaultLayout(List<OptionSpec> options, List<PositionalParamSpec> positionals,
                                      ColorScheme scheme) {
        TextTable picocli = TextTable.forDefaultColumns(scheme, calcLongOptionColumnWidth(options, positionals, scheme),
                width());
        return new Layout(scheme, table(scheme, picocli.columns()), createDefaultOptionRenderer(),
                createDefaultParameterRenderer());
    }

    @Override
    protected String insertSynopsisCommandName(int headingLength, Ansi.Text details) {
        // as picocli: the later lines start under the first option, or further left when the name is long; and
        // under the name when an option ("[--broker-address=ID=HOST:PORT[,ID=HOST:PORT...]]...") would not fit
        UsageMessageSpec usage = commandSpec().usageMessage();
        String name = commandSpec().qualifiedName();
        int indent = headingLength + name.length() + 1;
        if (indent > usage.synopsisAutoIndentThreshold() * width()) {
            indent = usage.synopsisIndent() < 0 ? headingLength : usage.synopsisIndent();
            indent = Math.min(indent, (int) (MAX_SYNOPSIS_INDENT * width()));
        }
        int longestWord = Arrays.stream(details.plainString().split(" ")).mapToInt(String::length).max().orElse(0);
        if (indent + longestWord > width()) {
            indent = headingLength;
        }
        TextTable table = table(colorScheme(), new Column(width(), 0, Column.Overflow.SPAN));
        table.indentWrappedLines = indent;
        // the heading ("Usage: ") is printed before this: its room is kept, then cut off
        Ansi.Text heading = Ansi.OFF.new Text("X".repeat(headingLength), colorScheme());
        table.addRowValues(heading.concat(colorScheme().commandText(name)).concat(details));
        return table.toString().substring(headingLength);
    }

    @Override
    public String description(Object... params) {
        return paragraphs(commandSpec().usageMessage().description(), params);
    }

    @Override
    public String header(Object... params) {
        return paragraphs(commandSpec().usageMessage().header(), params);
    }

    @Override
    public String footer(Object... params) {
        return paragraphs(commandSpec().usageMessage().footer(), params);
    }

    @Override
    public TextTable createTextTable(Map<?, ?> map) {
        // the exit code list: the codes, then what each means
        int spacing = 3;
        int keyLength = Math.min(width() - spacing - 1,
                map.keySet().stream().mapToInt(key -> String.valueOf(key).length()).max().orElse(7));
        TextTable table = table(colorScheme(), new Column(keyLength + spacing, 2, Column.Overflow.SPAN),
                new Column(width() - (keyLength + spacing), 2, Column.Overflow.WRAP));
        map.forEach((key, value) -> table.addRowValues(String.valueOf(key), String.valueOf(value)));
        return table;
    }

    @Override
    public String commandList(Map<String, Help> subcommands) {
        if (subcommands.isEmpty()) {
            return "";
        }
        int nameLength = Math.min(width() / 2, subcommands.keySet().stream().mapToInt(String::length).max().orElse(0));
        TextTable table = table(colorScheme(), new Column(nameLength + 2, 2, Column.Overflow.SPAN),
                new Column(width() - (nameLength + 2), 2, Column.Overflow.WRAP));
        subcommands.values().forEach(help -> {
            UsageMessageSpec usage = help.commandSpec().usageMessage();
            String summary = usage.header().length > 0 ? usage.header()[0]
                    : usage.description().length > 0 ? usage.description()[0] : "";
            Ansi.Text[] lines = colorScheme().text(summary).splitLines();
            for (int i = 0; i < lines.length; i++) {
                table.addRowValues(i == 0 ? help.commandNamesText(", ") : colorScheme().text(""), lines[i]);
            }
        });
        return table.toString();
    }

    private String paragraphs(String[] lines, Object... params) {
        TextTable table = table(colorScheme(), new Column(width(), 0, Column.Overflow.SPAN));
        table.indentWrappedLines = 0;
        for (String line : lines) {
            table.addRowValues(String.format(line, params));
        }
        return table.toString();
    }

    private int width() {
        return commandSpec().usageMessage().width();
    }

    private static TextTable table(ColorScheme scheme, Column... columns) {
        return new SpaceWrappedTable(scheme, columns);
    }

    /** picocli's table, but a value that wraps is broken at its spaces, as far right as each line allows. */
    private static final class SpaceWrappedTable extends TextTable {

        private final ColorScheme scheme;

        SpaceWrappedTable(ColorScheme scheme, Column[] columns) {
            super(scheme, columns);
            this.scheme = scheme;
        }

        @Override
        public Cell putValue(int row, int col, Ansi.Text value) {
            Column[] columns = columns();
            Column column = columns[col];
            // picocli wraps the last column and WRAP columns; any other SPAN column spills into the next one whole
            boolean wraps = column.overflow == Column.Overflow.WRAP
                    || column.overflow == Column.Overflow.SPAN && col == columns.length - 1;
            String plain = value == null ? "" : value.plainString();
            if (!wraps || plain.isEmpty()) {
                return super.putValue(row, col, value);
            }
            Cell written = null;
            int start = 0;
            int room = column.width - column.indent;
            while (start < plain.length()) {
                int end = lineEnd(plain, start, room);
                Ansi.Text line = value.substring(start, end);
                if (written != null) {
                    addEmptyRow();
                    line = scheme.ansi().new Text(" ".repeat(indentWrappedLines), scheme).concat(line);
                }
                // the line fits: picocli writes it whole (a word longer than a line, it breaks as it would)
                written = super.putValue(written == null ? row : written.row + 1, col, line);
                start = end;
                while (start < plain.length() && plain.charAt(start) == ' ') {
                    start++;
                }
                room = column.width - column.indent - indentWrappedLines;
            }
            return written;
        }

        /**
         * Where the line that starts at {@code start} ends: at the last space that leaves it within {@code room}, or
         * after its first word when that word alone is longer.
         */
        private static int lineEnd(String text, int start, int room) {
            if (text.length() - start <= room) {
                return text.length();
            }
            int word = start;
            while (word < text.length() && text.charAt(word) == ' ') {
                word++;
            }
            int space = text.lastIndexOf(' ', start + room);
            if (space > word) {
                return space;
            }
            int next = text.indexOf(' ', word);
            return next < 0 ? text.length() : next;
        }
    }
}
