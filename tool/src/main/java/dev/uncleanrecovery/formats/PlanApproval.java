// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.formats;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.uncleanrecovery.support.DurableFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * An approval of a plan's exact bytes, beside the plan: {@code <plan>-approval.json} ({@code -2}, {@code -3}, ... for
 * more approvers; never replaced). Written by {@code plan approve}; {@code execute --require-approval} elects only a
 * plan an approval names by its SHA-256, so a plan edited after its approval is refused.
 *
 * <pre>{@code
 * { "version": 1, "planFile": "plan.json", "planSha256": "9f86d0...", "by": "alice@example.com",
 *   "approvedAt": "2026-12-05T02:00:00Z", "user": "alice", "host": "ops-1", "tool": "kafka-unclean-recovery 0.1.0",
 *   "sshSignature": "-----BEGIN SSH SIGNATURE-----\n...\n-----END SSH SIGNATURE-----\n" }
 * }</pre>
 *
 * @param planFile     the plan's file name when approved (for people: the hash is what counts)
 * @param by           who approves, as given to {@code --by}; with a signature, the identity the allowed_signers file
 *                     names for the key
 * @param user         the OS user that ran {@code plan approve}
 * @param sshSignature {@code ssh-keygen -Y sign -n kafka-unclean-recovery} over the plan's bytes; absent when
 *                     approved by name only
 */
public record PlanApproval(
        @Required int version,
        @Required String planFile,
        @Required String planSha256,
        @Required String by,
        @Required Instant approvedAt,
        String user,
        String host,
        String tool,
        @JsonInclude(JsonInclude.Include.NON_NULL) String sshSignature) {

    public static final int VERSION = 1;

    private static final StrictJsonFile<PlanApproval> FORMAT = new StrictJsonFile<>(PlanApproval.class, "approval",
            VERSION, "'kafka-unclean-recovery plan approve'", PlanFormatException::new);

    /** At most this many approvals of one plan are looked at: {@code -approval.json} to {@code -approval-99.json}. */
    private static final int MOST = 99;

    public PlanApproval {
        Checks.text(by, "by");
        if (!planSha256.matches("[0-9a-f]{64}")) {
            throw Checks.invalid("planSha256", "must be 64 lower-case hex digits, found '" + planSha256 + "'");
        }
    }

    /** {@code plan.json} → {@code plan-approval.json}, {@code plan-approval-2.json}, ... */
    public static Path pathFor(Path planFile, int n) {
        String name = planFile.getFileName().toString();
        String base = name.endsWith(".json") ? name.substring(0, name.length() - 5) : name;
        return planFile.toAbsolutePath().resolveSibling(base + "-approval" + (n == 1 ? "" : "-" + n) + ".json");
    }

    /** Writes the approval beside {@code planFile} under the first free name, durably; never over another. */
    public static Path write(Path planFile, PlanApproval approval) throws IOException {
        return DurableFiles.writeUnderFreeName(n -> pathFor(planFile, n), Json.fileContent(approval));
    }

    /** One approval file, read strictly. */
    public static PlanApproval read(Path file) throws IOException {
        return FORMAT.read(file);
    }

    /** A file of approvals beside the plan and what it says. */
    public record Found(Path file, PlanApproval approval) {
    }

    /** Every approval beside {@code planFile}, in the order of their names; a gap in the numbers ends the list. */
    public static List<Found> beside(Path planFile) throws IOException {
        List<Found> found = new ArrayList<>();
        for (int n = 1; n <= MOST; n++) {
            Path file = pathFor(planFile, n);
            if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
                break;
            }
            found.add(new Found(file, read(file)));
        }
        return found;
    }
}
