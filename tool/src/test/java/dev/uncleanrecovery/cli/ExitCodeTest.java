// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.cluster.UnreadableTopic;
import java.util.List;
import org.junit.jupiter.api.Test;

/** README "Exit codes" for status and plan when some topics could not be read. */
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
}
