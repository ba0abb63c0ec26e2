// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.uncleanrecovery.UserInputException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.internals.Topic;
import org.junit.jupiter.api.Test;

/**
 * How the run lock's owner topic names its holder, and what --break-lock removes, against a controller in memory; the
 * cluster behaviour is in ConcurrentExecuteClusterTest and RunLockOwnerClusterTest.
 */
class RunLockTest {

    private static final Uuid LOCK = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ");
    private static final RunOwner.ProcessTable TABLE = new RunOwner.ProcessTable("6c841718-5c4b-49ba-bab5-62cab637f453",
            4026531836L);

    private final CappedController controller = new CappedController();

    private static String tail(String ownerTopic) {
        return ownerTopic.substring((RunLock.LOCK_TOPIC + "." + LOCK + ".").length());
    }

    @Test
    void the_owner_topic_names_pid_process_table_start_and_host_even_a_host_with_dots() {
        RunOwner owner = new RunOwner("bastion.eu-west-1.example", 4242, Instant.parse("2023-11-14T22:13:20Z"), TABLE,
                55456);

        String name = RunLock.ownerTopic(LOCK, owner);

        Topic.validate(name);
        assertThat(name).isEqualTo(RunLock.LOCK_TOPIC + "." + LOCK + ".pid-4242.started-1700000000000.ticks-55456"
                + ".boot-6c841718-5c4b-49ba-bab5-62cab637f453.pidns-4026531836.bastion.eu-west-1.example");
        assertThat(RunLock.parseOwner(tail(name))).isEqualTo(owner);
    }

    @Test
    void an_owner_that_cannot_say_its_process_table_is_named_so() {
        RunOwner owner = new RunOwner("unknown", 7, null, null, -1);

        String name = RunLock.ownerTopic(LOCK, owner);

        Topic.validate(name);
        assertThat(RunLock.parseOwner(tail(name))).isEqualTo(owner);
        assertThat(owner.seen().liveness()).isEqualTo(RunOwner.Liveness.UNKNOWN);
    }

    @Test
    void the_owner_topic_stays_a_legal_topic_name_whatever_the_host() {
        RunOwner owner = new RunOwner("h".repeat(300) + ":1/büro", Long.MAX_VALUE, Instant.ofEpochMilli(Long.MAX_VALUE),
                TABLE, Long.MAX_VALUE);

        String name = RunLock.ownerTopic(LOCK, owner);

        assertThat(name).hasSizeLessThanOrEqualTo(249);
        Topic.validate(name);
        RunOwner parsed = RunLock.parseOwner(tail(name));
        assertThat(parsed.table()).isEqualTo(TABLE);
        assertThat(parsed.pid()).isEqualTo(Long.MAX_VALUE);
        assertThat(parsed.host()).startsWith("hhhh");
    }

    @Test
    void an_owner_topic_of_an_older_version_names_a_run_whose_end_cannot_be_proven() {
        RunOwner old = RunLock.parseOwner("4242.1700000000000.bastion.eu-west-1.example");

        assertThat(old).isEqualTo(new RunOwner("bastion.eu-west-1.example", 4242,
                Instant.parse("2023-11-14T22:13:20Z"), null, -1));
        assertThat(old.seen().liveness()).isEqualTo(RunOwner.Liveness.UNKNOWN);
        assertThat(RunLock.parseOwner("4242.0.bastion")).isEqualTo(new RunOwner("bastion", 4242, null, null, -1));
    }

    @Test
    void a_name_that_is_not_an_owner_topic_names_nobody() {
        assertThat(RunLock.parseOwner("4242")).isNull();
        assertThat(RunLock.parseOwner("pid.start.host")).isNull();
        assertThat(RunLock.parseOwner("pid-1.started-2.ticks-3.boot-not-a-boot-id.pidns-4.host")).isNull();
        assertThat(RunLock.parseOwner("pid-1.started-2.ticks-3.host")).isNull();
    }

    @Test
    void a_host_name_becomes_a_legal_topic_name() {
        String safe = RunLock.topicSafe("ops host:1/büro");
        assertThat(safe).isEqualTo("ops-host-1-b-ro");
        Topic.validate(RunLock.LOCK_TOPIC + "." + LOCK + ".1.0." + safe);
    }

    @Test
    void break_lock_with_the_id_of_another_topic_deletes_nothing() {
        Uuid orders = controller.calls().createTopic("orders").topicId();
        Uuid lock = controller.calls().createTopic(RunLock.LOCK_TOPIC).topicId();

        assertThatThrownBy(() -> RunLock.take(controller.calls(), orders, s -> { }))
                .isInstanceOf(UserInputException.class)
                .hasMessage("--break-lock " + orders + ": that id is topic 'orders', not the run lock (topic "
                        + RunLock.LOCK_TOPIC + ", id " + lock + "); nothing was deleted. Give the id that the refusal"
                        + " of the run lock printed");
        assertThatThrownBy(() -> RunLock.take(controller.calls(), Uuid.randomUuid(), s -> { }))
                .isInstanceOf(UserInputException.class).hasMessageContaining("no topic of this cluster has that id");
        assertThat(controller.writes("DeleteTopics")).isEmpty();
    }

    @Test
    void break_lock_removes_the_lock_and_its_owner_topic_and_nothing_else() {
        Uuid lock = controller.calls().createTopic(RunLock.LOCK_TOPIC).topicId();
        Uuid owner = controller.calls().createTopic(RunLock.ownerTopic(lock,
                new RunOwner("other-host", 4242, null, null, -1))).topicId();
        Uuid orders = controller.calls().createTopic("orders").topicId();
        List<String> said = new ArrayList<>();

        RunLock taken = RunLock.take(controller.calls(), lock, said::add);

        assertThat(controller.writes("DeleteTopics").get(0).names())
                .containsExactlyInAnyOrder(lock.toString(), owner.toString());
        assertThat(said).contains("run lock " + lock + " broken (--break-lock), with its owner topic");
        assertThat(taken.lockId()).isNotEqualTo(lock);
        taken.close();
        assertThat(controller.calls().topicsNamed("")).containsOnlyKeys("orders").containsValue(orders);
    }

    @Test
    void a_lock_whose_owner_cannot_be_judged_is_held() {
        Uuid lock = controller.calls().createTopic(RunLock.LOCK_TOPIC).topicId();
        controller.calls().createTopic(RunLock.ownerTopic(lock, new RunOwner("unknown", 4242, null,
                new RunOwner.ProcessTable(TABLE.bootId(), 1), 5000)));

        assertThatThrownBy(() -> RunLock.take(controller.calls(), null, s -> { })).isInstanceOf(RunLock.Held.class)
                .hasMessageContaining("holds the run lock " + lock)
                .hasMessageContaining("This host cannot tell whether it has ended")
                .hasMessageEndingWith("--break-lock " + lock);
        assertThat(controller.writes("DeleteTopics")).isEmpty();
    }
}
