// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.recovery;

import dev.uncleanrecovery.UserInputException;
import dev.uncleanrecovery.execute.RunOwner;
import dev.uncleanrecovery.formats.AuditLine;
import dev.uncleanrecovery.formats.PlanApproval;
import dev.uncleanrecovery.formats.PlanFile;
import dev.uncleanrecovery.support.DurableFiles;
import dev.uncleanrecovery.support.SshSignatures;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * {@code plan approve} and {@code execute --require-approval}: an approval names the plan's bytes by their SHA-256,
 * so any edit after it (a designatedLeader changed by hand) leaves the plan unapproved, and names the options that
 * weaken a safeguard the run may use. With an SSH key the approval carries a signature of both that
 * {@code ssh-keygen -Y verify} checks against an allowed_signers file.
 */
public final class PlanApprovals {

    private PlanApprovals() {
    }

    /**
     * Approves the plan as it is on disk now.
     *
     * @param sshKey  the approver's SSH key (private, or public with the agent holding it); null: by name only
     * @param allowed the options that weaken a safeguard {@code execute} may use under this approval
     * @return where the approval was written
     */
    public static Path approve(Path planFile, String by, Path sshKey, Set<PlanApproval.SafeguardOption> allowed,
                               String tool, Instant now) throws IOException {
        if (by == null || by.isBlank()) {
            throw new UserInputException("--by must name who approves (e.g. --by alice@example.com)");
        }
        PlanFile.Hashed plan = PlanFile.readHashed(planFile);
        String signature = null;
        if (sshKey != null) {
            try {
                signature = SshSignatures.sign(PlanApproval.statement(plan.sha256(), allowed), sshKey);
            } catch (SshSignatures.SshKeygenException e) {
                throw new UserInputException(e.getMessage(), e);
            }
        }
        return PlanApproval.write(planFile, new PlanApproval(PlanApproval.VERSION,
                planFile.getFileName().toString(), plan.sha256(), by, now, System.getProperty("user.name"),
                RunOwner.thisHost(), tool, allowed.stream().map(PlanApproval.SafeguardOption::option).toList(),
                signature));
    }

    /**
     * The approval {@code execute --require-approval} found, and the approval files beside the plan that do not count
     * for this run, each with why (the first that counts ends the look).
     */
    public record Accepted(AuditLine.Approval approval, List<String> notCounted) {
    }

    /**
     * The first approval beside {@code planFile} of exactly these bytes that allows every option of {@code asked},
     * or a refusal that says what is wrong: none there, or each one unreadable, of other bytes (the plan was edited
     * after it), without a signature that verifies for its {@code by} (with {@code allowedSigners}), or not allowing
     * an option asked. Each file is judged on its own: one that is not an approval does not hide the next.
     *
     * @param allowedSigners ssh-keygen's allowed_signers file; null accepts an approval by name
     * @param asked          the options of this run that weaken a safeguard
     * @throws UserInputException when no approval passes, or others than its owner (and root) may change
     *                            {@code allowedSigners} (exit 2: nothing is changed)
     */
    public static Accepted require(Path planFile, PlanFile.Hashed plan, Path allowedSigners,
                                   Set<PlanApproval.SafeguardOption> asked) throws IOException {
        if (allowedSigners != null) {
            refuseShared(allowedSigners);
        }
        List<PlanApproval.Found> found = PlanApproval.beside(planFile);
        String hint = "approve it with 'plan approve --plan " + planFile + " --by NAME"
                + (allowedSigners == null ? "" : " --ssh-key KEY") + asked.stream().map(o -> " --allow-option "
                + o.option().substring(2)).collect(Collectors.joining()) + "'";
        if (found.isEmpty()) {
            throw new UserInputException("--require-approval: " + planFile + " has no approval (no "
                    + PlanApproval.pathFor(planFile, 1).getFileName() + " beside it); " + hint);
        }
        List<String> why = new ArrayList<>();
        for (PlanApproval.Found f : found) {
            String name = f.file().getFileName().toString();
            PlanApproval a = f.approval();
            if (a == null) {
                String problem = f.problem().startsWith(f.file() + ": ")
                        ? f.problem().substring(f.file().toString().length() + 2) : f.problem();
                why.add(name + " is not an approval (" + problem + ")");
                continue;
            }
            if (!a.planSha256().equals(plan.sha256())) {
                why.add(name + " approves other content (SHA-256 " + a.planSha256().substring(0, 12) + "..., by " + a.by()
                        + " at " + a.approvedAt() + "): the plan was edited after it was approved");
                continue;
            }
            String verified = null;
            if (allowedSigners != null) {
                if (a.sshSignature() == null) {
                    why.add(name + " (by " + a.by() + ") has no SSH signature, and --allowed-signers asks for one");
                    continue;
                }
                try {
                    verified = SshSignatures.verify(a.signedContent(plan.bytes()), a.sshSignature(), allowedSigners,
                            a.by());
                } catch (SshSignatures.SshKeygenException e) {
                    why.add(name + " (by " + a.by() + "): " + e.getMessage());
                    continue;
                }
            }
            Set<PlanApproval.SafeguardOption> beyond = EnumSet.noneOf(PlanApproval.SafeguardOption.class);
            beyond.addAll(asked);
            beyond.removeAll(a.allowed());
            if (!beyond.isEmpty()) {
                why.add(name + " (by " + a.by() + ") does not allow " + beyond.stream()
                        .map(PlanApproval.SafeguardOption::option).collect(Collectors.joining(", ")));
                continue;
            }
            return new Accepted(new AuditLine.Approval(a.by(), f.file().toString(), a.approvedAt(), verified,
                    a.allowedOptions()), why);
        }
        throw new UserInputException("--require-approval: no approval of " + planFile + " as it is now (SHA-256 "
                + plan.sha256().substring(0, 12) + "...)" + (asked.isEmpty() ? "" : " that allows " + asked.stream()
                .map(o -> o.option() + " (" + o.weakens() + ")").collect(Collectors.joining(", ")))
                + ": " + String.join("; ", why) + "; " + hint);
    }

    /**
     * An allowed_signers file others may change decides whose keys approve: refused like a salvage directory others
     * may write.
     */
    private static void refuseShared(Path allowedSigners) {
        Optional<String> why;
        try {
            why = DurableFiles.whyOthersMayChange(allowedSigners);
        } catch (NoSuchFileException e) {
            throw new UserInputException("--allowed-signers " + allowedSigners + ": no such file", e);
        } catch (IOException e) {
            throw new UserInputException("--allowed-signers " + allowedSigners + " cannot be checked: "
                    + e.getMessage(), e);
        }
        why.ifPresent(reason -> {
            throw new UserInputException("--allowed-signers " + allowedSigners + " " + reason + ": another user could"
                    + " add a key to it and approve any plan. Keep it where only you or root may write"
                    + " (chmod go-w on it and its directories)");
        });
    }
}
