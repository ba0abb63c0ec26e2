// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.recovery;

import dev.uncleanrecovery.UserInputException;
import dev.uncleanrecovery.execute.RunOwner;
import dev.uncleanrecovery.formats.AuditLine;
import dev.uncleanrecovery.formats.PlanApproval;
import dev.uncleanrecovery.formats.PlanFile;
import dev.uncleanrecovery.support.SshSignatures;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code plan approve} and {@code execute --require-approval}: an approval names the plan's bytes by their SHA-256,
 * so any edit after it (a designatedLeader changed by hand) leaves the plan unapproved. With an SSH key the approval
 * carries a signature of those bytes that {@code ssh-keygen -Y verify} checks against an allowed_signers file.
 */
public final class PlanApprovals {

    private PlanApprovals() {
    }

    /**
     * Approves the plan as it is on disk now.
     *
     * @param sshKey the approver's SSH key (private, or public with the agent holding it); null: by name only
     * @return where the approval was written
     */
    public static Path approve(Path planFile, String by, Path sshKey, String tool, Instant now) throws IOException {
        if (by == null || by.isBlank()) {
            throw new UserInputException("--by must name who approves (e.g. --by alice@example.com)");
        }
        PlanFile.Hashed plan = PlanFile.readHashed(planFile);
        String signature = null;
        if (sshKey != null) {
            try {
                signature = SshSignatures.sign(plan.bytes(), sshKey);
            } catch (SshSignatures.SshKeygenException e) {
                throw new UserInputException(e.getMessage(), e);
            }
        }
        return PlanApproval.write(planFile, new PlanApproval(PlanApproval.VERSION,
                planFile.getFileName().toString(), plan.sha256(), by, now, System.getProperty("user.name"),
                RunOwner.thisHost(), tool, signature));
    }

    /**
     * The approval beside {@code planFile} of exactly these bytes, or a refusal that says what is wrong: none there,
     * or each one of other bytes (the plan was edited after it) or, with {@code allowedSigners}, without a signature
     * that verifies for its {@code by}.
     *
     * @param allowedSigners ssh-keygen's allowed_signers file; null accepts an approval by name
     * @throws UserInputException when no approval passes (exit 2: nothing is changed)
     */
    public static AuditLine.Approval require(Path planFile, PlanFile.Hashed plan, Path allowedSigners)
            throws IOException {
        List<PlanApproval.Found> found = PlanApproval.beside(planFile);
        String hint = "approve it with 'plan approve --plan " + planFile + " --by NAME"
                + (allowedSigners == null ? "" : " --ssh-key KEY") + "'";
        if (found.isEmpty()) {
            throw new UserInputException("--require-approval: " + planFile + " has no approval (no "
                    + PlanApproval.pathFor(planFile, 1).getFileName() + " beside it); " + hint);
        }
        List<String> why = new ArrayList<>();
        for (PlanApproval.Found f : found) {
            PlanApproval a = f.approval();
            String name = f.file().getFileName().toString();
            if (!a.planSha256().equals(plan.sha256())) {
                why.add(name + " approves other content (SHA-256 " + a.planSha256().substring(0, 12) + "..., by " + a.by()
                        + " at " + a.approvedAt() + "): the plan was edited after it was approved");
                continue;
            }
            if (allowedSigners == null) {
                return new AuditLine.Approval(a.by(), f.file().toString(), a.approvedAt(), null);
            }
            if (a.sshSignature() == null) {
                why.add(name + " (by " + a.by() + ") has no SSH signature, and --allowed-signers asks for one");
                continue;
            }
            try {
                String verified = SshSignatures.verify(plan.bytes(), a.sshSignature(), allowedSigners, a.by());
                return new AuditLine.Approval(a.by(), f.file().toString(), a.approvedAt(), verified);
            } catch (SshSignatures.SshKeygenException e) {
                why.add(name + " (by " + a.by() + "): " + e.getMessage());
            }
        }
        throw new UserInputException("--require-approval: no approval of " + planFile + " as it is now (SHA-256 "
                + plan.sha256().substring(0, 12) + "...): " + String.join("; ", why) + "; " + hint);
    }
}
