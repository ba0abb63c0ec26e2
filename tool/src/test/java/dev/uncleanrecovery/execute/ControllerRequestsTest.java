// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.IntStream;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * The one split of every controller write: at most 9,999 partitions a request (see ControllerCalls for why not
 * 10,000), every partition exactly once, in order.
 */
class ControllerRequestsTest {

    private static List<TopicPartition> partitions(int count) {
        return IntStream.range(0, count).mapToObj(i -> new TopicPartition("t" + i / 100, i % 100)).toList();
    }

    @Test
    void up_to_9999_partitions_go_in_one_request() {
        List<TopicPartition> all = partitions(9_999);

        assertThat(ControllerCalls.requests(all)).containsExactly(all);
        assertThat(ControllerCalls.requests(List.of())).isEmpty();
    }

    @Test
    void ten_thousand_and_more_are_split_at_9999_in_order() {
        assertThat(ControllerCalls.requests(partitions(10_000))).extracting(List::size).containsExactly(9_999, 1);
        List<TopicPartition> all = partitions(25_001);

        List<List<TopicPartition>> requests = ControllerCalls.requests(all);

        assertThat(requests).extracting(List::size).containsExactly(9_999, 9_999, 5_003);
        assertThat(requests.stream().flatMap(List::stream).toList()).isEqualTo(all);
    }
}
