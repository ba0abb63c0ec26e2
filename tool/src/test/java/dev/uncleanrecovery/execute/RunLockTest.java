// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.apache.kafka.common.internals.Topic;
import org.junit.jupiter.api.Test;

/** How the run lock's owner topic names its holder; the cluster behaviour is in ConcurrentExecuteClusterTest. */
class RunLockTest {

    @Test
    void the_owner_topic_names_pid_process_start_and_host_even_a_host_with_dots() {
        assertThat(RunLock.parseOwner("4242.1700000000000.bastion.eu-west-1.example"))
                .isEqualTo(new RunOwner("bastion.eu-west-1.example", 4242, Instant.parse("2023-11-14T22:13:20Z")));
        assertThat(RunLock.parseOwner("4242.0.bastion")).isEqualTo(new RunOwner("bastion", 4242, null));
    }

    @Test
    void a_name_that_is_not_an_owner_topic_names_nobody() {
        assertThat(RunLock.parseOwner("4242")).isNull();
        assertThat(RunLock.parseOwner("pid.start.host")).isNull();
    }

    @Test
    void a_host_name_becomes_a_legal_topic_name() {
        String safe = RunLock.topicSafe("ops host:1/büro");
        assertThat(safe).isEqualTo("ops-host-1-b-ro");
        Topic.validate(RunLock.LOCK_TOPIC + ".AAAAAAAAAAAAAAAAAAAAAQ.1.0." + safe);
    }
}
