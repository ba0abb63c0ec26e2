// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.formats;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Reads and writes plan files. Writing is atomic (a temporary file in the same directory, then a hard link) and never
 * replaces an existing file: a plan under review must not change under the reviewer's eyes. Reading checks everything
 * a hand edit can break and says, in one line, where and what to fix:
 * {@code plan.json: partitions[2].partition must be an integer, found "3"}.
 */
public final class PlanFile {

    private static final StrictJsonFile<Plan> FORMAT = new StrictJsonFile<>(Plan.class, "plan", Plan.OLDEST_READ, Plan.VERSION,
            "'kafka-unclean-recovery.sh plan'", PlanFormatException::new);

    private PlanFile() {
    }

    /**
     * Writes a new plan file; returns the SHA-256 of what it wrote (what {@link #sha256} reads back).
     *
     * @throws dev.uncleanrecovery.UserInputException if {@code file} exists or its directory does not
     */
    public static String write(Path file, Plan plan) throws IOException {
        return FORMAT.writeHashed(file, plan);
    }

    /**
     * @throws PlanFormatException with the file, the JSON path and what to fix
     * @throws dev.uncleanrecovery.UserInputException if the file does not exist or cannot be read
     */
    public static Plan read(Path file) throws IOException {
        return FORMAT.read(file);
    }

    /**
     * A plan and the SHA-256 of the very bytes it was parsed from: what an approval and the audit log name, with no
     * second read in which the file could change.
     *
     * @param sha256 lower-case hex
     */
    public record Hashed(Plan plan, byte[] bytes, String sha256) {
    }

    /** {@link #read}, with the hash of what was read. */
    public static Hashed readHashed(Path file) throws IOException {
        byte[] bytes = FORMAT.readBytes(file);
        return new Hashed(FORMAT.parse(file.toString(), bytes), bytes, Sha256.hex(bytes));
    }

    /** SHA-256 of the plan file's bytes, as {@link #readHashed} names them. */
    public static String sha256(Path file) throws IOException {
        return Sha256.hex(FORMAT.readBytes(file));
    }

    /**
     * Parses a plan held in memory.
     *
     * @param source how to name the plan in messages, usually its path
     */
    public static Plan parse(String source, byte[] json) {
        return FORMAT.parse(source, json);
    }
}
