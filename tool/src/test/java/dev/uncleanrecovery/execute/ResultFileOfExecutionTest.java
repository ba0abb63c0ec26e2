// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.formats.ResultFile;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ResultFileOfExecutionTest {

    @TempDir
    Path dir;

    @Test
    void the_result_file_written_from_an_execution_reads_back_as_its_entries_in_order() throws Exception {
        // given: 1,000 outcomes, every tenth refused, each with its state before and after
        List<PartitionOutcome> outcomes = new ArrayList<>();
        for (int p = 0; p < 1000; p++) {
            TopicPartitionState before = state(p, -1, 4);
            boolean refused = p % 10 == 0;
            outcomes.add(new PartitionOutcome(before.topicPartition(), 2, refused ? Outcome.REFUSED : Outcome.ELECTED,
                    refused ? "leader epoch changed since the plan" : "elected 2", before,
                    refused ? before : state(p, 2, 5)));
        }
        ExecutionResult execution = new ExecutionResult("q1Sh-9_ISia_zwGINzRvyQ", "plan.json",
                Instant.parse("2026-12-04T19:00:00Z"), Duration.ofMillis(1234), "stock", outcomes)
                .withTruncations(Map.of(new TopicPartition("orders", 1),
                        List.of(new MeasuredTruncation(3, 10, 12, 30))));

        // when
        ResultFile expected = execution.toResultFile("kafka-unclean-recovery 0.1.0", "127.0.0.1:9092");
        Path written = ResultFile.write(dir.resolve("plan-result.json"), expected);

        // then
        ResultFile read = ResultFile.read(written);
        assertThat(read).isEqualTo(expected);
        assertThat(read.summary().elected()).isEqualTo(900);
        assertThat(read.summary().refused()).isEqualTo(100);
        assertThat(read.partitions()).hasSize(1000);
        assertThat(read.partitions().get(1).after().leader()).isEqualTo(2);
        assertThat(read.partitions().get(1).truncations()).singleElement()
                .satisfies(t -> assertThat(t.measuredFromOffset()).isEqualTo(12L));
        assertThat(read.partitions().get(10).outcome()).isEqualTo("REFUSED");
    }

    private static TopicPartitionState state(int partition, int leader, int leaderEpoch) {
        return new TopicPartitionState("orders", new Uuid(42, 7), partition, leader, leaderEpoch, List.of(1, 2, 3),
                leader < 0 ? List.of() : List.of(leader), List.of(), List.of(), List.of());
    }
}
