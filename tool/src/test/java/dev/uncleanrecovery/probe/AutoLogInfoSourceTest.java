// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.uncleanrecovery.connect.BrokerApiVersions.ApiRange;
import dev.uncleanrecovery.connect.BrokerApiVersions;
import dev.uncleanrecovery.connect.BrokerRequestException;
import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.evidence.ReplicaEvidence;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

/** Which source answers for which broker, decided from what each broker advertises. */
class AutoLogInfoSourceTest {

    private static final short NATIVE_KEY = 1966;

    /** Answers every partition with evidence of its own kind, and remembers which brokers it was asked about. */
    private static final class FixedSource implements ReplicaLogInfoSource {
        final EvidenceSource kind;
        final List<Integer> askedBrokers = new CopyOnWriteArrayList<>();

        FixedSource(EvidenceSource kind) {
            this.kind = kind;
        }

        @Override
        public EvidenceSource kindFor(int brokerId) {
            return kind;
        }

        @Override
        public CompletableFuture<ProbeBatchAnswer> probe(ProbeBatch batch) {
            askedBrokers.add(batch.brokerId());
            Map<TopicPartition, ReplicaEvidence> settled = new HashMap<>();
            batch.partitions().forEach(p -> settled.put(p.topicPartition(), ReplicaEvidence.answered(p.topicPartition(),
                    batch.brokerId(), kind, 10, 1, 2, kind == EvidenceSource.NATIVE ? 77 : -1, Instant.now())));
            return CompletableFuture.completedFuture(new ProbeBatchAnswer(settled, Map.of()));
        }
    }

    private static BrokerApiVersions versions(int broker, boolean patched) {
        List<ApiRange> apis = patched
                ? List.of(new ApiRange((short) 1, (short) 4, (short) 18), new ApiRange(NATIVE_KEY, (short) 0, (short) 0))
                : List.of(new ApiRange((short) 1, (short) 4, (short) 18));
        return new BrokerApiVersions(broker, apis);
    }

    @Test
    void patched_brokers_answer_natively_and_the_others_with_stock_rpcs() {
        FixedSource nativeSource = new FixedSource(EvidenceSource.NATIVE);
        FixedSource stockSource = new FixedSource(EvidenceSource.STOCK);
        AutoLogInfoSource auto = new AutoLogInfoSource(
                broker -> broker == 3 ? CompletableFuture.failedFuture(new BrokerRequestException(3, true, "cannot connect"))
                        : CompletableFuture.completedFuture(versions(broker, broker == 1)),
                NATIVE_KEY, (short) 0, nativeSource, stockSource);
        PartitionToProbe orders0 = new PartitionToProbe(new TopicPartition("orders", 0), Uuid.randomUuid(), 2);

        ProbeResult result = new ProbeFanOut(auto, ProbeSettings.defaults().withTimeout(Duration.ofMillis(500)),
                broker -> "broker " + broker).run(Map.of(1, List.of(orders0), 2, List.of(orders0), 3, List.of(orders0)), null);

        assertThat(nativeSource.askedBrokers).containsOnly(1);
        assertThat(stockSource.askedBrokers).containsOnly(2);
        assertThat(result.evidenceFor(orders0.topicPartition())).extracting(ReplicaEvidence::source, ReplicaEvidence::status)
                .containsExactly(
                        tuple(EvidenceSource.NATIVE, EvidenceStatus.OK),
                        tuple(EvidenceSource.STOCK, EvidenceStatus.OK),
                        tuple(EvidenceSource.STOCK, EvidenceStatus.UNREACHABLE));
        assertThat(auto.kindFor(1)).isEqualTo(EvidenceSource.NATIVE);
    }
}
