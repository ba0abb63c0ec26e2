// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.recovery;

import dev.uncleanrecovery.UserInputException;
import dev.uncleanrecovery.logdir.LogDirInspector;
import dev.uncleanrecovery.logdir.LogDirReport;
import dev.uncleanrecovery.logdir.PartitionFilter;
import dev.uncleanrecovery.formats.Plan;
import dev.uncleanrecovery.formats.PlanFile;
import dev.uncleanrecovery.formats.PlannedElection;
import dev.uncleanrecovery.salvage.DiskSalvage;
import dev.uncleanrecovery.salvage.SalvageStore;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.common.TopicPartition;

/**
 * The flow of {@code inspect --salvage-beyond PLAN}: a stopped broker's log dirs read for the plan's partitions, and
 * what each of them holds beyond where the election cuts it copied into the plan's salvage directory.
 */
public final class DiskSalvageFlow {

    /**
     * @param report    what was read of the log dirs
     * @param directory where the copies went
     * @param outcomes  per partition of the plan that was asked for
     */
    public record Copied(LogDirReport report, Path directory, List<DiskSalvage.Outcome> outcomes) {
        public Copied {
            outcomes = List.copyOf(outcomes);
        }
    }

    private DiskSalvageFlow() {
    }

    /**
     * @param salvageDir null: the plan's own, beside it (where {@code execute} and {@code replay} look)
     */
    public static Copied copy(List<Path> logDirs, PartitionFilter wanted, Path planFile, Path salvageDir,
                              String toolVersion, DiskSalvage.Progress progress) throws Exception {
        Plan plan = PlanFile.read(planFile);
        List<TopicPartition> partitions = plan.partitions().stream().map(PlannedElection::topicPartition)
                .filter(tp -> wanted.matches(tp.topic(), tp.partition())).toList();
        if (partitions.isEmpty()) {
            throw new UserInputException(planFile + " elects no partition" + (wanted.selectsAll() ? "" : " of " + wanted)
                    + ": nothing to salvage");
        }
        LogDirReport report = new LogDirInspector().inspect(logDirs, PartitionFilter.exactly(partitions));
        if (report.brokerId() < 0) {
            throw new UserInputException("no --log-dir has a readable meta.properties, so the broker these logs belong"
                    + " to is unknown: pass the broker's log.dirs entries (" + report.logDirs().get(0).error() + ")");
        }
        if (report.clusterId() != null && !report.clusterId().equals(plan.clusterId())) {
            throw new UserInputException("the log dirs belong to cluster " + report.clusterId() + ", " + planFile
                    + " to cluster " + plan.clusterId() + ": give this broker's plan");
        }
        Path dir = salvageDir != null ? salvageDir : SalvageStore.besidePlan(planFile);
        report.requireOutside("--salvage-dir", dir);
        SalvageStore store = SalvageStore.open(dir, new SalvageStore.PlanReference(planFile.toString(),
                plan.clusterId(), plan.createdAt()), toolVersion);
        Plan selected = new Plan(plan.version(), plan.createdAt(), plan.clusterId(), plan.tool(), plan.strategy(),
                plan.unansweredBrokers(), plan.partitions().stream()
                .filter(p -> partitions.contains(p.topicPartition())).toList(), List.of(), plan.notes());
        return new Copied(report, dir, new DiskSalvage(selected, report, store, progress).run());
    }
}
