// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RealClusterBenchmarkTest {

    @Test
    void an_outage_past_the_cap_is_spread_over_topics_each_createtopics_accepts() {
        assertThat(RealClusterBenchmark.topics(5_000)).containsExactly("bench");
        assertThat(RealClusterBenchmark.topics(9_999)).containsExactly("bench");
        assertThat(RealClusterBenchmark.topics(10_000)).containsExactly("bench-0", "bench-1");
        assertThat(RealClusterBenchmark.topics(19_500)).containsExactly("bench-0", "bench-1");
        assertThat(RealClusterBenchmark.topics(30_000)).hasSize(4);
        assertThatThrownBy(() -> RealClusterBenchmark.topics(19_501)).hasMessageContaining("multiple of 2");
    }

    @Test
    void an_earlier_build_runs_without_the_options_it_does_not_know() {
        List<String> command = List.of("recover", "--accept-unknown-loss", "--automated-recovery", "--reason", "test",
                "--strategy", "proactive");
        assertThat(RealClusterBenchmark.without(command, List.of(List.of("--reason", "test"),
                List.of("--accept-unknown-loss")))).containsExactly("recover", "--automated-recovery", "--strategy",
                "proactive");
        assertThat(RealClusterBenchmark.without(command, List.of())).isEqualTo(command);
        assertThatThrownBy(() -> RealClusterBenchmark.without(List.of("recover"), List.of(List.of("--reason", "test"))))
                .hasMessageContaining("not in the command");
    }

    @Test
    void the_heap_in_use_is_the_most_before_a_collection_or_at_exit(@TempDir Path dir) throws Exception {
        Path collected = dir.resolve("collected.log");
        Files.writeString(collected, """
                [0.007s][info][gc] Using Parallel
                [2.101s][info][gc] GC(0) Pause Young (Allocation Failure) 612M->87M(1024M) 41.220ms
                [3.550s][info][gc] GC(1) Pause Young (Allocation Failure) 580M->95M(1024M) 30.001ms
                [4.000s][info][gc,heap,exit] Heap
                [4.000s][info][gc,heap,exit]  PSYoungGen      total 611840K, used 204800K [0x1, 0x2, 0x3)
                [4.000s][info][gc,heap,exit]   eden space 524800K, 39% used [0x1,0x2,0x3)
                [4.000s][info][gc,heap,exit]  ParOldGen       total 1398272K, used 97280K [0x4, 0x5, 0x6)
                """);
        assertThat(RealClusterBenchmark.heapInUseMib(collected)).isEqualTo(612);
        assertThat(GcLog.read(collected)).isEqualTo(new GcLog(2, 612, 95, 295));

        Path never = dir.resolve("never.log");
        Files.writeString(never, """
                [0.007s][info][gc] Using Parallel
                [4.000s][info][gc,heap,exit]  PSYoungGen      total 611840K, used 314572K [0x1, 0x2, 0x3)
                [4.000s][info][gc,heap,exit]  ParOldGen       total 1398272K, used 0K [0x4, 0x5, 0x6)
                """);
        assertThat(RealClusterBenchmark.heapInUseMib(never)).isEqualTo(307);
        assertThat(RealClusterBenchmark.heapInUseMib(dir.resolve("missing.log"))).isEqualTo(-1);
    }
}
