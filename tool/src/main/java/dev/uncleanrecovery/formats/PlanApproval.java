// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.formats;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.uncleanrecovery.UserInputException;
import dev.uncleanrecovery.support.DurableFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * An approval of a plan's exact bytes, beside the plan: {@code <plan>-approval.json} ({@code -2}, {@code -3}, ... for
 * more approvers; never replaced). Written by {@code plan approve}; {@code execute --require-approval} elects only a
 * plan an approval names by its SHA-256, so a plan edited after its approval is refused, and only with the options
 * that weaken a safeguard the same approval allows.
 *
 * <pre>{@code
 * { "version": 2, "planFile": "plan.json", "planSha256": "9f86d0...", "by": "alice@example.com",
 *   "approvedAt": "2026-12-05T02:00:00Z", "user": "alice", "host": "ops-1", "tool": "kafka-unclean-recovery 0.1.0",
 *   "allowedOptions": ["--no-salvage"],
 *   "sshSignature": "-----BEGIN SSH SIGNATURE-----\n...\n-----END SSH SIGNATURE-----\n" }
 * }</pre>
 *
 * @param planFile       the plan's file name when approved (for people: the hash is what counts)
 * @param by             who approves, as given to {@code --by}; with a signature, the identity the allowed_signers
 *                       file names for the key
 * @param user           the OS user that ran {@code plan approve}
 * @param allowedOptions the options of {@link SafeguardOption} that {@code execute} may be run with under this
 *                       approval, in the order that enum lists them; absent: none (version 2; a version 1 approval
 *                       allows none)
 * @param sshSignature   {@code ssh-keygen -Y sign -n kafka-unclean-recovery} over {@link #signedContent}; absent
 *                       when approved by name only
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
        @JsonInclude(JsonInclude.Include.NON_EMPTY) List<String> allowedOptions,
        @JsonInclude(JsonInclude.Include.NON_NULL) String sshSignature) {

    /** 2 adds allowedOptions, and signs them with the plan's SHA-256 ({@link #signedContent}), no longer the plan. */
    public static final int VERSION = 2;

    private static final StrictJsonFile<PlanApproval> FORMAT = new StrictJsonFile<>(PlanApproval.class, "approval", 1,
            VERSION, "'kafka-unclean-recovery.sh plan approve'", PlanFormatException::new);

    /** At most this many approvals of one plan are looked at: {@code -approval.json} to {@code -approval-99.json}. */
    private static final int MOST = 99;

    /**
     * An option of {@code execute} that turns off one of its safeguards: with {@code --require-approval} it is refused
     * unless the approval allows it. Options that only add checks, or choose where files go, need no approval.
     */
    public enum SafeguardOption {
        NO_SALVAGE("--no-salvage", "elects without copying what the elections truncate"),
        ALLOW_UNPROBED_LEADER("--allow-unprobed-leader", "elects a designated leader the plan has no live evidence of"),
        WITHOUT_LOCK("--without-lock", "changes the cluster without the run lock"),
        ACCEPT_UNKNOWN_LOSS("--accept-unknown-loss", "exits 0 where a replica's loss is not known");

        private final String option;
        private final String weakens;

        SafeguardOption(String option, String weakens) {
            this.option = option;
            this.weakens = weakens;
        }

        /** As {@code execute} takes it: {@code --no-salvage}. */
        public String option() {
            return option;
        }

        /** What running with it does that a run without it would not. */
        public String weakens() {
            return weakens;
        }

        /** {@code no-salvage} or {@code --no-salvage}; null when it names none. */
        public static SafeguardOption named(String name) {
            String option = name.startsWith("--") ? name : "--" + name;
            for (SafeguardOption o : values()) {
                if (o.option.equals(option)) {
                    return o;
                }
            }
            return null;
        }

        /** Every option, as {@code execute} takes them: for messages. */
        public static String all() {
            return String.join(", ", Arrays.stream(values()).map(SafeguardOption::option).toList());
        }
    }

    public PlanApproval {
        Checks.text(by, "by");
        if (!planSha256.matches("[0-9a-f]{64}")) {
            throw Checks.invalid("planSha256", "must be 64 lower-case hex digits, found '" + planSha256 + "'");
        }
        TreeSet<SafeguardOption> allowed = new TreeSet<>();
        List<String> given = allowedOptions == null ? List.of() : allowedOptions;
        for (int i = 0; i < given.size(); i++) {
            SafeguardOption o = given.get(i) == null ? null : SafeguardOption.named(given.get(i));
            if (o == null || !o.option().equals(given.get(i))) {
                throw Checks.invalid("allowedOptions[" + i + "]", "must be one of " + SafeguardOption.all()
                        + ", found '" + given.get(i) + "'");
            }
            allowed.add(o);
        }
        if (version < 2 && !allowed.isEmpty()) {
            throw Checks.invalid("allowedOptions", "needs approval version 2: version 1 signed the plan alone");
        }
        allowedOptions = allowed.stream().map(SafeguardOption::option).toList();
    }

    /** The options this approval allows {@code execute} to run with. */
    public Set<SafeguardOption> allowed() {
        Set<SafeguardOption> allowed = EnumSet.noneOf(SafeguardOption.class);
        allowedOptions.forEach(o -> allowed.add(SafeguardOption.named(o)));
        return allowed;
    }

    /**
     * What the SSH signature covers: version 2, a statement of the plan's SHA-256 and the options allowed, so that
     * neither can be changed without the key; version 1, the plan's bytes themselves ({@code plan}).
     */
    public byte[] signedContent(byte[] plan) {
        return version < 2 ? plan : statement(planSha256, allowed());
    }

    /** The statement a version 2 approval signs: three lines, the options in their order here. */
    public static byte[] statement(String planSha256, Set<SafeguardOption> allowed) {
        StringBuilder text = new StringBuilder("kafka-unclean-recovery plan approval\nplanSha256 ").append(planSha256)
                .append("\nallowedOptions");
        new TreeSet<>(allowed).forEach(o -> text.append(' ').append(o.option()));
        return text.append('\n').toString().getBytes(StandardCharsets.UTF_8);
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

    /**
     * A file of approvals beside the plan: what it says, or why it is no approval.
     *
     * @param approval null when the file could not be read as one
     * @param problem  why not (empty, not JSON, a field missing, unreadable), naming the file; null for an approval
     */
    public record Found(Path file, PlanApproval approval, String problem) {
    }

    /**
     * Every approval file beside {@code planFile}, in the order of their names; a gap in the numbers ends the list.
     * Each is judged on its own: one that cannot be read is listed with why, and does not hide the next.
     */
    public static List<Found> beside(Path planFile) {
        List<Found> found = new ArrayList<>();
        for (int n = 1; n <= MOST; n++) {
            Path file = pathFor(planFile, n);
            if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
                break;
            }
            try {
                found.add(new Found(file, read(file), null));
            } catch (IOException | UserInputException e) {
                String why = String.valueOf(e.getMessage());
                found.add(new Found(file, null, why.startsWith(file.toString()) ? why : file + ": " + why));
            }
        }
        return found;
    }
}
