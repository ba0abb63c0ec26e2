// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.uncleanrecovery.formats.AuditLine;
import dev.uncleanrecovery.formats.RunLockFate;
import dev.uncleanrecovery.formats.Sha256;
import dev.uncleanrecovery.support.DurableFiles;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The audit log: its line format, what is left out of the command line, that it is only ever appended to, and that a
 * run that would change the cluster needs a reason. The runs here reach no cluster (127.0.0.1:1 refuses), which is
 * enough: the STARTED line is written before the first connection.
 */
class AuditTrailTest {

    @TempDir
    Path dir;

    private static AuditLine line(String reason) {
        return new AuditLine(AuditLine.VERSION, "run-1", AuditLine.Event.FINISHED, "execute",
                Instant.parse("2026-12-05T02:00:00Z"), Instant.parse("2026-12-05T02:00:04Z"), "alice", "ops-1", 42,
                reason, List.of("execute", "--plan", "plan.json"), "/ops/plan.json", "ab".repeat(32), null,
                "/ops/plan-salvage", "/ops/plan-result.json", null, 0, null,
                List.of(new AuditLine.Outcome("orders", 0, "ELECTED", 2, null, null)),
                new RunLockFate("hk1oX2dvTqCnT0ahVNy6Bg", RunLockFate.Fate.RELEASED, null));
    }

    @Test
    void a_line_is_one_line_of_json_that_reads_back_the_same() {
        AuditLine written = line("INC-1234\norders offline");

        String text = new String(written.toBytes(), StandardCharsets.UTF_8);

        assertThat(text).endsWith("\n").hasLineCount(1);
        assertThat(text).contains("\"reason\":\"INC-1234\\norders offline\"", "\"event\":\"FINISHED\"",
                "\"outcomes\":[{\"topic\":\"orders\",\"partition\":0,\"outcome\":\"ELECTED\",\"leader\":2}]");
        assertThat(AuditLine.parse("test", text.strip())).isEqualTo(written);
    }

    @Test
    void a_line_without_a_field_it_must_have_is_refused_with_the_field() {
        String text = new String(line("why").toBytes(), StandardCharsets.UTF_8).replace("\"reason\":\"why\",", "");

        assertThatThrownBy(() -> AuditLine.parse("audit.jsonl line 1", text.strip()))
                .hasMessageContaining("audit.jsonl line 1").hasMessageContaining("reason");
    }

    @Test
    void values_that_may_be_secrets_never_reach_the_log() {
        List<String> args = List.of("--bootstrap-server", "10.0.0.1:9092", "--command-config", "admin.properties",
                "execute", "--sasl-password", "hunter2", "--token=abc", "--ssl.keystore.password=p",
                "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required password=\"p\";",
                "--reason", "INC-1 password rotation broke broker 1");

        List<String> kept = AuditTrail.withoutSecrets(args);

        assertThat(kept).containsExactly("--bootstrap-server", "10.0.0.1:9092", "--command-config", "admin.properties",
                "execute", "--sasl-password", "***", "--token=***", "--ssl.keystore.password=***", "***",
                "--reason", "INC-1 password rotation broke broker 1");
        assertThat(String.join(" ", kept)).doesNotContain("hunter2", "abc", "PlainLoginModule");
    }

    @Test
    void lines_are_appended_never_rewritten_to_a_private_file() throws Exception {
        Path log = dir.resolve("logs").resolve("audit.jsonl");

        DurableFiles.appendLine(log, "{\"first\":1}\n".getBytes(StandardCharsets.UTF_8));
        DurableFiles.appendLine(log, "{\"second\":2}\n".getBytes(StandardCharsets.UTF_8));

        assertThat(Files.readString(log)).isEqualTo("{\"first\":1}\n{\"second\":2}\n");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(log))).isEqualTo("rw-------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(log.getParent()))).isEqualTo("rwx------");
    }

    @Test
    void a_line_appended_after_a_torn_one_starts_on_a_line_of_its_own() throws Exception {
        // what a write that ended short (a full disk) or a crash mid-write left
        Path log = Files.writeString(dir.resolve("audit.jsonl"), "{\"whole\":1}\n{\"torn\":");

        DurableFiles.appendLine(log, "{\"next\":2}\n".getBytes(StandardCharsets.UTF_8));

        assertThat(Files.readString(log)).isEqualTo("{\"whole\":1}\n{\"torn\":\n{\"next\":2}\n");
    }

    @Test
    void an_audit_log_behind_a_symbolic_link_is_never_written() throws Exception {
        Path elsewhere = Files.writeString(dir.resolve("elsewhere"), "kept\n");
        Path link = Files.createSymbolicLink(dir.resolve("audit.jsonl"), elsewhere);

        assertThatThrownBy(() -> DurableFiles.appendLine(link, "x\n".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(FileSystemException.class).hasMessageContaining("not a regular file");
        assertThat(Files.readString(elsewhere)).isEqualTo("kept\n");
    }

    private Path plan() throws Exception {
        return Files.copy(Path.of("examples", "plan.json"), dir.resolve("plan.json"));
    }

    private static CliRun execute(Path plan, String... more) {
        List<String> args = new java.util.ArrayList<>(List.of("--bootstrap-server", "127.0.0.1:1", "--admin-timeout-ms",
                "2000", "execute", "--plan", plan.toString()));
        args.addAll(List.of(more));
        return CliRun.of(args.toArray(String[]::new));
    }

    @Test
    void a_run_that_would_change_the_cluster_needs_a_reason_and_writes_nothing_without_one() throws Exception {
        Path plan = plan();

        CliRun run = execute(plan);
        CliRun blank = execute(plan, "--reason", " ");

        assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(run.err().strip()).hasLineCount(1).startsWith("error: --reason TEXT is required: this run changes"
                + " the cluster");
        assertThat(blank.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(blank.err()).contains("--reason TEXT is required");
        assertThat(dir.resolve(AuditLine.FILE_NAME)).doesNotExist();
    }

    @Test
    void a_dry_run_needs_no_reason_and_writes_no_audit_line() throws Exception {
        Path plan = plan();

        CliRun run = execute(plan, "--dry-run");

        assertThat(run.err()).doesNotContain("--reason").contains("127.0.0.1:1");
        assertThat(dir.resolve(AuditLine.FILE_NAME)).doesNotExist();
    }

    @Test
    void each_other_change_command_needs_a_reason_too() throws Exception {
        Path result = Files.writeString(dir.resolve("plan-result.json"), "{}");

        CliRun offsets = CliRun.of("--bootstrap-server", "127.0.0.1:1", "consumer-offsets", "--result-file",
                result.toString(), "--execute");
        CliRun replay = CliRun.of("--bootstrap-server", "127.0.0.1:1", "replay", "--salvage-dir",
                dir.resolve("plan-salvage").toString(), "--to-topic", "t", "--without-result", "--execute");
        CliRun recover = CliRun.of("--bootstrap-server", "127.0.0.1:1", "recover", "--automated-recovery");

        for (CliRun run : List.of(offsets, replay, recover)) {
            assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCode.USAGE);
            assertThat(run.err()).contains("--reason TEXT is required");
        }
    }

    @Test
    void a_run_appends_a_started_and_a_finished_line_and_the_next_run_appends_after_them() throws Exception {
        Path plan = plan();

        CliRun first = execute(plan, "--reason", "INC-1234 orders offline");
        CliRun second = execute(plan, "--reason", "INC-1234 second try", "--audit-log",
                dir.resolve(AuditLine.FILE_NAME).toString());

        // the cluster refused the connection: not reached, after the STARTED line
        assertThat(first.exitCode()).as(first.err()).isEqualTo(ExitCode.UNREACHABLE);
        Path log = dir.resolve(AuditLine.FILE_NAME);
        List<AuditLine> lines = AuditLine.readAll(log);
        assertThat(lines).extracting(AuditLine::event).containsExactly(AuditLine.Event.STARTED,
                AuditLine.Event.FINISHED, AuditLine.Event.STARTED, AuditLine.Event.FINISHED);
        assertThat(lines.get(0).runId()).isEqualTo(lines.get(1).runId()).isNotEqualTo(lines.get(2).runId());
        AuditLine started = lines.get(0);
        AuditLine finished = lines.get(1);
        assertThat(started.command()).isEqualTo("execute");
        assertThat(started.reason()).isEqualTo("INC-1234 orders offline");
        assertThat(started.user()).isEqualTo(System.getProperty("user.name"));
        assertThat(started.host()).isNotBlank();
        assertThat(started.planFile()).isEqualTo(plan.toAbsolutePath().toString());
        assertThat(started.planSha256()).isEqualTo(Sha256.hex(Files.readAllBytes(plan)));
        assertThat(started.salvageDir()).isEqualTo(dir.resolve("plan-salvage").toAbsolutePath().toString());
        assertThat(started.commandLine()).containsSubsequence("execute", "--plan", plan.toString(), "--reason",
                "INC-1234 orders offline");
        assertThat(started.exitCode()).isNull();
        assertThat(started.endedAt()).isNull();
        assertThat(finished.exitCode()).isEqualTo(ExitCode.UNREACHABLE);
        assertThat(finished.error()).contains("127.0.0.1:1");
        assertThat(finished.endedAt()).isAfterOrEqualTo(finished.startedAt());
        assertThat(lines.get(2).reason()).isEqualTo("INC-1234 second try");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(log))).isEqualTo("rw-------");
    }

    @Test
    void the_arguments_of_an_at_file_are_recorded_as_the_tool_read_them() throws Exception {
        Path plan = plan();
        // picocli reads the arguments in a file named with @: the options that weaken a safeguard are in there
        Path options = Files.writeString(dir.resolve("opts.txt"),
                "--without-lock --no-salvage --accept-unknown-loss\n--reason \"INC-1234 orders offline\"\n");

        CliRun run = execute(plan, "@" + options);

        assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCode.UNREACHABLE);
        AuditLine started = AuditLine.readAll(dir.resolve(AuditLine.FILE_NAME)).get(0);
        assertThat(started.commandLine()).containsSubsequence("execute", "--plan", plan.toString(), "--without-lock",
                "--no-salvage", "--accept-unknown-loss", "--reason", "INC-1234 orders offline");
        assertThat(started.commandLine()).noneMatch(arg -> arg.startsWith("@"));
        assertThat(started.reason()).isEqualTo("INC-1234 orders offline");
    }

    @Test
    void a_reason_holding_a_secret_is_recorded_as_the_command_line_records_it() throws Exception {
        Path plan = plan();
        String pasted = "INC-7 login broke after sasl.jaas.config="
                + "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"recovery\""
                + " password=\"hunter2\";";
        String secondLine = "INC-8 orders offline\nrotated with password=hunter3";

        execute(plan, "--reason", pasted);
        execute(plan, "--reason", secondLine);

        String log = Files.readString(dir.resolve(AuditLine.FILE_NAME));
        assertThat(log).doesNotContain("hunter2", "hunter3", "PlainLoginModule");
        List<AuditLine> lines = AuditLine.readAll(dir.resolve(AuditLine.FILE_NAME));
        assertThat(lines).hasSize(4).allSatisfy(line -> {
            assertThat(line.reason()).isEqualTo(AuditTrail.REDACTED);
            assertThat(line.commandLine()).containsSubsequence("--reason", AuditTrail.REDACTED);
        });
    }

    /**
     * The tool in a JVM of its own whose files may grow to {@code maxFileBytes} at most (prlimit's RLIMIT_FSIZE):
     * a write past it ends short, as on a full disk, and the next one fails with EFBIG (the JVM ignores SIGXFSZ).
     */
    private static CliRun withFileSizeLimit(long maxFileBytes, List<String> args) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of("prlimit", "--fsize=" + maxFileBytes,
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-XX:-UsePerfData",
                "-cp", System.getProperty("java.class.path"), Main.class.getName()));
        command.addAll(args);
        Process tool = new ProcessBuilder(command).start();
        java.util.concurrent.CompletableFuture<String> err = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return new String(tool.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        String out = new String(tool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(tool.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        return new CliRun(tool.exitValue(), out, err.get());
    }

    @Test
    void a_finished_line_the_disk_takes_only_in_part_is_named_fails_the_run_and_the_next_line_starts_afresh()
            throws Exception {
        Path plan = plan();
        Path log = dir.resolve(AuditLine.FILE_NAME);
        List<String> args = List.of("--bootstrap-server", "127.0.0.1:1", "--admin-timeout-ms", "2000", "execute",
                "--plan", plan.toString(), "--reason", "INC-1234 orders offline");
        // given: a run's STARTED line, to size the next one's by (the same arguments; its pid and time may differ)
        execute(plan, "--reason", "INC-1234 orders offline");
        long startedBytes = Files.readAllLines(log).get(0).length() + 1;
        long before = Files.size(log);

        // when: the file may grow by a STARTED line and a little, but not by the longer FINISHED line
        CliRun torn = withFileSizeLimit(before + startedBytes + 40, args);
        CliRun next = execute(plan, "--reason", "INC-1234 third run");

        // then: the run that could not finish its audit says so after its own error, and exits 1, not 4
        assertThat(torn.exitCode()).as(torn.err()).isEqualTo(ExitCode.FAILURE);
        List<String> errors = torn.err().lines().filter(l -> l.startsWith("error: ")).toList();
        assertThat(errors).hasSize(2);
        assertThat(errors.get(0)).contains("127.0.0.1:1");
        assertThat(errors.get(1)).startsWith("error: run ").contains("is not fully audited: its FINISHED line could"
                + " not be appended to the audit log " + log, "bytes were written", "File too large");
        // and: every line of the log but the torn one reads back whole, the next run's on a line of its own
        List<String> lines = Files.readAllLines(log);
        assertThat(lines).hasSize(6);
        assertThat(lines.get(3)).as("the torn FINISHED line").startsWith("{\"version\":")
                .doesNotEndWith("}");
        assertThatThrownBy(() -> AuditLine.parse("torn", lines.get(3))).hasMessageContaining("torn");
        List<AuditLine> whole = java.util.stream.Stream.of(0, 1, 2, 4, 5)
                .map(i -> AuditLine.parse("line " + (i + 1), lines.get(i))).toList();
        assertThat(whole).extracting(AuditLine::event).containsExactly(AuditLine.Event.STARTED,
                AuditLine.Event.FINISHED, AuditLine.Event.STARTED, AuditLine.Event.STARTED, AuditLine.Event.FINISHED);
        assertThat(whole.get(3).reason()).isEqualTo("INC-1234 third run");
        assertThat(next.exitCode()).as(next.err()).isEqualTo(ExitCode.UNREACHABLE);
    }
}
