// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.LastReplicaStandingOutage;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One incident run as the runbook runs it, on a real cluster: the last leader of orders-0 dies with 10 acks=1
 * records only it holds; {@code inspect} reads its disk, {@code plan --evidence} plans with it, {@code plan approve}
 * signs the plan, {@code inspect --salvage-beyond} copies what broker 1 holds beyond the new log end, and
 * {@code execute --require-approval} elects broker 2. The files it leaves follow their schemas and
 * agree with each other ({@link ExampleFiles}). They are the ones in examples/: {@code -Dexamples.write=true} writes
 * them there again, the run's directory shown as {@value #SHOWN_DIR} and the broker's log dir as
 * {@value #SHOWN_LOG_DIR}.
 */
@KafkaClusterTest
class ExampleFilesClusterTest {

    static final String SHOWN_DIR = "/ops/INC-1234";
    static final String SHOWN_LOG_DIR = "/var/lib/kafka/data";
    private static final String REASON = "INC-1234 orders-0 offline: broker 1 lost, its disk kept";

    @TempDir
    static Path dir;

    @BeforeAll
    static void lastLeaderDiesHoldingAcksOneRecords(LocalKafkaCluster cluster) {
        // broker 1 ends at 410, its last 10 (acks=1) on no other replica; 2 ends at 400, 3 at 200
        LastReplicaStandingOutage.reproduce(cluster, ExampleFiles.ORDERS_0.topic(), 1, 200, 10, step -> { });
    }

    @Test
    void an_incident_leaves_files_that_follow_their_schemas_and_agree_with_each_other(LocalKafkaCluster cluster)
            throws Exception {
        Path run = Files.createDirectory(dir.resolve("INC-1234"));
        String logDir = cluster.logDir(ExampleFiles.DEAD).toString();

        ok(CliRun.of("inspect", "--log-dir", logDir, "--output-file", run.resolve(ExampleFiles.EVIDENCE).toString()));
        ok(CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "plan", "--evidence",
                run.resolve(ExampleFiles.EVIDENCE).toString(), "--output-file",
                run.resolve(ExampleFiles.PLAN).toString()));
        Path plan = run.resolve(ExampleFiles.PLAN);
        Path key = sshKey(dir.resolve("oncall"));
        ok(CliRun.of("plan", "approve", "--plan", plan.toString(), "--by", "oncall@example.com", "--ssh-key",
                key.toString()));
        Path signers = Files.writeString(run.resolve(ExampleFiles.ALLOWED_SIGNERS),
                "oncall@example.com " + Files.readString(Path.of(key + ".pub")));
        Files.setPosixFilePermissions(signers, PosixFilePermissions.fromString("rw-r--r--"));
        // broker 1 is fenced: what it alone holds is copied off its disk before the election truncates it
        ok(CliRun.of("inspect", "--log-dir", logDir, "--salvage-beyond", plan.toString()));
        ok(CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--plan", plan.toString(),
                "--require-approval", "--allowed-signers", signers.toString(), "--reason", REASON));

        ExampleFiles.assertConsistent(run);
        // the run the runbook describes: broker 2 elected, broker 1's ten records copied before it may restart
        CliRun shown = CliRun.of("render", "--plan", plan.toString(), "--result-file",
                run.resolve(ExampleFiles.RESULT).toString(), "--text");
        assertThat(shown.exitCode()).as(shown.err()).isZero();
        assertThat(shown.out()).contains("1: 10 [400..410)", "1 elected, 0 already recovered");

        if (Boolean.getBoolean("examples.write")) {
            write(run, logDir, Path.of("examples"));
            ExampleFiles.assertConsistent(Path.of("examples"));
        }
    }

    private static void ok(CliRun run) {
        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.OK);
    }

    /** A throwaway ed25519 key without passphrase: KEY and KEY.pub; the test is skipped without ssh-keygen. */
    private static Path sshKey(Path key) throws Exception {
        Process p;
        try {
            p = new ProcessBuilder("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "oncall@example.com", "-f",
                    key.toString()).redirectErrorStream(true).start();
        } catch (IOException e) {
            Assumptions.abort("ssh-keygen (openssh-client) is not installed: " + e.getMessage());
            throw e;
        }
        String said = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(said).isZero();
        return key;
    }

    /**
     * The run's files into {@code examples}, the run's directory and the broker's log dir shown as an operator's
     * would be: only paths are changed, which no hash or signature covers (the plan, whose bytes the approval and
     * the audit log hash, has none).
     */
    private static void write(Path run, String logDir, Path examples) throws IOException {
        for (String name : ExampleFiles.FILES) {
            Path from = run.resolve(name);
            Path to = examples.resolve(name);
            Files.createDirectories(to.getParent() == null ? examples : to.getParent());
            String text = Files.readString(from).replace(run.toAbsolutePath().toString(), SHOWN_DIR)
                    .replace(logDir, SHOWN_LOG_DIR);
            Files.writeString(to, text);
        }
        Path salvage = run.resolve(ExampleFiles.MANIFEST).getParent();
        try (var segments = Files.list(salvage)) {
            for (Path segment : segments.filter(f -> f.getFileName().toString().endsWith(".log")).toList()) {
                Files.copy(segment, examples.resolve(ExampleFiles.MANIFEST).resolveSibling(segment.getFileName()),
                        StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }
}
