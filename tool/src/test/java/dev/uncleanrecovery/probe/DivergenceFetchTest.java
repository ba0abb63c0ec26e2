// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.probe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.protocol.FetchWire;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.junit.jupiter.api.Test;

/**
 * The DivergingEpoch Fetch is built straight from the request schema (no per-partition map, no intermediate
 * objects). Its bytes must be exactly what kafka-clients' own {@link FetchRequest.Builder} writes for the same
 * question, at every Fetch version the probe may use — topic names up to v12, ids from v13, ReplicaState from v15.
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
    void same_bytes_as_kafka_clients_builder_at_every_version() {
        StockLogInfoSource.BatchPositions positions = new StockLogInfoSource.BatchPositions(BATCH);
        LatestEpochSearch[] searches = BATCH.stream().map(p -> new LatestEpochSearch(p.metadataLeaderEpoch()))
                .toArray(LatestEpochSearch[]::new);
        int[] searching = {0, 1, 2, 3, 4};
        StockLogInfoSource.DivergenceFetch ours = new StockLogInfoSource.DivergenceFetch(positions, searching, searches);

        // The same question through kafka-clients: partitions grouped by topic in first-appearance order.
        Map<TopicPartition, FetchRequest.PartitionData> fetchData = new LinkedHashMap<>();
        for (int position : new int[] {0, 2, 4, 1, 3}) {
            PartitionToProbe p = BATCH.get(position);
            fetchData.put(p.topicPartition(), new FetchRequest.PartitionData(p.topicId(), Long.MAX_VALUE,
                    FetchRequest.INVALID_LOG_START_OFFSET, 0, Optional.empty(),
                    Optional.of(searches[position].nextProbe())));
        }
        assertThat(ours.latestAllowedVersion()).isEqualTo(ApiKeys.FETCH.latestVersion());
        for (short version = FetchWire.MIN_VERSION; version <= ApiKeys.FETCH.latestVersion(); version++) {
            FetchRequest.Builder theirs = new FetchRequest.Builder(version, version, ListOffsetsRequest.DEBUGGING_REPLICA_ID,
                    -1L, 0, 0, fetchData);
            FetchRequestData expected = theirs.build(version).data();
            ByteBuffer actual = FetchWire.divergenceRequest(version, -2, ours.asked, ours.probes);
            assertThat(actual).as("Fetch v%d", version).isEqualTo(bytes(expected, version));
        }
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
        FetchRequestData data = new FetchRequestData(new ByteBufferAccessor(
                FetchWire.divergenceRequest((short) 12, -2, request.asked, request.probes)), (short) 12);
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

    private static ByteBuffer bytes(FetchRequestData data, short version) {
        return MessageUtil.toByteBufferAccessor(data, version).buffer();
    }
}
