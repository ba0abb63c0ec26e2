// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.probe;

import dev.uncleanrecovery.connect.BrokerConnections;
import dev.uncleanrecovery.evidence.EvidenceSource;
import java.util.Locale;

/** {@code --probe-mode}: which RPCs ask a broker about its replicas' logs. */
public enum ProbeMode {
    /** GetReplicaLogInfo where the broker advertises it, the stock RPCs elsewhere, broker by broker. */
    AUTO,
    /** GetReplicaLogInfo only: replicas on brokers without the patch get ERROR evidence that says so. */
    NATIVE,
    /** ListOffsets and the Fetch DivergingEpoch search only, even where the patch runs. */
    STOCK;

    /** The name users type ({@code --probe-mode native}), which picocli lists in help, completion and errors. */
    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
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
