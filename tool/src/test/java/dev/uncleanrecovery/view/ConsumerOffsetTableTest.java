// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.view;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.formats.ConsumerOffsetReset;
import dev.uncleanrecovery.formats.ConsumerOffsetReset.Outcome;
import dev.uncleanrecovery.formats.DivergencePoint.Basis;
import dev.uncleanrecovery.recovery.ConsumerOffsetRepair;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConsumerOffsetTableTest {

    @Test
    void a_dry_run_says_what_each_group_would_be_set_to_and_that_nothing_changed() {
        ConsumerOffsetRepair.Repair repair = new ConsumerOffsetRepair.Repair(List.of(
                new ConsumerOffsetReset("billing", "paid", 0, 15, 10, Basis.NEW_LOG_END, null, Outcome.WOULD_RESET, null),
                new ConsumerOffsetReset("fraud-scoring-with-a-long-group-name", "payments.settled.v2", 11, 4_000_123,
                        3_999_870, Basis.REPLICA_CUT, 3, Outcome.ACTIVE_GROUP, "state Stable, 2 members: scorer-1"
                        + " (/10.0.0.7), scorer-2 (/10.0.0.8): Kafka will refuse while it has members; stop its"
                        + " consumers first")), List.of(), 2);
        StringWriter printed = new StringWriter();

        ConsumerOffsetTable.print(repair, false, new PrintWriter(printed, true));

        assertThat(printed.toString())
                .containsPattern("billing\\s+paid-0\\s+15\\s+10\\s+new log end\\s+WOULD_RESET")
                .containsPattern("payments.settled.v2-11\\s+4000123\\s+3999870\\s+cut of 3\\s+ACTIVE_GROUP")
                .contains("scorer-2 (/10.0.0.8)")
                .contains("Dry run: 1 offset(s) would be set to the divergence point, 1 would not. Nothing was changed.");
        assertThat(printed.toString().lines()).allSatisfy(l -> assertThat(l.length()).isLessThanOrEqualTo(120));
    }

    @Test
    void no_group_past_the_point_is_one_line_and_exit_0() {
        ConsumerOffsetRepair.Repair repair = new ConsumerOffsetRepair.Repair(List.of(), List.of(), 3);
        StringWriter printed = new StringWriter();

        ConsumerOffsetTable.print(repair, true, new PrintWriter(printed, true));

        assertThat(printed.toString()).isEqualTo("Consumer groups past the divergence point of the 3 elected"
                + " partition(s): none; no offset was changed." + System.lineSeparator());
    }
}
