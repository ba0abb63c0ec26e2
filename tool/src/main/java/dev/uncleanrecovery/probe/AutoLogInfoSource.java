// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.probe;

import dev.uncleanrecovery.connect.BrokerApiVersions;
import dev.uncleanrecovery.connect.BrokerConnections;
import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.wire.GetReplicaLogInfo;
import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntFunction;

/**
 * {@code --probe-mode auto}, chosen per broker: GetReplicaLogInfo where the broker advertises
 * it in ApiVersions (the companion patch runs there), the stock RPCs everywhere else. Never sends
 * the private api key to a broker that did not advertise it: a stock broker closes the connection.
 */
public final class AutoLogInfoSource implements ReplicaLogInfoSource {

    private final IntFunction<CompletableFuture<BrokerApiVersions>> apiVersions;
    private final short nativeApiKey;
    private final short nativeVersion;
    private final ReplicaLogInfoSource nativeSource;
    private final ReplicaLogInfoSource stockSource;
    private final ConcurrentHashMap<Integer, EvidenceSource> chosen = new ConcurrentHashMap<>();

    /**
     * @param apiVersions per broker, what it advertises ({@link BrokerConnections#apiVersions(int)})
     */
    public AutoLogInfoSource(IntFunction<CompletableFuture<BrokerApiVersions>> apiVersions, short nativeApiKey,
                             short nativeVersion, ReplicaLogInfoSource nativeSource, ReplicaLogInfoSource stockSource) {
        this.apiVersions = apiVersions;
        this.nativeApiKey = nativeApiKey;
        this.nativeVersion = nativeVersion;
        this.nativeSource = nativeSource;
        this.stockSource = stockSource;
    }

    /** GetReplicaLogInfo under the api key in force in this JVM, stock RPCs as the fallback. */
    public static AutoLogInfoSource of(BrokerConnections connections, ReplicaLogInfoSource nativeSource) {
        return new AutoLogInfoSource(connections::apiVersions, GetReplicaLogInfo.apiKey(), GetReplicaLogInfo.VERSION,
                nativeSource, new StockLogInfoSource(connections));
    }

    @Override
    public EvidenceSource kindFor(int brokerId) {
        return chosen.getOrDefault(brokerId, EvidenceSource.STOCK);
    }

    /** Each broker's ApiVersions, which decides what to ask it: asked before any batch is built. */
    @Override
    public void prepare(Collection<Integer> brokerIds, Duration timeout) {
        brokerIds.forEach(apiVersions::apply);
    }

    @Override
    public CompletableFuture<ProbeBatchAnswer> probe(ProbeBatch batch) {
        // A failed ApiVersions fails the batch like any unanswered request; the engine asks again.
        return apiVersions.apply(batch.brokerId()).thenCompose(versions -> {
            boolean patched = versions.advertises(nativeApiKey, nativeVersion);
            chosen.put(batch.brokerId(), patched ? EvidenceSource.NATIVE : EvidenceSource.STOCK);
            return (patched ? nativeSource : stockSource).probe(batch);
        });
    }
}
