// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.recovery;

import dev.uncleanrecovery.UserInputException;
import dev.uncleanrecovery.connect.BrokerConnections;
import dev.uncleanrecovery.execute.Salvage;
import dev.uncleanrecovery.salvage.DoomedRange;
import dev.uncleanrecovery.salvage.LiveReplicaReader;
import dev.uncleanrecovery.salvage.SalvageDirectory;
import dev.uncleanrecovery.salvage.SalvageStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;

/** {@link Salvage} from the live replicas: each range read with Fetch into the plan's salvage store as it arrives. */
final class LiveSalvage implements Salvage {

    private final Path directory;
    private final SalvageStore.PlanReference plan;
    private final Supplier<BrokerConnections> connections;
    private final LiveReplicaReader.Settings settings;
    private final Consumer<String> progress;
    private SalvageDirectory existing;

    /**
     * @param directory   opened, and connections asked for, only when some range is doomed: a run that truncates
     *                    nothing creates nothing
     */
    LiveSalvage(Path directory, SalvageStore.PlanReference plan, Supplier<BrokerConnections> connections,
                LiveReplicaReader.Settings settings, Consumer<String> progress) {
        this.directory = directory;
        this.plan = plan;
        this.connections = connections;
        this.settings = settings;
        this.progress = progress;
    }

    @Override
    public Path directory() {
        return directory;
    }

    @Override
    public List<Kept> keep(List<DoomedRange> ranges) {
        List<Kept> kept = new ArrayList<>();
        SalvageStore store = SalvageStore.open(directory, plan);
        for (LiveReplicaReader.Read read : new LiveReplicaReader(connections.get(), settings, progress)
                .read(ranges, store)) {
            kept.add(new Kept(read.range(), read.file(), read.isWhole() ? null : read.failure().getMessage()));
        }
        return kept;
    }

    @Override
    public EarlierCopy alreadyKept(DoomedRange range) {
        if (!Files.isDirectory(directory)) {
            return EarlierCopy.NONE;
        }
        if (existing == null) {
            try {
                existing = SalvageDirectory.read(directory);
            } catch (UserInputException e) {
                // a copy that does not match its manifest keeps nothing: the partition is refused with why
                String why = "salvage directory " + directory + " cannot be trusted: " + e.getMessage();
                progress.accept(why);
                return new EarlierCopy(null, List.of(why));
            }
        }
        List<String> notUsed = new ArrayList<>();
        for (SalvageDirectory.SalvagedRange copy : existing.ranges()) {
            if (!copy.range().partition().equals(range.partition()) || copy.range().broker() != range.broker()) {
                continue;
            }
            Optional<String> mismatch = copy.mismatch(range, plan.clusterId());
            if (mismatch.isEmpty()) {
                return new EarlierCopy(copy.asSalvagedFile(), List.of());
            }
            notUsed.add("a copy of " + range.partition() + " broker " + range.broker() + " in "
                    + copy.manifestFile().getParent() + " " + mismatch.get() + "; not used");
        }
        return new EarlierCopy(null, notUsed);
    }
}
