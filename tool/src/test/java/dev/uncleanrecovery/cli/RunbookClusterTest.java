// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.cli.DocumentedCommands.Dir;
import dev.uncleanrecovery.cli.DocumentedCommands.Run;
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
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The docs run as written: every command of every {@code sh} and {@code bash} block of docs/runbook.md, README.md,
 * docs/reference.md and docs/salvage.md, run by bash exactly as printed (its placeholders {@code $BOOTSTRAP},
 * {@code $LOG_DIRS}, {@code $BROKER} and {@code $REASON} set as the runbook says), each in a JVM of its own, against
 * one real last-replica-standing outage whose dead last leader's disk survived. README's short version meets it first
 * and elects nothing (balanced waits for the last leader); the runbook recovers it step by step; the other docs'
 * commands then run against the recovered cluster. A documented command that no longer parses, exits
 * otherwise than it should, or is added without saying what it must exit with fails the test; the few not run here
 * say why ({@link DocumentedCommands#NOT_RUN}).
 */
@KafkaClusterTest
class RunbookClusterTest {

    // with spaces, as an operator's: "$REASON" must reach the tool as one argument
    private static final String REASON = "INC-4711 orders offline after broker 1 died";

    @Test
    void the_docs_commands_run_as_written_and_the_runbook_recovers_the_outage(LocalKafkaCluster cluster,
                                                                              @TempDir Path dir) throws Exception {
        LastReplicaStandingOutage.Result outage =
                LastReplicaStandingOutage.reproduce(cluster, "orders", 2, 50, 10, s -> { });
        int dead = LastReplicaStandingOutage.LAST_LEADER;
        Map<Dir, Path> dirs = Map.of(Dir.INCIDENT, Files.createDirectory(dir.resolve("incident")),
                Dir.AFTER_RECOVERY, dir.resolve("incident"), Dir.README, Files.createDirectory(dir.resolve("readme")),
                Dir.REPLAY, Files.createDirectory(dir.resolve("replay")));
        Path incident = dirs.get(Dir.INCIDENT);
        Shell shell = new Shell(dir, Map.of("BOOTSTRAP", cluster.bootstrapServers(),
                "LOG_DIRS", cluster.logDir(dead).toString(), "BROKER", Integer.toString(dead), "REASON", REASON));
        // what the operator has at hand: the approver's SSH key and the allowed_signers file naming it, and a client
        // config for this plaintext listener
        Path key = sshKey(shell.home.resolve(".ssh").resolve("id_ed25519"));
        Path signers = Files.writeString(incident.resolve("allowed_signers"),
                "alice@example.com " + Files.readString(Path.of(key + ".pub")));
        Files.setPosixFilePermissions(signers, PosixFilePermissions.fromString("rw-r--r--"));
        Files.writeString(dirs.get(Dir.README).resolve("admin.properties"), "security.protocol=PLAINTEXT\n");
        // replay does not create its target topic: the operator does, with a partition for each salvaged one
        try (Admin admin = cluster.createAdmin()) {
            admin.createTopics(List.of(new NewTopic("orders-salvaged", 2, (short) 2))).all().get(60, TimeUnit.SECONDS);
        }

        List<Run> runs = DocumentedCommands.runs();
        long start = System.nanoTime();
        StringBuilder transcript = new StringBuilder();
        List<String> unexpected = new ArrayList<>();
        for (Dir phase : Dir.values()) {
            if (phase == Dir.REPLAY) {
                // README's replay example names the files of its plan.json: the runbook's, copied under those names
                copyTree(incident.resolve("plan-proactive-salvage"), dirs.get(Dir.REPLAY).resolve("plan-salvage"));
                Files.copy(incident.resolve("plan-proactive-result.json"),
                        dirs.get(Dir.REPLAY).resolve("plan-result.json"));
            }
            for (Run run : runs) {
                if (run.expected().dir() != phase) {
                    continue;
                }
                int exit = shell.run(dirs.get(phase), run.documented().command(), transcript);
                if (!run.expected().exits().contains(exit)) {
                    unexpected.add(run.documented() + " exited " + exit + ", not " + run.expected().exits());
                }
            }
        }
        // the time the docs' commands add to the build, beside the cluster's start and the outage
        System.out.printf("%d documented commands ran in %d s%n", runs.size(),
                TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start));
        String said = transcript.toString();
        assertThat(unexpected).as(said).isEmpty();

        for (TopicPartition tp : outage.topicPartitions()) {
            PartitionView now = cluster.metadata().describePartition(tp);
            assertThat(now.leader()).as(said).isEqualTo(LastReplicaStandingOutage.LONGEST_SURVIVOR);
        }
        assertThat(RecordCount.readable(cluster, outage.topicPartitions(), Duration.ofSeconds(60)))
                .isEqualTo(outage.survivorLogEndOffsets().get(LastReplicaStandingOutage.LONGEST_SURVIVOR)
                        * outage.topicPartitions().size());
        // the pages the runbook writes name every partition; the second says each was elected
        String planPage = Files.readString(incident.resolve("plan-proactive.html"));
        String resultPage = Files.readString(incident.resolve("result.html"));
        for (TopicPartition tp : outage.topicPartitions()) {
            assertThat(planPage).contains(tp.toString());
            assertThat(resultPage).contains(tp.toString());
        }
        assertThat(planPage).contains("<svg class=\"logs wide\"", "Nothing has been changed");
        assertThat(resultPage).contains("<h1>Recovery result</h1>", "plan-proactive-result.json", ">ELECTED");
        // what broker 1 alone had, its acks=1 records, was copied off its disk before anyone restarted it
        var salvaged = SalvageDirectory.read(incident.resolve("plan-proactive-salvage")).ranges();
        assertThat(salvaged).as(said).hasSize(outage.topicPartitions().size());
        assertThat(salvaged).allSatisfy(s -> assertThat(s.manifest().records()).isEqualTo(outage.ackedByLeaderOnly()));
        // and README's replay produced it into orders-salvaged, once, though salvage.md replays it again
        List<TopicPartition> replayed = List.of(new TopicPartition("orders-salvaged", 0),
                new TopicPartition("orders-salvaged", 1));
        assertThat(RecordCount.readable(cluster, replayed, Duration.ofSeconds(60))).as(said)
                .isEqualTo(outage.ackedByLeaderOnly() * outage.topicPartitions().size());

        // the election is the first run in the audit log beside the plan: STARTED before it, FINISHED with each
        // partition's outcome; the dry run wrote nothing; every later change gives the runbook's reason too
        List<AuditLine> audit = AuditLine.readAll(incident.resolve(AuditLine.FILE_NAME));
        assertThat(audit).as(said).allSatisfy(line -> assertThat(line.reason()).isEqualTo(REASON));
        assertThat(audit.subList(0, 2)).as(said).extracting(AuditLine::event)
                .containsExactly(AuditLine.Event.STARTED, AuditLine.Event.FINISHED);
        AuditLine started = audit.get(0);
        AuditLine finished = audit.get(1);
        assertThat(started.runId()).isEqualTo(finished.runId());
        assertThat(started.command()).isEqualTo("execute");
        Path plan = incident.resolve("plan-proactive.json");
        assertThat(started.planFile()).isEqualTo(plan.toAbsolutePath().toString());
        assertThat(started.planSha256()).isEqualTo(Sha256.hex(Files.readAllBytes(plan)));
        assertThat(finished.exitCode()).isEqualTo(ExitCode.OK);
        Path result = incident.resolve("plan-proactive-result.json");
        assertThat(finished.resultFile()).isEqualTo(result.toAbsolutePath().toString());
        assertThat(finished.salvageDir())
                .isEqualTo(incident.resolve("plan-proactive-salvage").toAbsolutePath().toString());
        // the run lock was removed at the end: the audit and the result file say so, with its id
        assertThat(finished.runLock().fate()).isEqualTo(RunLockFate.Fate.RELEASED);
        assertThat(ResultFile.read(result).runLock()).isEqualTo(finished.runLock());
        assertThat(finished.outcomes()).as(said).hasSize(outage.topicPartitions().size()).allSatisfy(o -> {
            assertThat(o.outcome()).isEqualTo("ELECTED");
            assertThat(o.leader()).isEqualTo(LastReplicaStandingOutage.LONGEST_SURVIVOR);
        });
        assertThat(finished.outcomes()).extracting(o -> new TopicPartition(o.topic(), o.partition()))
                .containsExactlyInAnyOrderElementsOf(outage.topicPartitions());
    }

    /**
     * bash, as the operator's: the placeholders in its environment, {@code kafka-unclean-recovery.sh} on the PATH
     * and in {@code bin/} (a checkout's launcher), both the tool of this build, and a home of its own.
     */
    private static final class Shell {

        private final Path home;
        private final Path launcher;
        private final Map<String, String> environment;

        Shell(Path dir, Map<String, String> placeholders) throws IOException {
            this.home = Files.createDirectories(dir.resolve("home"));
            Path path = Files.createDirectories(dir.resolve("path"));
            this.launcher = Files.writeString(path.resolve(DocumentedCommands.SCRIPT), "#!/bin/sh\nexec '"
                    + Path.of(System.getProperty("java.home"), "bin", "java") + "' -cp '"
                    + System.getProperty("java.class.path") + "' dev.uncleanrecovery.cli.Main \"$@\"\n");
            Files.setPosixFilePermissions(launcher, PosixFilePermissions.fromString("rwx------"));
            this.environment = new java.util.HashMap<>(placeholders);
            environment.put("HOME", home.toString());
            environment.put("PATH", path + ":" + System.getenv("PATH"));
        }

        int run(Path workingDir, String command, StringBuilder transcript) throws Exception {
            Path bin = workingDir.resolve("bin");
            if (!Files.exists(bin)) {
                Files.createDirectory(bin);
                Files.copy(launcher, bin.resolve(DocumentedCommands.SCRIPT));
            }
            Path output = Files.createTempFile(workingDir.getParent(), "step-", ".out");
            ProcessBuilder builder = new ProcessBuilder("bash", "-c", command).directory(workingDir.toFile())
                    .redirectErrorStream(true).redirectOutput(output.toFile());
            builder.environment().putAll(environment);
            Process step = builder.start();
            if (!step.waitFor(180, TimeUnit.SECONDS)) {
                step.destroyForcibly();
                throw new IllegalStateException(command + " did not finish within 180 s");
            }
            transcript.append(workingDir.getFileName()).append("$ ").append(command).append('\n')
                    .append(Files.readString(output, StandardCharsets.UTF_8))
                    .append("(exit ").append(step.exitValue()).append(")\n");
            Files.delete(output);
            return step.exitValue();
        }
    }

    /** A throwaway ed25519 key without passphrase, as the approver's: KEY and KEY.pub. */
    private static Path sshKey(Path key) throws Exception {
        Files.createDirectories(key.getParent());
        Process p = new ProcessBuilder("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "alice@example.com", "-f",
                key.toString()).redirectErrorStream(true).start();
        String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("ssh-keygen (openssh-client) makes the approver's key: " + said).isZero();
        return key;
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path file : files.toList()) {
                Files.copy(file, to.resolve(from.relativize(file).toString()));
            }
        }
    }
}
