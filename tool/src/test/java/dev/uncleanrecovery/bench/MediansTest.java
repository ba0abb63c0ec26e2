// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class MediansTest {

    private static RealClusterBenchmark.Row row(int n, String contender, long wallMillis, long wrongLeaders) {
        return new RealClusterBenchmark.Row(n, 1, contender, 0, wallMillis, wallMillis / 4, wallMillis / 2, wallMillis,
                wrongLeaders, 0, 0, wrongLeaders * 2, 100, -1, wallMillis / 2, -1, 3, "", null, 0, -1);
    }

    @Test
    void the_median_of_an_even_count_is_the_lower_middle_value_that_was_measured() {
        long[] walls = {40, 10, 30, 20};
        assertEquals(20, Medians.median(walls));
        assertEquals(30, Medians.median(new long[] {40, 10, 30}));
        assertArrayEquals(new long[] {40, 10, 30, 20}, walls, "the caller's values stay in their order");
    }

    @Test
    void the_ratio_is_of_the_medians_and_the_losses_are_the_worst_run() {
        List<RealClusterBenchmark.Row> rows = List.of(
                row(5000, "stock", 1000, 2500), row(5000, "tool", 3600, 0),
                row(5000, "stock", 1700, 2500), row(5000, "tool", 3000, 0),
                row(5000, "stock", 1500, 2400), row(5000, "tool", 2200, 0),
                row(1000, "stock", 900, 500), row(1000, "tool", 1800, 1));
        String table = Medians.table(rows);
        String line = table.lines().filter(l -> l.startsWith("| 5,000 |")).findFirst().orElseThrow();
        assertEquals("| 5,000 | 3 | 1,500 (1,000–1,700) | 3,000 (2,200–3,600) | 375 / 750 / 1,500 | 750 / 1,500 / 3,000"
                + " | 3 / 3 | 1,500 / 100 | **2.00×** | 1.00× / 2.00× | 2,500 / 0 | 5,000 / 0 |", line);
        assertTrue(table.lines().anyMatch(l -> l.equals("| 1,000 | 1 | 900 (900–900) | 1,800 (1,800–1,800) | 225 / 450"
                + " / 900 | 450 / 900 / 1,800 | 3 / 3 | 900 / 100 | **2.00×** | 1.00× / 2.00× | 500 / 1 | 1,000 / 2 |")),
                table);
        assertTrue(table.startsWith("| N | runs |"), table);
    }

    @Test
    void a_baseline_build_gets_its_own_table_against_this_build() {
        List<RealClusterBenchmark.Row> rows = List.of(
                row(5000, "tool", 4000, 0), row(5000, "baseline", 5000, 0),
                row(5000, "tool", 4400, 0), row(5000, "baseline", 4000, 1),
                row(5000, "tool", 3000, 0), row(5000, "baseline", 4400, 0));
        String table = Medians.table(rows);
        assertTrue(table.lines().anyMatch(l -> l.equals("| 5,000 | 3 | 4,000 (3,000–4,400) | 4,400 (4,000–5,000)"
                + " | 2,000 / 2,200 | **0.91×** | 0 / 1 | 0 / 2 |")), table);
        assertEquals(1, table.lines().filter(l -> l.startsWith("| N | runs | recover wall ms")).count(), table);
    }

    @Test
    void without_a_baseline_there_is_no_second_table() {
        String table = Medians.table(List.of(row(1000, "stock", 900, 500), row(1000, "tool", 1800, 0)));
        assertEquals(1, table.lines().filter(l -> l.startsWith("| N |")).count(), table);
    }
}
