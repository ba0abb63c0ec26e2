// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.cli.DocCodeBlocks.CodeBlock;
import dev.uncleanrecovery.cli.DocCodeBlocks.DocumentedCommand;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The code in the operators' docs fits a 120-column terminal, and commands are read from it as a shell reads them. */
class DocCodeLinesTest {

    private static final int COLUMNS = 120;

    static List<Path> docs() throws Exception {
        List<Path> docs = new ArrayList<>(List.of(Path.of("README.md")));
        try (Stream<Path> files = Files.list(Path.of("docs"))) {
            files.filter(f -> f.toString().endsWith(".md")).sorted().forEach(docs::add);
        }
        return docs;
    }

    @Test
    void every_line_of_a_code_block_in_the_docs_is_at_most_120_columns() throws Exception {
        List<String> tooLong = new ArrayList<>();
        for (Path doc : docs()) {
            for (CodeBlock block : DocCodeBlocks.of(doc)) {
                for (int i = 0; i < block.lines().size(); i++) {
                    String line = block.lines().get(i);
                    if (line.codePointCount(0, line.length()) > COLUMNS) {
                        tooLong.add(doc + ":" + (block.firstLine() + i) + " has " + line.length() + " columns");
                    }
                }
            }
        }
        assertThat(DocCodeBlocks.of(Path.of("docs", "runbook.md"))).isNotEmpty();
        assertThat(tooLong).as("wrap them with a backslash at the end of the line").isEmpty();
    }

    @Test
    void every_documented_command_is_run_on_a_cluster_or_said_why_not() throws Exception {
        // the cluster test runs these; here, without a cluster, a command added to the docs or gone from them
        assertThat(DocumentedCommands.runs()).hasSizeGreaterThan(20);
        List<String> documented = new ArrayList<>();
        for (Path doc : DocumentedCommands.DOCS) {
            DocCodeBlocks.commands(doc).forEach(c -> documented.add(c.command()));
        }
        assertThat(DocumentedCommands.NOT_RUN.keySet()).as("every reason not to run a command is a documented"
                + " command's").allSatisfy(start -> assertThat(documented).anyMatch(c -> c.startsWith(start)));
    }

    @Test
    void a_command_continued_with_a_backslash_is_one_command_and_comments_are_none(@TempDir Path dir)
            throws Exception {
        Path doc = Files.writeString(dir.resolve("doc.md"), """
                Text.

                ```bash
                # a comment
                tool status --bootstrap-server $BOOTSTRAP

                tool execute --plan p.json \\
                  --reason "$REASON"   # a note
                ```

                - In a list:

                  ```sh
                  tool plan --output-file plan.json
                  ```

                ```json
                {"not": "a command"}
                ```
                """);

        assertThat(DocCodeBlocks.of(doc)).extracting(CodeBlock::language).containsExactly("bash", "sh", "json");
        assertThat(DocCodeBlocks.commands(doc)).containsExactly(
                new DocumentedCommand(doc, 5, "tool status --bootstrap-server $BOOTSTRAP"),
                new DocumentedCommand(doc, 7, "tool execute --plan p.json   --reason \"$REASON\"   # a note"),
                new DocumentedCommand(doc, 14, "tool plan --output-file plan.json"));
    }
}
