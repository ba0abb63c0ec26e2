// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.salvage;

import java.nio.file.Path;
import java.time.Instant;

/**
 * The salvage directory of one plan: each doomed range a Kafka segment file of the original record batches beside a
 * JSON manifest, written durably and never over an earlier one.
 */
public final class SalvageStore {

    /** The plan the salvage belongs to, as its manifests name it. */
    public record PlanReference(String planFile, String clusterId, Instant planCreatedAt) {
    }

    private final Path directory;
    private final PlanReference plan;

    private SalvageStore(Path directory, PlanReference plan) {
        this.directory = directory;
        this.plan = plan;
    }

    /** The salvage directory {@code execute} uses by default: {@code <plan>-salvage/} beside the plan file. */
    public static Path besidePlan(Path planFile) {
        String name = planFile.getFileName().toString();
        String stem = name.endsWith(".json") ? name.substring(0, name.length() - ".json".length()) : name;
        return planFile.resolveSibling(stem + "-salvage");
    }

    public static SalvageStore open(Path directory, PlanReference plan) {
        return new SalvageStore(directory, plan);
    }

    public Path directory() {
        return directory;
    }

    public PlanReference plan() {
        return plan;
    }

    /**
     * Checks that {@code copied} is whole (every batch's CRC, offsets contiguous from a batch holding
     * {@code fromOffset} to {@code toOffset - 1}) and writes it: fsync, atomic rename, never over an existing file.
     *
     * @throws SalvageException when the batches do not cover the range whole or cannot be written
     */
    public SalvagedFile write(CopiedBatches copied) throws SalvageException {
        throw new UnsupportedOperationException("not built");
    }
}
