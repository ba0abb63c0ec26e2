// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.probe;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;

/**
 * A round of the DivergingEpoch search asks every partition still searching in one Fetch, grouped by topic, each
 * with its own LastFetchedEpoch; topics go by name up to v12 and by id from v13.
 */
class DivergenceFetchTest {

    private static final Uuid ORDERS = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ");
    private static final Uuid PAYMENTS = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAg");

    /** Interleaved topics, as a broker's batch can be: the request groups them by topic, first appearance first. */
    private static final List<PartitionToProbe> BATCH = List.of(
            new PartitionToProbe(new TopicPartition("orders", 3), ORDERS, 7),
            new PartitionToProbe(new TopicPartition("payments", 0), PAYMENTS, 2),
            new PartitionToProbe(new TopicPartition("orders", 1), ORDERS, 7),
            new PartitionToProbe(new TopicPartition("payments", 5), PAYMENTS, 0),
            new PartitionToProbe(new TopicPartition("orders", 0), ORDERS, 4));

    @Test
    void every_partition_still_searching_is_asked_grouped_by_topic_with_its_probe() {
        StockLogInfoSource.BatchPositions positions = new StockLogInfoSource.BatchPositions(BATCH);
        LatestEpochSearch[] searches = BATCH.stream().map(p -> new LatestEpochSearch(p.metadataLeaderEpoch()))
                .toArray(LatestEpochSearch[]::new);
        StockLogInfoSource.DivergenceFetch request =
                new StockLogInfoSource.DivergenceFetch(positions, new int[] {0, 1, 2, 3, 4}, searches);
        assertThat(request.latestAllowedVersion()).isEqualTo(ApiKeys.FETCH.latestVersion());

        FetchRequestData data = StockLogInfoSource.divergenceFetch(request.latestAllowedVersion(),
                        positions.divergenceQuestions(request.order, request.probes))
                .build(ApiKeys.FETCH.latestVersion()).data();

        assertThat(data.replicaState().replicaId()).isEqualTo(-2);
        assertThat(data.maxWaitMs()).isZero();
        assertThat(data.topics()).extracting(FetchRequestData.FetchTopic::topicId).containsExactly(ORDERS, PAYMENTS);
        assertThat(data.topics().get(0).partitions()).extracting(FetchRequestData.FetchPartition::partition)
                .containsExactly(3, 1, 0);
        assertThat(data.topics().get(1).partitions()).extracting(FetchRequestData.FetchPartition::partition)
                .containsExactly(0, 5);
        FetchRequestData.FetchPartition orders3 = data.topics().get(0).partitions().get(0);
        assertThat(orders3.lastFetchedEpoch()).isEqualTo(searches[0].nextProbe());
        assertThat(orders3.fetchOffset()).isEqualTo(Long.MAX_VALUE);
        assertThat(orders3.partitionMaxBytes()).isZero();
    }

    @Test
    void a_topic_without_id_caps_the_version_at_names() {
        List<PartitionToProbe> batch = new ArrayList<>(BATCH);
        batch.add(new PartitionToProbe(new TopicPartition("legacy", 0), Uuid.ZERO_UUID, 1));
        StockLogInfoSource.BatchPositions positions = new StockLogInfoSource.BatchPositions(batch);
        LatestEpochSearch[] searches = batch.stream().map(p -> new LatestEpochSearch(p.metadataLeaderEpoch()))
                .toArray(LatestEpochSearch[]::new);
        StockLogInfoSource.DivergenceFetch request =
                new StockLogInfoSource.DivergenceFetch(positions, new int[] {5, 0}, searches);
        assertThat(request.latestAllowedVersion()).isEqualTo((short) 12);
        FetchRequestData data = StockLogInfoSource.divergenceFetch(request.latestAllowedVersion(),
                positions.divergenceQuestions(request.order, request.probes)).build((short) 12).data();
        assertThat(data.topics()).extracting(FetchRequestData.FetchTopic::topic).containsExactly("legacy", "orders");
    }

    @Test
    void answers_are_matched_in_order_and_out_of_order() {
        StockLogInfoSource.BatchPositions positions = new StockLogInfoSource.BatchPositions(BATCH);
        assertThat(positions.find("orders", 1, 2)).isEqualTo(2);          // where it was expected
        assertThat(positions.find("orders", 1, 0)).isEqualTo(2);          // elsewhere: found by lookup
        assertThat(positions.find("payments", 5, 99)).isEqualTo(3);
        assertThat(positions.find("orders", 2, 0)).isEqualTo(-1);         // not in the batch
        assertThat(positions.find("unknown", 0, -1)).isEqualTo(-1);
    }

    @Test
    void grouping_by_topic_is_stable() {
        StockLogInfoSource.BatchPositions positions = new StockLogInfoSource.BatchPositions(BATCH);
        assertThat(positions.groupByTopic(new int[] {0, 1, 2, 3, 4})).containsExactly(0, 2, 4, 1, 3);
        assertThat(positions.groupByTopic(new int[] {3, 4, 1})).containsExactly(3, 1, 4);
    }
}
