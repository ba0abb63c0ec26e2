// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The fenced code blocks of a Markdown file, indented ones (a block in a list item) included, and the shell commands
 * of its {@code sh} and {@code bash} blocks as a shell reads them: a line ending in a backslash goes on in the next.
 */
final class DocCodeBlocks {

    private static final Pattern FENCE = Pattern.compile("^( *)```(\\S*)\\s*$");

    /**
     * @param firstLine the 1-based line of the block's first line in its file
     * @param lines     the block's lines as written, indentation included
     */
    record CodeBlock(Path file, String language, int indentation, int firstLine, List<String> lines) {

        boolean isShell() {
            return language.equals("sh") || language.equals("bash");
        }
    }

    /**
     * @param line    the 1-based line the command starts on
     * @param command the command as the shell runs it: its lines joined where one ends in a backslash
     */
    record DocumentedCommand(Path file, int line, String command) {

        @Override
        public String toString() {
            return file + ":" + line + ": " + command;
        }
    }

    private DocCodeBlocks() {
    }

    static List<CodeBlock> of(Path markdown) throws IOException {
        List<String> lines = Files.readAllLines(markdown);
        List<CodeBlock> blocks = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher open = FENCE.matcher(lines.get(i));
            if (!open.matches()) {
                continue;
            }
            int start = i + 1;
            int end = start;
            while (end < lines.size() && !FENCE.matcher(lines.get(end)).matches()) {
                end++;
            }
            if (end == lines.size()) {
                throw new IllegalStateException(markdown + ":" + (i + 1) + ": a code block that is never closed");
            }
            blocks.add(new CodeBlock(markdown, open.group(2), open.group(1).length(), start + 1,
                    List.copyOf(lines.subList(start, end))));
            i = end;
        }
        return blocks;
    }

    /** Every command of the file's shell blocks, in order; blank lines and whole-line comments are no commands. */
    static List<DocumentedCommand> commands(Path markdown) throws IOException {
        List<DocumentedCommand> commands = new ArrayList<>();
        for (CodeBlock block : of(markdown)) {
            if (!block.isShell()) {
                continue;
            }
            StringBuilder command = new StringBuilder();
            int startLine = 0;
            for (int i = 0; i < block.lines().size(); i++) {
                String line = block.lines().get(i);
                String text = line.substring(Math.min(block.indentation(), leadingSpaces(line)));
                if (command.isEmpty() && (text.isBlank() || text.startsWith("#"))) {
                    continue;
                }
                if (command.isEmpty()) {
                    startLine = block.firstLine() + i;
                }
                // bash drops a backslash-newline pair, and nothing else, from the input it reads
                if (text.endsWith("\\")) {
                    command.append(text, 0, text.length() - 1);
                } else {
                    commands.add(new DocumentedCommand(markdown, startLine, command.append(text).toString()));
                    command.setLength(0);
                }
            }
            if (!command.isEmpty()) {
                throw new IllegalStateException(markdown + ":" + startLine + ": the block ends in a continued line");
            }
        }
        return commands;
    }

    private static int leadingSpaces(String line) {
        int n = 0;
        while (n < line.length() && line.charAt(n) == ' ') {
            n++;
        }
        return n;
    }
}
