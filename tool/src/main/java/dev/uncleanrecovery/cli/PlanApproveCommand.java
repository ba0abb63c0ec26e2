// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import dev.uncleanrecovery.UserInputException;
import dev.uncleanrecovery.formats.Json;
import dev.uncleanrecovery.formats.PlanApproval;
import dev.uncleanrecovery.formats.PlanFile;
import dev.uncleanrecovery.recovery.PlanApprovals;
import dev.uncleanrecovery.view.PlanPrinter;
import dev.uncleanrecovery.view.Table;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

@Command(name = "approve", mixinStandardHelpOptions = true, sortOptions = false,
        header = "Record an approval of a plan's exact content beside it, for 'execute --require-approval'.",
        description = {"Write <plan>-approval.json beside the plan (-2, -3, ... for more approvers; never replaced):"
                + " the SHA-256 of the plan's bytes, who approves (--by), when, the options it allows, and with"
                + " --ssh-key a signature of that hash and those options made by ssh-keygen -Y sign. 'execute"
                + " --require-approval' elects only a plan an approval names by that hash: one edited after its"
                + " approval is refused, and so is a run with an option that weakens a safeguard unless the approval"
                + " allows it (--allow-option). Without a signature the name is only what was typed; with one,"
                + " 'execute --allowed-signers FILE' checks it belongs to the key FILE lists for that name. Reads only"
                + " the plan; never connects."})
public class PlanApproveCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @ParentCommand
    PlanCommand plan;

    @Mixin
    PlanFileOption planFile;

    @Option(names = "--by", paramLabel = "NAME", required = true,
            description = "Who approves: with --ssh-key, the name the allowed_signers file gives the key (e.g. an"
                    + " e-mail address).")
    String by;

    @Option(names = "--ssh-key", paramLabel = "KEY",
            description = "Sign the plan with this SSH key (the private key file, or the public one of a key the"
                    + " ssh-agent holds); ssh-keygen asks for its passphrase.")
    Path sshKey;

    @Option(names = "--allow-option", paramLabel = "OPTION", split = ",",
            description = "Let 'execute --require-approval' run this plan with OPTION, which weakens a safeguard:"
                    + " no-salvage, allow-unprobed-leader, without-lock or accept-unknown-loss (repeat, or separate"
                    + " with commas). Without it the approval allows none of them.")
    List<String> allowOptions = List.of();

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        Path written = PlanApprovals.approve(planFile.path, by, sshKey, allowed(), ToolVersion.describe(),
                Instant.now());
        PlanApproval approval = PlanApproval.read(written);
        if (plan.root.global.output == GlobalOptions.OutputFormat.json) {
            out.println(Json.mapper().writeValueAsString(approval));
        } else {
            Table.printWrapped(out, "Approved by " + approval.by() + (approval.sshSignature() == null ? " (by name, not"
                    + " signed)" : " (signed with " + sshKey + ")") + ": " + planFile.path + ", SHA-256 "
                    + approval.planSha256() + (approval.allowedOptions().isEmpty() ? ""
                    : ", allowing " + String.join(" ", approval.allowedOptions())) + ". Written to " + written + ".",
                    4);
            PlanPrinter.printApplyApproved(PlanFile.read(planFile.path), planFile.path.toString(),
                    approval.sshSignature() != null, approval.allowedOptions(), out);
        }
        return ExitCode.OK;
    }

    /** {@code --allow-option}, each a name of {@link PlanApproval.SafeguardOption} with or without its dashes. */
    private Set<PlanApproval.SafeguardOption> allowed() {
        Set<PlanApproval.SafeguardOption> allowed = EnumSet.noneOf(PlanApproval.SafeguardOption.class);
        for (String name : allowOptions) {
            PlanApproval.SafeguardOption option = PlanApproval.SafeguardOption.named(name.strip());
            if (option == null) {
                throw new UserInputException("--allow-option " + name + ": not an option that weakens a safeguard;"
                        + " one of " + PlanApproval.SafeguardOption.all());
            }
            allowed.add(option);
        }
        return allowed;
    }
}
