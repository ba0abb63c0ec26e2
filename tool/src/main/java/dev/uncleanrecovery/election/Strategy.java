// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.election;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/**
 * When to elect, in the words of KIP-966 ({@code unclean.recovery.strategy}).
 *
 * <p>Both strategies elect the same replica once they decide; they differ in whom they wait for.
 */
public enum Strategy {
    /**
     * Elect only when every ELR and LastKnownELR member has answered (live, or through its log read
     * from disk). Those members held the committed data last; electing without knowing their logs can
     * truncate exactly what this tool exists to keep.
     */
    BALANCED,
    /** Elect from whoever answered by the probe deadline. Faster, and may lose more. */
    PROACTIVE;

    public static final Strategy DEFAULT = BALANCED;

    /** As the command line and the plan file spell it: {@code balanced}. */
    @JsonValue
    public String spelling() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The spelling: picocli lists the constants so in help, completion and errors. */
    @Override
    public String toString() {
        return spelling();
    }
}
