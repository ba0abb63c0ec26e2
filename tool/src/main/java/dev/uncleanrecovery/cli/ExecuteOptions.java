// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import dev.uncleanrecovery.cluster.ClusterDiscovery;
import dev.uncleanrecovery.formats.Plan;
import dev.uncleanrecovery.formats.PlanApproval;
import dev.uncleanrecovery.formats.ResultFile;
import dev.uncleanrecovery.recovery.ConsumerOffsetRepair;
import dev.uncleanrecovery.UserInputException;
import dev.uncleanrecovery.execute.PlanExecution;
import dev.uncleanrecovery.execute.RunLock;
import dev.uncleanrecovery.probe.ProbeMode;
import dev.uncleanrecovery.recovery.ExecuteFlow;
import dev.uncleanrecovery.salvage.SalvageStore;
import dev.uncleanrecovery.support.RunFiles;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import picocli.CommandLine.Option;

/** How {@code execute} and {@code recover --automated-recovery} apply a plan. */
class ExecuteOptions {

    @Option(names = "--result-file", paramLabel = "FILE",
            description = "Where to write the result (default: next to the plan, <plan>-result.json). Never"
                    + " overwritten: a later run writes <name>-2.json, -3, ... and says where.")
    Path resultFile;

    @Option(names = "--all-or-nothing",
            description = "If any partition of the plan is refused, elect none of them.")
    boolean allOrNothing;

    @Option(names = "--allow-unprobed-leader",
            description = "Elect a designatedLeader that has no live evidence in the plan (hand-edited plans).")
    boolean allowUnprobedLeader;

    @Option(names = "--reprobe-timeout-ms", paramLabel = "MS", defaultValue = "10000",
            description = "Deadline for probing each designated replica again just before electing (default: ${DEFAULT-VALUE}).")
    long reprobeTimeoutMs;

    @Option(names = "--verify-timeout-ms", paramLabel = "MS", defaultValue = "30000",
            description = "How long to wait for elected partitions to show their new leader (default: ${DEFAULT-VALUE}).")
    long verifyTimeoutMs;

    @Option(names = "--salvage-dir", paramLabel = "DIR",
            description = "Where the records the elections will truncate are copied before electing (default: next to"
                    + " the plan, <plan>-salvage/).")
    Path salvageDir;

    @Option(names = "--no-salvage",
            description = "Elect without copying the records the elections will truncate: they are lost for good.")
    boolean noSalvage;

    @Option(names = "--without-lock",
            description = "Change the cluster without taking the run lock (the topic " + RunLock.LOCK_TOPIC + "), where"
                    + " it cannot be taken: you vouch that no other run is active; two runs at once can undo each"
                    + " other's reorders.")
    boolean withoutLock;

    @Option(names = "--break-lock", paramLabel = "LOCK_ID",
            description = "Remove the run lock of that id first, with its owner topic: a run that holds it on another"
                    + " host or container has ended (check there). The refusal names the id; an id that is not the run"
                    + " lock's is refused.")
    String breakLock;

    @Option(names = "--restore-journal", paramLabel = "FILE",
            description = "Put back first the replica orders that reorder journal FILE records (a run that did not"
                    + " finish left it), whoever wrote it: only orders of the same replicas, each only where the"
                    + " cluster still shows it as recorded. Without it, only the journals of runs of this very plan"
                    + " are put back; any other found beside the plan is listed with this option. Repeatable.")
    List<Path> restoreJournals;

    @Option(names = "--accept-unknown-loss",
            description = "Exit 0, not 3, when an elected partition has a replica whose loss is not known (its broker"
                    + " is down and no 'inspect' evidence or salvage says what it holds).")
    boolean acceptUnknownLoss;

    @Option(names = "--abort-hanging-transactions",
            description = "After electing, abort the hanging transactions found on the elected partitions (as"
                    + " kafka-transactions.sh abort does, with its checks), so read_committed consumers read on.")
    boolean abortHangingTransactions;

    @Option(names = "--reset-consumer-offsets",
            description = "After electing, set each consumer group whose committed offset lies past the divergence"
                    + " point of an elected partition back to it (see 'consumer-offsets'); with --dry-run only shown."
                    + " A group with members is left as it is and named.")
    boolean resetConsumerOffsets;

    /**
     * {@code --reset-consumer-offsets}: the consumer groups of the run's result set back to the divergence point of
     * what it elected; null when not asked for. The elections are made by then: a repair that cannot be done is a note
     * (exit 3), and the result file is written all the same.
     *
     * @param change     set the offsets (a run that elects); otherwise only show them (a dry run)
     * @param resultFile where the result goes: the resets are recorded beside it
     */
    ConsumerOffsetRepair.Repair resetConsumerOffsets(ClusterDiscovery discovery, Plan plan, ResultFile elected,
                                                     boolean change, Path resultFile) {
        if (!resetConsumerOffsets) {
            return null;
        }
        try {
            return change ? ConsumerOffsetRepair.run(discovery, plan, elected, resultFile, true)
                    : ConsumerOffsetRepair.preview(discovery, plan, elected, resultFile);
        } catch (IOException | RuntimeException e) {
            return ConsumerOffsetRepair.Repair.notDone("consumer group offsets not set: "
                    + ErrorReporter.reported(e, null).line() + " — run 'consumer-offsets --result-file' on the result"
                    + " file once that is fixed");
        }
    }

    /** The options given that turn a safeguard off: with {@code --require-approval} the approval allows each. */
    Set<PlanApproval.SafeguardOption> safeguardsOff() {
        Set<PlanApproval.SafeguardOption> off = EnumSet.noneOf(PlanApproval.SafeguardOption.class);
        if (noSalvage) {
            off.add(PlanApproval.SafeguardOption.NO_SALVAGE);
        }
        if (allowUnprobedLeader) {
            off.add(PlanApproval.SafeguardOption.ALLOW_UNPROBED_LEADER);
        }
        if (withoutLock) {
            off.add(PlanApproval.SafeguardOption.WITHOUT_LOCK);
        }
        if (acceptUnknownLoss) {
            off.add(PlanApproval.SafeguardOption.ACCEPT_UNKNOWN_LOSS);
        }
        return off;
    }

    /** @param probeMode how the designated replicas are probed again (the plan's own {@code --probe-mode}) */
    ExecuteFlow.Options options(ProbeMode probeMode) {
        return options(probeMode, false);
    }

    ExecuteFlow.Options options(ProbeMode probeMode, boolean dryRun) {
        return new ExecuteFlow.Options(allowUnprobedLeader,
                PlanOptions.probeWithin("--reprobe-timeout-ms", reprobeTimeoutMs),
                verifyWithin(verifyTimeoutMs), probeMode, new PlanExecution.Mode(dryRun, allOrNothing),
                salvageDir, noSalvage, new ExecuteFlow.Locking(withoutLock, lockId()), acceptUnknownLoss,
                abortHangingTransactions, restoreJournals);
    }

    /** Under a second the new leaders rarely show even on a healthy cluster: refused, like a probe under 100 ms. */
    private static Duration verifyWithin(long deadlineMs) {
        if (deadlineMs < 1000) {
            throw new UserInputException("--verify-timeout-ms must be at least 1000, not " + deadlineMs);
        }
        return Duration.ofMillis(deadlineMs);
    }

    private Uuid lockId() {
        if (breakLock == null) {
            return null;
        }
        if (withoutLock) {
            throw new UserInputException("--break-lock and --without-lock: choose one");
        }
        try {
            return Uuid.fromString(breakLock);
        } catch (IllegalArgumentException e) {
            throw new UserInputException("--break-lock " + breakLock + ": not a lock id (the base64 topic id a refusal"
                    + " names)", e);
        }
    }

    /**
     * Adds the files a run that elects writes: the result file (the first free name from there on) and the salvage
     * directory.
     *
     * @param planFile the plan, when known before the run (null: {@code recover} writes it in the run, under a name
     *                 of its time); only the options given are added then
     */
    RunFiles electing(RunFiles files, Path planFile) {
        files.createsFirstFree("--result-file", planFile == null ? resultFile : resultFile(planFile));
        if (!noSalvage) {
            files.createsIn("--salvage-dir", salvageDir != null || planFile == null ? salvageDir
                    : SalvageStore.besidePlan(planFile), List.of());
        }
        return files;
    }

    Path resultFile(Path planFile) {
        if (resultFile != null) {
            return resultFile;
        }
        String name = planFile.getFileName().toString();
        String base = name.endsWith(".json") ? name.substring(0, name.length() - 5) : name;
        return planFile.resolveSibling(base + "-result.json");
    }
}
