// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.UserInputException;
import org.apache.kafka.common.errors.LeaderNotAvailableException;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** What each topic-level error says, and whether the operator must fix something or only run again. */
class UnreadableTopicTest {

    @Test
    void a_topic_the_principal_may_not_describe_names_the_acl_to_grant() {
        UnreadableTopic audit = UnreadableTopic.of("audit", Errors.TOPIC_AUTHORIZATION_FAILED, true);

        assertThat(audit.badInput()).isTrue();
        assertThat(audit.error()).isEqualTo("TOPIC_AUTHORIZATION_FAILED");
        assertThat(audit.describe()).isEqualTo("topic 'audit' not read (TOPIC_AUTHORIZATION_FAILED): not authorized to"
                + " describe topic 'audit': grant DESCRIBE on it to this principal (see README Permissions)");
        assertThat(audit.toException()).isInstanceOf(UserInputException.class).hasMessage(audit.reason());
    }

    @Test
    void an_unknown_topic_is_a_typo_when_named_and_a_deletion_when_the_cluster_listed_it() {
        UnreadableTopic named = UnreadableTopic.of("ordres", Errors.UNKNOWN_TOPIC_OR_PARTITION, true);
        UnreadableTopic listed = UnreadableTopic.of("orders", Errors.UNKNOWN_TOPIC_OR_PARTITION, false);

        assertThat(named.badInput()).isTrue();
        assertThat(named.reason()).isEqualTo("unknown topic 'ordres' (check the name with kafka-topics.sh --list)");
        assertThat(listed.badInput()).isFalse();
        assertThat(listed.reason()).startsWith("topic 'orders' was listed a moment ago and is unknown now: deleted")
                .endsWith("; run again");
    }

    @Test
    void a_topic_without_a_leader_yet_is_run_again_not_fixed() {
        UnreadableTopic creating = UnreadableTopic.of("orders", Errors.LEADER_NOT_AVAILABLE, true);

        assertThat(creating.badInput()).isFalse();
        assertThat(creating.reason()).startsWith("describing topic 'orders' failed with LEADER_NOT_AVAILABLE (")
                .endsWith("); run again");
        assertThat(creating.toException()).isInstanceOf(LeaderNotAvailableException.class);
    }
}
