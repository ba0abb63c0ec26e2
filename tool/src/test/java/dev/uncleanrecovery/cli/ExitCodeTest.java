// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.cluster.UnreadableTopic;
import dev.uncleanrecovery.formats.ConsumerOffsetReset;
import dev.uncleanrecovery.formats.ConsumerOffsetReset.Outcome;
import dev.uncleanrecovery.formats.DivergencePoint.Basis;
import dev.uncleanrecovery.recovery.ConsumerOffsetRepair;
import java.util.List;
import org.junit.jupiter.api.Test;

/** README "Exit codes": for status and plan when some topics could not be read, for an offset repair. */
class ExitCodeTest {

    private static final UnreadableTopic NOT_AUTHORIZED = new UnreadableTopic("audit", "TOPIC_AUTHORIZATION_FAILED",
            "not authorized", true);
    private static final UnreadableTopic DELETED = new UnreadableTopic("tmp", "UNKNOWN_TOPIC_OR_PARTITION",
            "deleted since listed", false);

    @Test
    void every_topic_read_leaves_the_code_as_it_was() {
        assertThat(ExitCode.withUnreadableTopics(ExitCode.OK, List.of())).isEqualTo(ExitCode.OK);
        assertThat(ExitCode.withUnreadableTopics(ExitCode.ATTENTION, List.of())).isEqualTo(ExitCode.ATTENTION);
    }

    @Test
    void a_topic_to_read_again_is_attention_even_when_nothing_else_is() {
        assertThat(ExitCode.withUnreadableTopics(ExitCode.OK, List.of(DELETED))).isEqualTo(ExitCode.ATTENTION);
        assertThat(ExitCode.withUnreadableTopics(ExitCode.ATTENTION, List.of(DELETED))).isEqualTo(ExitCode.ATTENTION);
    }

    @Test
    void a_missing_acl_is_bad_input_even_beside_an_offline_partition() {
        assertThat(ExitCode.withUnreadableTopics(ExitCode.ATTENTION, List.of(DELETED, NOT_AUTHORIZED)))
                .isEqualTo(ExitCode.USAGE);
        assertThat(ExitCode.withUnreadableTopics(ExitCode.OK, List.of(NOT_AUTHORIZED))).isEqualTo(ExitCode.USAGE);
    }

    @Test
    void a_group_past_its_divergence_point_that_keeps_its_offset_is_attention() {
        ConsumerOffsetReset reset = new ConsumerOffsetReset("billing", "paid", 0, 15, 10, Basis.NEW_LOG_END, null,
                Outcome.WOULD_RESET, null);
        ConsumerOffsetReset active = new ConsumerOffsetReset("scoring", "paid", 1, 40, 30, Basis.NEW_LOG_END, null,
                Outcome.ACTIVE_GROUP, "state Stable, 2 members");

        assertThat(ExitCode.of(new ConsumerOffsetRepair.Repair(List.of(reset), List.of(), 2))).isEqualTo(ExitCode.OK);
        assertThat(ExitCode.of(new ConsumerOffsetRepair.Repair(List.of(reset, active), List.of(), 2)))
                .isEqualTo(ExitCode.ATTENTION);
        assertThat(ExitCode.of(new ConsumerOffsetRepair.Repair(List.of(), List.of(), 3))).isEqualTo(ExitCode.OK);
    }
}
