// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.probe;

import dev.uncleanrecovery.connect.BrokerConnections;
import dev.uncleanrecovery.evidence.EvidenceSource;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/** {@code --probe-mode}: which RPCs ask a broker about its replicas' logs. */
public enum ProbeMode {
    /** GetReplicaLogInfo where the broker advertises it, the stock RPCs elsewhere, broker by broker. */
    AUTO,
    /** GetReplicaLogInfo only: replicas on brokers without the patch get ERROR evidence that says so. */
    NATIVE,
    /** ListOffsets and the Fetch DivergingEpoch search only, even where the patch runs. */
    STOCK;

    /** The name users type. */
    public String optionValue() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** @return empty when the text is none of {@code auto}, {@code native}, {@code stock} */
    public static Optional<ProbeMode> parse(String text) {
        return Arrays.stream(values()).filter(m -> m.optionValue().equalsIgnoreCase(text == null ? "" : text.trim()))
                .findFirst();
    }

    public static String choices() {
        return Arrays.stream(values()).map(ProbeMode::optionValue).collect(Collectors.joining(", "));
    }

    /** The evidence source this mode asks brokers with. */
    public ReplicaLogInfoSource source(BrokerConnections connections) {
        return switch (this) {
            case AUTO -> AutoLogInfoSource.of(connections, NativeLogInfoSource.of(connections));
            case NATIVE -> NativeLogInfoSource.of(connections);
            case STOCK -> new StockLogInfoSource(connections);
        };
    }

    /** The source written on evidence for a broker that could not be asked at all (not registered). */
    public EvidenceSource unaskedSource() {
        return this == NATIVE ? EvidenceSource.NATIVE : EvidenceSource.STOCK;
    }
}
