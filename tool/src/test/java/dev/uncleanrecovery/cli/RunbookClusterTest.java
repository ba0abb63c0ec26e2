// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.formats.AuditLine;
import dev.uncleanrecovery.formats.ResultFile;
import dev.uncleanrecovery.formats.RunLockFate;
import dev.uncleanrecovery.formats.Sha256;
import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.LastReplicaStandingOutage;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.PartitionView;
import dev.uncleanrecovery.localcluster.RecordCount;
import dev.uncleanrecovery.salvage.SalvageDirectory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/runbook.md, run as written: every command of its {@code sh} blocks, in the runbook's order, against a real
 * last-replica-standing outage whose dead last leader's disk survived, each in a JVM of its own in one working
 * directory, as an operator pastes them.
 */
@KafkaClusterTest
class RunbookClusterTest {

    // The steps are the blocks at the start of a line; an indented block belongs to a note under a step (aftermath)
    private static final Pattern SH_BLOCK = Pattern.compile("^```sh\\n(.*?)^```", Pattern.DOTALL | Pattern.MULTILINE);

    static List<String> commands() throws Exception {
        Matcher block = SH_BLOCK.matcher(Files.readString(Path.of("docs", "runbook.md")));
        List<String> commands = new ArrayList<>();
        while (block.find()) {
            block.group(1).lines().filter(l -> !l.isBlank()).forEach(commands::add);
        }
        return commands;
    }

    private static final String REASON = "INC-4711-runbook";

    @Test
    void the_runbook_recovers_the_outage_step_by_step(LocalKafkaCluster cluster, @TempDir Path dir) throws Exception {
        LastReplicaStandingOutage.Result outage = LastReplicaStandingOutage.reproduce(cluster, "orders", 2, 50, 10, s -> { });
        int dead = LastReplicaStandingOutage.LAST_LEADER;
        List<String> commands = commands();
        assertThat(commands).extracting(c -> c.split(" ")[1])
                .containsExactly("status", "inspect", "plan", "plan", "inspect", "execute", "execute", "status");

        List<Integer> exits = new ArrayList<>();
        StringBuilder transcript = new StringBuilder();
        for (String line : commands) {
            // one word, as the shell passes "$REASON" to the tool: one argument
            String command = line.replace("\"$REASON\"", REASON).replace("$BOOTSTRAP", cluster.bootstrapServers())
                    .replace("$LOG_DIRS", cluster.logDir(dead).toString())
                    .replace("$BROKER", Integer.toString(dead));
            assertThat(command).startsWith("kafka-unclean-recovery.sh ").doesNotContain("$");
            List<String> args = List.of(command.substring("kafka-unclean-recovery.sh ".length()).split(" +"));
            int exit = run(dir, args, transcript.append("$ ").append(command).append('\n'));
            exits.add(exit);
        }
        String said = transcript.toString();
        // status: offline; inspect: read; balanced may wait for broker 1; proactive decides; the salvage, the dry
        // run and the election succeed; status: nothing offline any more
        assertThat(exits.get(0)).as(said).isEqualTo(ExitCode.ATTENTION);
        assertThat(exits.subList(1, 2)).as(said).containsOnly(ExitCode.OK);
        assertThat(exits.get(2)).as(said).isIn(ExitCode.OK, ExitCode.ATTENTION);
        assertThat(exits.subList(3, 8)).as(said).containsOnly(ExitCode.OK);

        for (TopicPartition tp : outage.topicPartitions()) {
            PartitionView now = cluster.metadata().describePartition(tp);
            assertThat(now.leader()).as(said).isEqualTo(LastReplicaStandingOutage.LONGEST_SURVIVOR);
        }
        assertThat(RecordCount.readable(cluster, outage.topicPartitions(), Duration.ofSeconds(60)))
                .isEqualTo(outage.survivorLogEndOffsets().get(LastReplicaStandingOutage.LONGEST_SURVIVOR)
                        * outage.topicPartitions().size());
        // the pages the runbook writes name every partition; the second says each was elected
        String planPage = Files.readString(dir.resolve("plan-proactive.html"));
        String resultPage = Files.readString(dir.resolve("result.html"));
        for (TopicPartition tp : outage.topicPartitions()) {
            assertThat(planPage).contains(tp.toString());
            assertThat(resultPage).contains(tp.toString());
        }
        assertThat(planPage).contains("<svg class=\"logs wide\"", "Nothing has been changed");
        assertThat(resultPage).contains("<h1>Recovery result</h1>", "plan-proactive-result.json", ">ELECTED");
        // what broker 1 alone had, its acks=1 records, was copied off its disk before anyone restarted it
        var salvaged = SalvageDirectory.read(dir.resolve("plan-proactive-salvage")).ranges();
        assertThat(salvaged).as(said).hasSize(outage.topicPartitions().size());
        assertThat(salvaged).allSatisfy(s -> assertThat(s.manifest().records()).isEqualTo(outage.ackedByLeaderOnly()));

        // the election is in the audit log beside the plan: STARTED before it, FINISHED with each partition's outcome;
        // the dry run wrote nothing
        List<AuditLine> audit = AuditLine.readAll(dir.resolve(AuditLine.FILE_NAME));
        assertThat(dir.resolve("plan-proactive-result.json")).exists();
        assertThat(audit).as(said).extracting(AuditLine::event)
                .containsExactly(AuditLine.Event.STARTED, AuditLine.Event.FINISHED);
        AuditLine started = audit.get(0);
        AuditLine finished = audit.get(1);
        assertThat(started.runId()).isEqualTo(finished.runId());
        assertThat(started.command()).isEqualTo("execute");
        assertThat(started.reason()).isEqualTo(REASON);
        assertThat(started.planFile()).isEqualTo(dir.resolve("plan-proactive.json").toAbsolutePath().toString());
        assertThat(started.planSha256()).isEqualTo(Sha256.hex(Files.readAllBytes(dir.resolve("plan-proactive.json"))));
        assertThat(finished.exitCode()).isEqualTo(ExitCode.OK);
        assertThat(finished.resultFile()).isEqualTo(dir.resolve("plan-proactive-result.json").toAbsolutePath().toString());
        assertThat(finished.salvageDir()).isEqualTo(dir.resolve("plan-proactive-salvage").toAbsolutePath().toString());
        // the run lock was removed at the end: the audit and the result file say so, with its id
        assertThat(finished.runLock().fate()).isEqualTo(RunLockFate.Fate.RELEASED);
        assertThat(ResultFile.read(dir.resolve("plan-proactive-result.json")).runLock()).isEqualTo(finished.runLock());
        assertThat(finished.outcomes()).as(said).hasSize(outage.topicPartitions().size()).allSatisfy(o -> {
            assertThat(o.outcome()).isEqualTo("ELECTED");
            assertThat(o.leader()).isEqualTo(LastReplicaStandingOutage.LONGEST_SURVIVOR);
        });
        assertThat(finished.outcomes()).extracting(o -> new TopicPartition(o.topic(), o.partition()))
                .containsExactlyInAnyOrderElementsOf(outage.topicPartitions());
    }

    private static int run(Path dir, List<String> args, StringBuilder transcript) throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "dev.uncleanrecovery.cli.Main"));
        command.addAll(args);
        Path output = Files.createTempFile(dir, "step-", ".out");
        Process step = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(output.toFile()).start();
        if (!step.waitFor(180, TimeUnit.SECONDS)) {
            step.destroyForcibly();
            throw new IllegalStateException(args + " did not finish within 180 s");
        }
        transcript.append(Files.readString(output, StandardCharsets.UTF_8)).append("(exit ").append(step.exitValue())
                .append(")\n");
        Files.delete(output);
        return step.exitValue();
    }
}
