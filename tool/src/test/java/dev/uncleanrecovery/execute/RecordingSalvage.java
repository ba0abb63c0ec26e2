// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import dev.uncleanrecovery.salvage.DoomedRange;
import dev.uncleanrecovery.salvage.SalvageSource;
import dev.uncleanrecovery.salvage.SalvagedFile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.kafka.common.TopicPartition;

/**
 * A {@link Salvage} for tests of the execution: it copies every range it is given but those of failing partitions,
 * and finds an earlier copy of a range only where a test put one on disk. The copy itself is exercised on real
 * brokers (SalvageClusterTest).
 */
final class RecordingSalvage implements Salvage {

    /** Every range it was asked to copy, in order. */
    final List<DoomedRange> asked = new ArrayList<>();
    /** Partitions whose ranges it cannot copy. */
    final Set<TopicPartition> failing = new HashSet<>();
    /** Ranges a stopped broker's disk already gave (inspect --salvage-beyond). */
    final Set<DoomedRange> onDisk = new HashSet<>();
    /** Why the copies found by name in the directory are not of the plan's log. */
    final List<String> notUsed = new ArrayList<>();
    private final Consumer<String> steps;

    /** @param steps told "salvage" when it copies */
    RecordingSalvage(Consumer<String> steps) {
        this.steps = steps;
    }

    @Override
    public Path directory() {
        return Path.of("plan-salvage");
    }

    @Override
    public List<Kept> keep(List<DoomedRange> ranges) {
        steps.accept("salvage");
        asked.addAll(ranges);
        return ranges.stream().map(r -> failing.contains(r.partition())
                ? new Kept(r, null, "broker " + r.broker() + " did not serve " + r.partition())
                : new Kept(r, fetched(r), null)).toList();
    }

    @Override
    public EarlierCopy alreadyKept(DoomedRange range) {
        boolean copied = onDisk.stream().anyMatch(d -> d.partition().equals(range.partition())
                && d.broker() == range.broker() && d.fromOffset() == range.fromOffset() && d.toOffset() == range.toOffset());
        return copied ? new EarlierCopy(fromDisk(range), List.of()) : new EarlierCopy(null, notUsed);
    }

    /** The file a copy from a live replica gives. */
    static SalvagedFile fetched(DoomedRange r) {
        return new SalvagedFile(r, List.of(SalvageSource.FETCH_DEBUG_REPLICA),
                Path.of("plan-salvage", r.partition() + "-" + r.broker() + ".log"),
                Path.of("plan-salvage", "manifest.json"), r.fromOffset(), r.toOffset() - 1, r.offsets(), 3,
                1234, "sha", "manifest-sha");
    }

    /** The file an earlier copy off a stopped broker's disk gave. */
    static SalvagedFile fromDisk(DoomedRange r) {
        return new SalvagedFile(r, List.of(SalvageSource.DISK),
                Path.of("plan-salvage", r.partition() + "-" + r.broker() + ".log"),
                Path.of("plan-salvage", "disk-manifest.json"), r.fromOffset(), r.toOffset() - 1,
                r.offsets(), 2, 999, "sha", "disk-manifest-sha");
    }
}
