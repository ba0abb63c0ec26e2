// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.cli.DocCodeBlocks.DocumentedCommand;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What each command of the {@code sh} and {@code bash} blocks of docs/runbook.md, README.md, docs/reference.md and
 * docs/salvage.md must exit with when {@link RunbookClusterTest} runs it as printed, in the order the docs give them,
 * or why it is not run there.
 */
final class DocumentedCommands {

    static final List<Path> DOCS = List.of(Path.of("docs", "runbook.md"), Path.of("README.md"),
            Path.of("docs", "reference.md"), Path.of("docs", "salvage.md"));

    static final String SCRIPT = "kafka-unclean-recovery.sh";
    /**
     * Where and when a command runs, in this order: README's directory on the outage, the runbook's incident
     * directory during the recovery and after it, README's replay directory.
     */
    enum Dir { README, INCIDENT, AFTER_RECOVERY, REPLAY }

    /**
     * @param fragment a part of the documented command that tells it from its neighbours
     * @param exits    what it may exit with
     */
    record Expected(String fragment, Dir dir, Set<Integer> exits) {
    }

    private static Expected in(Dir dir, String fragment, Integer... exits) {
        return new Expected(fragment, dir, Set.of(exits));
    }

    private static final int OK = ExitCode.OK;
    private static final int ATTENTION = ExitCode.ATTENTION;

    /** Each doc's commands in its order. */
    private static final Map<Path, List<Expected>> EXPECTED = Map.of(
            Path.of("docs", "runbook.md"), List.of(
                    // partitions without a leader
                    in(Dir.INCIDENT, "status --bootstrap-server $BOOTSTRAP", ATTENTION),
                    in(Dir.INCIDENT, "inspect --log-dir $LOG_DIRS --output-file evidence-broker-$BROKER.json", OK),
                    // balanced waits while broker 1 is unknown; with its evidence it decides
                    in(Dir.INCIDENT, "--output-file plan.json", OK, ATTENTION),
                    in(Dir.INCIDENT, "--strategy proactive --output-file plan-proactive.json", OK),
                    // the approval, optional, runs after the recovery: its execute finds nothing left to elect, yet
                    // checks the approval and its signature first
                    in(Dir.AFTER_RECOVERY, "plan approve --plan plan-proactive.json", OK),
                    in(Dir.AFTER_RECOVERY, "--require-approval --allowed-signers allowed_signers", OK),
                    in(Dir.INCIDENT, "inspect --log-dir $LOG_DIRS --salvage-beyond plan-proactive.json", OK),
                    in(Dir.INCIDENT, "--plan plan-proactive.json --dry-run", OK),
                    in(Dir.INCIDENT, "--plan plan-proactive.json --html result.html", OK),
                    in(Dir.INCIDENT, "status --bootstrap-server $BOOTSTRAP", OK),
                    in(Dir.INCIDENT, "consumer-offsets --bootstrap-server $BOOTSTRAP --result-file", OK),
                    in(Dir.INCIDENT, "consumer-offsets --bootstrap-server $BOOTSTRAP --result-file", OK),
                    in(Dir.INCIDENT, "hanging-transactions --bootstrap-server $BOOTSTRAP --result-file", OK),
                    in(Dir.INCIDENT, "hanging-transactions --bootstrap-server $BOOTSTRAP", OK)),
            Path.of("README.md"), List.of(
                    // on the outage, before the runbook: balanced without evidence waits for broker 1, the last
                    // leader, so the plan skips every partition and nothing is elected
                    in(Dir.README, "status --bootstrap-server $BOOTSTRAP", ATTENTION),
                    in(Dir.README, "plan --bootstrap-server $BOOTSTRAP --output-file plan.json", ATTENTION),
                    in(Dir.README, "--plan plan.json --dry-run", OK),
                    in(Dir.README, "--plan plan.json --reset-consumer-offsets", OK),
                    in(Dir.README, "recover --bootstrap-server $BOOTSTRAP --automated-recovery", ATTENTION),
                    in(Dir.README, "--command-config admin.properties --output json", ATTENTION),
                    in(Dir.README, "inspect --log-dir $LOG_DIRS --output-file evidence-broker-1.json", OK),
                    // proactive decides with broker 1's evidence; without --output-file it is only printed
                    in(Dir.README, "--evidence evidence-broker-1.json --strategy proactive", OK),
                    // the runbook's salvage and result file, under the names README gives them
                    in(Dir.REPLAY, "--to-topic orders-salvaged", OK),
                    in(Dir.REPLAY, "--execute --reason", OK)),
            Path.of("docs", "reference.md"), List.of(
                    in(Dir.AFTER_RECOVERY, "plan approve --plan plan.json", OK),
                    // plan.json, the runbook's balanced plan, is applied by then: each partition already recovered
                    in(Dir.AFTER_RECOVERY, "--plan plan.json --reason \"$REASON\" --require-approval", OK)),
            Path.of("docs", "salvage.md"), List.of(
                    // a second replay of the same salvage skips what the first produced
                    in(Dir.REPLAY, "--to-topic orders-salvaged", OK),
                    in(Dir.REPLAY, "--execute --reason", OK)));

    /** Documented commands this test does not run, each with the reason and where else it runs. */
    static final Map<String, String> NOT_RUN = Map.of(
            "tar xzf", "the release archive: dist's ReleaseArchiveTest unpacks the archive the build made",
            "bin/kafka-unclean-recovery.sh --version", "the archive's launcher: dist's ReleaseArchiveTest runs it",
            "bin/kafka-unclean-recovery.sh demo --kafka-home",
            "starts a cluster of its own: dist's ReleaseArchiveDemoClusterTest runs it on an installed Kafka",
            "source completion/", "dist's ReleaseArchiveTest completes commands with it",
            "bin/kafka-unclean-recovery.sh demo ", "starts a cluster of its own, as ReleaseArchiveDemoClusterTest does",
            "mvn -B verify", "the build itself",
            "kafka-acls.sh", "Kafka's own tool: SecuredClusterTest grants these ACLs by Admin, runs the tool under them",
            "KAFKA_OPTS=-javaagent:", "starts a broker: the harness starts Native*ClusterTest's with the agent so",
            "kafka-dump-log.sh", "Kafka's own tool, on a salvage's segment files");

    /** A documented command and what it must exit with. */
    record Run(DocumentedCommand documented, Expected expected) {
    }

    private DocumentedCommands() {
    }

    /**
     * Every documented command not in {@link #NOT_RUN} with what it must exit with; fails on a command with no line
     * here, a line here with no command, or one out of the docs' order.
     */
    static List<Run> runs() throws IOException {
        List<Run> runs = new ArrayList<>();
        List<String> mismatches = new ArrayList<>();
        for (Path doc : DOCS) {
            List<DocumentedCommand> toRun = DocCodeBlocks.commands(doc).stream()
                    .filter(c -> NOT_RUN.keySet().stream().noneMatch(c.command()::startsWith)).toList();
            List<Expected> expected = EXPECTED.get(doc);
            for (int i = 0; i < Math.max(toRun.size(), expected.size()); i++) {
                DocumentedCommand command = i < toRun.size() ? toRun.get(i) : null;
                Expected wanted = i < expected.size() ? expected.get(i) : null;
                boolean isTheTool = command != null && (command.command().startsWith(SCRIPT + " ")
                        || command.command().startsWith("bin/" + SCRIPT + " "));
                if (!isTheTool || wanted == null || !command.command().contains(wanted.fragment())) {
                    mismatches.add(doc + " command " + (i + 1) + ": " + command + "; expected: "
                            + (wanted == null ? "none" : wanted.fragment()));
                } else {
                    runs.add(new Run(command, wanted));
                }
            }
        }
        assertThat(mismatches).as("a documented command not known here, or one known here the docs do not have:"
                + " say in DocumentedCommands what it must exit with, or why it is not run").isEmpty();
        return runs;
    }
}
