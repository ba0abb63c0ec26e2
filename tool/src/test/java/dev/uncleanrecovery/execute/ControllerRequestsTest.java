// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.IntStream;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * Both electors' requests (reorders, stock and designated elections) stay under the controller's limit of 10,000
 * records per request (one record per partition), and every partition is sent exactly once, in order.
 */
class ControllerRequestsTest {

    private static List<TopicPartition> partitions(int count) {
        return IntStream.range(0, count).mapToObj(i -> new TopicPartition("t" + i / 100, i % 100)).toList();
    }

    @Test
    void up_to_ten_thousand_partitions_go_in_one_request() {
        List<TopicPartition> all = partitions(10_000);

        assertThat(ControllerCalls.requests(all)).containsExactly(all);
        assertThat(ControllerCalls.requests(List.of())).isEmpty();
    }

    @Test
    void more_are_split_at_ten_thousand_in_order() {
        List<TopicPartition> all = partitions(25_001);

        List<List<TopicPartition>> requests = ControllerCalls.requests(all);

        assertThat(requests).extracting(List::size).containsExactly(10_000, 10_000, 5_001);
        assertThat(requests.stream().flatMap(List::stream).toList()).isEqualTo(all);
    }
}
