// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.view;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class PartitionRowsTest {

    @Test
    void partitions_alike_share_one_row_and_the_one_that_differs_keeps_its_own() {
        PartitionRows rows = new PartitionRows();
        for (int p = 0; p < 6; p++) {
            rows.add(new TopicPartition("orders", p), p == 4 ? "loses 3 committed records" : "loses nothing",
                    "2", p == 4 ? "3: 3 [7..10)" : "none");
        }
        rows.add(new TopicPartition("payments", 1), "loses nothing", "2", "none");

        String text = print(rows);

        assertThat(text.lines().filter(l -> l.contains("none"))).singleElement().asString()
                .startsWith("orders-0..3,5, payments-1 (6 partitions)");
        assertThat(text).containsPattern("(?m)^orders-4 +2 +3: 3 \\[7\\.\\.10\\)$")
                .contains("loses 3 committed records");
        assertThat(text.lines().filter(l -> l.contains("loses nothing"))).hasSize(1);
    }

    @Test
    void one_partition_is_named_as_kafka_names_it() {
        assertThat(PartitionRows.label(List.of(new TopicPartition("orders", 7)))).isEqualTo("orders-7");
        assertThat(PartitionRows.label(List.of(new TopicPartition("orders", 7), new TopicPartition("orders", 8))))
                .isEqualTo("orders-7,8 (2 partitions)");
    }

    @Test
    void a_long_list_is_cut_and_counted() {
        List<TopicPartition> even = IntStream.range(0, 2500).map(i -> 2 * i).mapToObj(i -> new TopicPartition("bench", i))
                .toList();

        String label = PartitionRows.label(even);

        assertThat(label).startsWith("bench-0,2,4,6,").endsWith(" … (2500 partitions)");
        assertThat(label.length()).isLessThanOrEqualTo(PartitionRows.LABEL_WIDTH + " … (2500 partitions)".length());
        assertThat(PartitionRows.label(IntStream.range(0, 5000).mapToObj(i -> new TopicPartition("bench", i)).toList()))
                .isEqualTo("bench-0..4999 (5000 partitions)");
    }

    private static String print(PartitionRows rows) {
        Table table = new Table("PARTITION", "LEADER", "TRUNCATION");
        rows.into(table);
        StringWriter text = new StringWriter();
        table.print(new PrintWriter(text));
        return text.toString();
    }
}
