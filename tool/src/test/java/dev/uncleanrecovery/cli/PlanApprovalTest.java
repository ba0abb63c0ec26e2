// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.formats.AuditLine;
import dev.uncleanrecovery.formats.PlanApproval;
import dev.uncleanrecovery.formats.Sha256;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code plan approve} and {@code execute --require-approval}: the approval names the plan's bytes, an edit after it
 * is refused, and a signature made with a real SSH key (OpenSSH's ssh-keygen) is verified against an allowed_signers
 * file. The executes reach no cluster (127.0.0.1:1 refuses): an accepted approval shows as the connection error that
 * follows it, a refused one as the refusal, before the audit log is touched.
 */
class PlanApprovalTest {

    @TempDir
    Path dir;

    private Path plan() throws Exception {
        return Files.copy(Path.of("examples", "plan.json"), dir.resolve("plan.json"));
    }

    private static CliRun execute(Path plan, String... more) {
        List<String> args = new ArrayList<>(List.of("--bootstrap-server", "127.0.0.1:1", "--admin-timeout-ms", "2000",
                "execute", "--plan", plan.toString(), "--reason", "INC-1", "--require-approval"));
        args.addAll(List.of(more));
        return CliRun.of(args.toArray(String[]::new));
    }

    private static void assertPassedTheApproval(CliRun run) {
        assertThat(run.err()).as(run.err()).doesNotContain("error: --require-approval").contains("127.0.0.1:1");
    }

    @Test
    void an_approval_names_the_plans_bytes_and_is_written_beside_it_never_over_another() throws Exception {
        Path plan = plan();

        CliRun first = CliRun.of("plan", "approve", "--plan", plan.toString(), "--by", "alice@example.com");
        CliRun second = CliRun.of("plan", "approve", "--plan", plan.toString(), "--by", "bob@example.com");

        assertThat(first.exitCode()).as(first.err()).isZero();
        assertThat(second.exitCode()).as(second.err()).isZero();
        Path approval = dir.resolve("plan-approval.json");
        PlanApproval a = PlanApproval.read(approval);
        assertThat(a.planSha256()).isEqualTo(Sha256.hex(Files.readAllBytes(plan)));
        assertThat(a.by()).isEqualTo("alice@example.com");
        assertThat(a.sshSignature()).isNull();
        assertThat(PlanApproval.read(dir.resolve("plan-approval-2.json")).by()).isEqualTo("bob@example.com");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(approval))).isEqualTo("rw-------");
        assertThat(first.out()).contains("Approved by alice@example.com (by name, not signed)", "--require-approval");
    }

    @Test
    void execute_requiring_approval_refuses_a_plan_without_one() throws Exception {
        Path plan = plan();

        CliRun run = execute(plan);

        assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(run.err().strip()).hasLineCount(1).startsWith("error: --require-approval: " + plan
                + " has no approval").contains("plan approve --plan " + plan + " --by NAME");
        assertThat(dir.resolve(AuditLine.FILE_NAME)).doesNotExist();
    }

    @Test
    void execute_requiring_approval_takes_an_approved_plan_and_refuses_it_once_edited() throws Exception {
        Path plan = plan();
        assertThat(CliRun.of("plan", "approve", "--plan", plan.toString(), "--by", "alice").exitCode()).isZero();

        CliRun approved = execute(plan);
        // a reviewer's hand edit after the approval: still a valid plan, other bytes
        Files.writeString(plan, Files.readString(plan).replace("\"designatedLeader\" : 2", "\"designatedLeader\" : 3"));
        CliRun edited = execute(plan);

        assertPassedTheApproval(approved);
        List<AuditLine> lines = AuditLine.readAll(dir.resolve(AuditLine.FILE_NAME));
        assertThat(lines.get(0).approval().by()).isEqualTo("alice");
        assertThat(lines.get(0).approval().signature()).isNull();
        assertThat(edited.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(edited.err()).contains("--require-approval: no approval of " + plan + " as it is now",
                "plan-approval.json approves other content", "the plan was edited after it was approved");
        assertThat(AuditLine.readAll(dir.resolve(AuditLine.FILE_NAME))).hasSize(lines.size());
    }

    @Test
    void allowed_signers_needs_require_approval() throws Exception {
        CliRun run = CliRun.of("--bootstrap-server", "127.0.0.1:1", "execute", "--plan", plan().toString(), "--reason",
                "x", "--allowed-signers", dir.resolve("allowed").toString());

        assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(run.err()).contains("--allowed-signers checks the approval --require-approval asks for");
    }

    private static boolean hasSshKeygen() {
        try {
            Process p = new ProcessBuilder("ssh-keygen", "-?").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            return false;
        }
    }

    /** A throwaway ed25519 key without passphrase: KEY and KEY.pub. */
    private Path key(String name) throws Exception {
        Path key = dir.resolve(name);
        Process p = new ProcessBuilder("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", key.toString())
                .redirectErrorStream(true).start();
        String said = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(said).isZero();
        return key;
    }

    /**
     * {@code plan approve} of {@code plan} by {@code by}, signed with a throwaway key of that name (the test is skipped
     * without ssh-keygen).
     *
     * @return the key
     */
    private Path approvedWithAKey(Path plan, String by, String... more) throws Exception {
        Assumptions.assumeTrue(hasSshKeygen(), "ssh-keygen (openssh-client) is not installed");
        Path key = key(by);
        List<String> args = new ArrayList<>(List.of("plan", "approve", "--plan", plan.toString(), "--by", by,
                "--ssh-key", key.toString()));
        args.addAll(List.of(more));
        CliRun approve = CliRun.of(args.toArray(String[]::new));
        assertThat(approve.exitCode()).as(approve.err()).isZero();
        return key;
    }

    /** An allowed_signers file only its owner may change (0644, whatever the umask). */
    private Path allowedSigners(String name, Path key) throws Exception {
        Path file = Files.writeString(dir.resolve("allowed_signers-" + key.getFileName()),
                name + " " + Files.readString(Path.of(key + ".pub")));
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        return file;
    }

    @Test
    void a_signed_approval_verifies_for_the_key_the_allowed_signers_file_gives_that_name() throws Exception {
        Assumptions.assumeTrue(hasSshKeygen(), "ssh-keygen (openssh-client) is not installed");
        Path plan = plan();
        Path alice = key("alice");
        Path mallory = key("mallory");

        CliRun approve = CliRun.of("plan", "approve", "--plan", plan.toString(), "--by", "alice@example.com",
                "--ssh-key", alice.toString());
        CliRun verified = execute(plan, "--allowed-signers", allowedSigners("alice@example.com", alice).toString());
        CliRun otherKey = execute(plan, "--allowed-signers", allowedSigners("alice@example.com", mallory).toString());

        assertThat(approve.exitCode()).as(approve.err()).isZero();
        assertThat(PlanApproval.read(dir.resolve("plan-approval.json")).sshSignature())
                .startsWith("-----BEGIN SSH SIGNATURE-----");
        assertPassedTheApproval(verified);
        AuditLine started = AuditLine.readAll(dir.resolve(AuditLine.FILE_NAME)).get(0);
        assertThat(started.approval().signature()).startsWith("Good \"kafka-unclean-recovery\" signature for"
                + " alice@example.com with ED25519 key SHA256:");
        assertThat(otherKey.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(otherKey.err()).contains("--require-approval: no approval", "ssh-keygen -Y verify");
    }

    @Test
    void a_signed_approval_of_a_plan_edited_since_does_not_verify_even_with_the_hash_changed_to_match() throws Exception {
        Path plan = plan();
        Path alice = approvedWithAKey(plan, "alice");
        Path approval = dir.resolve("plan-approval.json");
        String approvedHash = PlanApproval.read(approval).planSha256();

        // whoever may write beside the plan edits it and the approval's hash: only the signature tells
        Files.writeString(plan, Files.readString(plan).replace("\"designatedLeader\" : 2", "\"designatedLeader\" : 3"));
        Files.writeString(approval, Files.readString(approval).replace(approvedHash,
                Sha256.hex(Files.readAllBytes(plan))));
        CliRun byName = execute(plan);
        CliRun bySignature = execute(plan, "--allowed-signers", allowedSigners("alice", alice).toString());

        assertPassedTheApproval(byName);
        assertThat(bySignature.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(bySignature.err()).contains("plan-approval.json (by alice): ssh-keygen -Y verify");
    }

    @Test
    void an_approval_by_name_only_is_refused_where_a_signature_is_asked_for() throws Exception {
        Assumptions.assumeTrue(hasSshKeygen(), "ssh-keygen (openssh-client) is not installed");
        Path plan = plan();
        Path alice = key("alice");
        assertThat(CliRun.of("plan", "approve", "--plan", plan.toString(), "--by", "alice").exitCode()).isZero();

        CliRun run = execute(plan, "--allowed-signers", allowedSigners("alice", alice).toString());

        assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(run.err()).contains("has no SSH signature, and --allowed-signers asks for one");
    }

    @Test
    void plan_approve_never_connects_and_its_help_fits_120_columns() {
        CliRun help = CliRun.of("plan", "approve", "--help");

        assertThat(help.exitCode()).isZero();
        assertThat(help.out()).contains("--by", "--ssh-key").doesNotContain("--bootstrap-server");
        assertThat(help.out().lines()).allSatisfy(l -> assertThat(l.length()).isLessThanOrEqualTo(120));
        assertThat(CliRun.of("plan", "--help").out()).contains("approve");
    }

    /** The options of execute that weaken a safeguard, as it takes them. */
    private static final List<String> WEAKENING = List.of("--no-salvage", "--allow-unprobed-leader", "--without-lock",
            "--accept-unknown-loss");

    @Test
    void an_option_that_weakens_a_safeguard_needs_an_approval_that_allows_it() throws Exception {
        Path plan = plan();
        assertThat(CliRun.of("plan", "approve", "--plan", plan.toString(), "--by", "alice").exitCode()).isZero();

        List<CliRun> beyondAlice = WEAKENING.stream().map(option -> execute(plan, option)).toList();
        CliRun bobAllows = CliRun.of("plan", "approve", "--plan", plan.toString(), "--by", "bob", "--allow-option",
                "no-salvage");
        CliRun noSalvage = execute(plan, "--no-salvage");
        CliRun beyondBob = execute(plan, "--no-salvage", "--without-lock");

        for (int i = 0; i < WEAKENING.size(); i++) {
            CliRun refused = beyondAlice.get(i);
            String option = WEAKENING.get(i);
            assertThat(refused.exitCode()).as(refused.err()).isEqualTo(ExitCode.USAGE);
            assertThat(refused.err().strip()).hasLineCount(1)
                    .startsWith("error: --require-approval: no approval of " + plan + " as it is now")
                    .contains("that allows " + option + " (", "plan-approval.json (by alice) does not allow " + option,
                            "plan approve --plan " + plan + " --by NAME --allow-option " + option.substring(2));
        }
        assertThat(bobAllows.exitCode()).as(bobAllows.err()).isZero();
        assertThat(bobAllows.out()).contains("allowing --no-salvage");
        assertPassedTheApproval(noSalvage);
        AuditLine started = AuditLine.readAll(dir.resolve(AuditLine.FILE_NAME)).get(0);
        assertThat(started.approval().by()).isEqualTo("bob");
        assertThat(started.approval().file()).endsWith("plan-approval-2.json");
        assertThat(beyondBob.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(beyondBob.err()).contains("that allows --no-salvage (", ", --without-lock (changes the cluster",
                "plan-approval-2.json (by bob) does not allow --without-lock;");
        assertThat(AuditLine.readAll(dir.resolve(AuditLine.FILE_NAME))).as("refused before the audit").hasSize(2);
    }

    @Test
    void every_option_an_approval_can_allow_is_one_of_executes() {
        CliRun help = CliRun.of("execute", "--help");
        CliRun unknown = CliRun.of("plan", "approve", "--plan", "p.json", "--by", "alice", "--allow-option", "dry-run");

        for (PlanApproval.SafeguardOption option : PlanApproval.SafeguardOption.values()) {
            assertThat(help.out()).contains(option.option());
        }
        assertThat(WEAKENING).containsExactlyInAnyOrder(java.util.Arrays.stream(PlanApproval.SafeguardOption.values())
                .map(PlanApproval.SafeguardOption::option).toArray(String[]::new));
        assertThat(unknown.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(unknown.err()).contains("--allow-option dry-run: not an option that weakens a safeguard; one of"
                + " --no-salvage, --allow-unprobed-leader, --without-lock, --accept-unknown-loss");
    }

    @Test
    void an_approval_of_the_first_format_approves_its_plan_but_no_option() throws Exception {
        Path plan = plan();
        Files.writeString(dir.resolve("plan-approval.json"), "{\"version\": 1, \"planFile\": \"plan.json\","
                + " \"planSha256\": \"" + Sha256.hex(Files.readAllBytes(plan)) + "\", \"by\": \"carol\","
                + " \"approvedAt\": \"2026-12-05T02:00:00Z\"}");

        CliRun approved = execute(plan);
        CliRun noSalvage = execute(plan, "--no-salvage");

        assertPassedTheApproval(approved);
        assertThat(noSalvage.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(noSalvage.err()).contains("plan-approval.json (by carol) does not allow --no-salvage");
    }

    @Test
    void an_approval_file_that_is_no_approval_is_named_and_does_not_hide_the_next() throws Exception {
        Path plan = plan();
        // what a full disk or an editor's crash leaves
        Path empty = Files.writeString(dir.resolve("plan-approval.json"), "");
        assertThat(CliRun.of("plan", "approve", "--plan", plan.toString(), "--by", "bob").exitCode()).isZero();

        CliRun second = execute(plan);
        Files.delete(dir.resolve("plan-approval-2.json"));
        Files.writeString(empty, "{\"version\": 2, \"planFile\": \"plan.json\", \"planSha");
        CliRun alone = execute(plan);

        assertPassedTheApproval(second);
        assertThat(second.err().replaceAll("\\s+", " ")).contains("--require-approval: not counted:"
                + " plan-approval.json is not an approval (empty file; expected an approval");
        assertThat(AuditLine.readAll(dir.resolve(AuditLine.FILE_NAME)).get(0).approval().file())
                .endsWith("plan-approval-2.json");
        assertThat(alone.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(alone.err().strip()).hasLineCount(1).contains("--require-approval: no approval of " + plan,
                "plan-approval.json is not an approval (");
    }

    @Test
    void an_allowed_signers_file_others_may_change_is_refused() throws Exception {
        Path plan = plan();
        Path signers = allowedSigners("alice", approvedWithAKey(plan, "alice"));
        Path sharedDirectory = Files.createDirectory(dir.resolve("shared"));
        Path inShared = Files.copy(signers, sharedDirectory.resolve("allowed_signers"));
        Files.setPosixFilePermissions(sharedDirectory, PosixFilePermissions.fromString("rwxrwxrwx"));

        CliRun owned = execute(plan, "--allowed-signers", signers.toString());
        Files.setPosixFilePermissions(signers, PosixFilePermissions.fromString("rw-rw-r--"));
        CliRun groupWritable = execute(plan, "--allowed-signers", signers.toString());
        Files.setPosixFilePermissions(signers, PosixFilePermissions.fromString("rw-r--rw-"));
        CliRun worldWritable = execute(plan, "--allowed-signers", signers.toString());
        CliRun inAnyonesDirectory = execute(plan, "--allowed-signers", inShared.toString());

        assertPassedTheApproval(owned);
        for (CliRun refused : List.of(groupWritable, worldWritable, inAnyonesDirectory)) {
            assertThat(refused.exitCode()).as(refused.err()).isEqualTo(ExitCode.USAGE);
            assertThat(refused.err().strip()).hasLineCount(1).contains("another user could add a key to it and"
                    + " approve any plan");
        }
        assertThat(groupWritable.err()).contains("--allowed-signers " + signers + " is writable by its group"
                + " (mode rw-rw-r--)");
        assertThat(worldWritable.err()).contains("is writable by every user (mode rw-r--rw-)");
        assertThat(inAnyonesDirectory.err()).contains("--allowed-signers " + inShared + " is in " + sharedDirectory
                + ", which is writable by every user (mode rwxrwxrwx)");
        assertThat(AuditLine.readAll(dir.resolve(AuditLine.FILE_NAME))).as("only the accepted run").hasSize(2);
    }

    @Test
    void the_signature_covers_the_options_the_approval_allows() throws Exception {
        Path plan = plan();
        Path signers = allowedSigners("alice", approvedWithAKey(plan, "alice", "--allow-option", "no-salvage"));

        CliRun signed = execute(plan, "--no-salvage", "--allowed-signers", signers.toString());
        // whoever may write beside the plan adds an option to the approval: only the signature tells
        Path approval = dir.resolve("plan-approval.json");
        com.fasterxml.jackson.databind.node.ObjectNode widened = (com.fasterxml.jackson.databind.node.ObjectNode)
                dev.uncleanrecovery.formats.Json.mapper().readTree(approval.toFile());
        widened.withArray("allowedOptions").add("--without-lock");
        Files.writeString(approval, widened.toString());
        CliRun bySignature = execute(plan, "--no-salvage", "--without-lock", "--allowed-signers", signers.toString());
        CliRun byName = execute(plan, "--no-salvage", "--without-lock");

        assertPassedTheApproval(signed);
        assertThat(AuditLine.readAll(dir.resolve(AuditLine.FILE_NAME)).get(0).approval().signature())
                .startsWith("Good \"kafka-unclean-recovery\" signature for alice");
        assertThat(bySignature.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(bySignature.err()).contains("plan-approval.json (by alice): ssh-keygen -Y verify");
        assertPassedTheApproval(byName);
    }
}
