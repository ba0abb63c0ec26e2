// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import dev.uncleanrecovery.UserInputException;
import dev.uncleanrecovery.formats.Json;
import dev.uncleanrecovery.formats.Plan;
import dev.uncleanrecovery.formats.PlanFile;
import dev.uncleanrecovery.formats.ResultFile;
import dev.uncleanrecovery.support.RunFiles;
import dev.uncleanrecovery.view.PlanPage;
import dev.uncleanrecovery.view.PlanPrinter;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

@Command(name = "render", mixinStandardHelpOptions = true, sortOptions = false,
        header = "Show a plan file, and a result file of it, as tables (--text) or an HTML page (--html); no cluster"
                + " needed.",
        description = {"Show a plan (and what 'execute' did with it, from its result file) from the files alone: with"
                + " --text as the tables 'plan' and 'execute' print, with --html as one self-contained HTML page, as"
                + " 'plan --html' and 'execute --html' write it. To review a plan copied to another machine. Reads only"
                + " the files; never connects."},
        exitCodeListHeading = ExitCode.HELP_HEADING,
        exitCodeList = {"0:shown or written", ExitCode.FAILURE_HELP, ExitCode.USAGE_HELP + " (a file cannot be read,"
                + " --html names a file that exists or cannot be created, the result is not of the plan)"})
public class RenderCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @ParentCommand
    RootCommand root;

    @Mixin
    PlanFileOption planFile;

    @Option(names = "--result-file", paramLabel = "FILE",
            description = "The result file 'execute' wrote for this plan (<plan>-result.json by default).")
    Path resultFile;

    /** The name --result-file had here before every command spelled it the same. */
    @Option(names = "--result", paramLabel = "FILE", hidden = true)
    Path resultFileAsItWas;

    @Option(names = "--html", paramLabel = "FILE", description = "Write the page here: a new file, never over one.")
    Path html;

    @Option(names = "--text", description = "Print the tables instead, at most 120 columns wide.")
    boolean text;

    @Override
    public Integer call() throws Exception {
        if (resultFile != null && resultFileAsItWas != null) {
            throw new UserInputException("--result is --result-file: give it once");
        }
        Path resultFile = this.resultFile != null ? this.resultFile : resultFileAsItWas;
        if (text == (html != null)) {
            throw new UserInputException("render shows the files either as tables (--text) or as a page (--html FILE):"
                    + " give one of them");
        }
        boolean json = root.global.output == GlobalOptions.OutputFormat.json;
        if (text && json) {
            throw new UserInputException("--text prints tables, --output json JSON: the plan and result files are the"
                    + " JSON; give one of them");
        }
        new RunFiles().reads("--plan", planFile.path).reads("--result-file", resultFile).creates("--html", html).check();
        Plan plan = PlanFile.read(planFile.path);
        ResultFile result = resultFile == null ? null : ResultFile.read(resultFile);
        PrintWriter out = spec.commandLine().getOut();
        if (text) {
            PlanPrinter.print(plan, planFile.path.toString(), result,
                    resultFile == null ? null : resultFile.getFileName().toString(), out);
            return ExitCode.OK;
        }
        PlanPage.write(html, plan, planFile.path.getFileName().toString(), result,
                resultFile == null ? null : resultFile.getFileName().toString());
        Written written = new Written(html.toAbsolutePath().toString(), Files.size(html), plan.partitions().size(),
                plan.skipped().size());
        if (json) {
            out.println(Json.mapper().writeValueAsString(written));
        } else {
            out.println("Page written to " + written.page() + " (" + written.bytes() + " bytes, "
                    + written.partitions() + " partition(s) to elect, " + written.skipped() + " skipped; open it in a"
                    + " browser).");
        }
        return ExitCode.OK;
    }

    /** What was written, as {@code --output json} says it. */
    record Written(String page, long bytes, int partitions, int skipped) {
    }
}
