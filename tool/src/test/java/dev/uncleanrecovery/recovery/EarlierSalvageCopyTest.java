// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.execute.Salvage;
import dev.uncleanrecovery.salvage.CopiedBatches;
import dev.uncleanrecovery.salvage.DoomedRange;
import dev.uncleanrecovery.salvage.LiveReplicaReader;
import dev.uncleanrecovery.salvage.SalvageFixture;
import dev.uncleanrecovery.salvage.SalvageSource;
import dev.uncleanrecovery.salvage.SalvageStore;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which copy already in the salvage directory stands for a doomed range of a broker that is down: found by topic name,
 * partition and broker, it must also be of the same log — the plan's cluster, the range's topic id, offsets that cover
 * the range, and epochs no newer than the plan saw. Anything else is a copy of an earlier incident and is not used.
 */
class EarlierSalvageCopyTest {

    private static final TopicPartition ORDERS_2 = new TopicPartition("orders", 2);
    private static final Uuid ORDERS_ID = Uuid.fromString("m0uMP1nXQ4mAkRTb3e6u1Q");
    private static final Uuid RECREATED_ID = Uuid.fromString("Zm9yLXJlLWNyZWF0ZWQtMQ");
    private static final String CLUSTER = "q1Sh-9_ISia_zwGINzRvyQ";
    /** The copy's last batch (the fixture's offsets 11 and 12) is of this leader epoch. */
    private static final int LAST_BATCH_EPOCH = 4;

    @TempDir
    Path dir;

    @Test
    void a_copy_of_the_same_log_is_used() throws Exception {
        copyInDirectory(CLUSTER, ORDERS_ID, LAST_BATCH_EPOCH);

        Salvage.EarlierCopy earlier = alreadyKept(CLUSTER, doomed(ORDERS_ID, 13, LAST_BATCH_EPOCH));

        assertThat(earlier.file()).isNotNull();
        assertThat(earlier.file().lastOffset()).isEqualTo(12);
        assertThat(earlier.notUsed()).isEmpty();
    }

    @Test
    void a_copy_whose_last_batch_is_older_than_the_epoch_the_plan_saw_is_used() throws Exception {
        // the replica was made leader of epoch 5 and cached it at its log end before it wrote a batch of it (KIP-101)
        copyInDirectory(CLUSTER, ORDERS_ID, LAST_BATCH_EPOCH);

        Salvage.EarlierCopy earlier = alreadyKept(CLUSTER, doomed(ORDERS_ID, 13, 5));

        assertThat(earlier.file()).isNotNull();
    }

    @Test
    void a_copy_made_in_another_cluster_is_not_used() throws Exception {
        copyInDirectory("other-cluster", ORDERS_ID, LAST_BATCH_EPOCH);

        Salvage.EarlierCopy earlier = alreadyKept(CLUSTER, doomed(ORDERS_ID, 13, LAST_BATCH_EPOCH));

        assertThat(earlier.file()).isNull();
        assertThat(earlier.notUsed()).containsExactly(copyOf() + " was made in cluster other-cluster, this plan's is "
                + CLUSTER + ": another cluster's log; not used");
    }

    @Test
    void a_copy_of_a_topic_deleted_and_re_created_under_its_name_is_not_used() throws Exception {
        copyInDirectory(CLUSTER, ORDERS_ID, LAST_BATCH_EPOCH);

        Salvage.EarlierCopy earlier = alreadyKept(CLUSTER, doomed(RECREATED_ID, 13, LAST_BATCH_EPOCH));

        assertThat(earlier.file()).isNull();
        assertThat(earlier.notUsed()).containsExactly(copyOf() + " is of topic id " + ORDERS_ID + ", this plan's topic"
                + " has " + RECREATED_ID + ": a topic deleted and re-created under its name; not used");
    }

    @Test
    void a_copy_without_a_topic_id_is_not_used_for_a_range_with_one() throws Exception {
        copyInDirectory(CLUSTER, Uuid.ZERO_UUID, LAST_BATCH_EPOCH);

        Salvage.EarlierCopy earlier = alreadyKept(CLUSTER, doomed(ORDERS_ID, 13, LAST_BATCH_EPOCH));

        assertThat(earlier.file()).isNull();
        assertThat(earlier.notUsed()).containsExactly(copyOf() + " names no topic id, this plan's topic has " + ORDERS_ID
                + ": it cannot be told from a topic deleted and re-created under its name; not used");
    }

    @Test
    void a_copy_whose_last_batch_is_newer_than_the_epoch_the_plan_saw_is_not_used() throws Exception {
        copyInDirectory(CLUSTER, ORDERS_ID, LAST_BATCH_EPOCH);

        Salvage.EarlierCopy earlier = alreadyKept(CLUSTER, doomed(ORDERS_ID, 13, 3));

        assertThat(earlier.file()).isNull();
        assertThat(earlier.notUsed()).containsExactly(copyOf() + " ends in a batch of leader epoch 4, newer than the"
                + " epoch 3 the plan saw on the replica: written after the plan's probe; not used");
    }

    @Test
    void a_copy_made_when_the_replica_had_a_newer_epoch_than_the_plan_saw_is_not_used() throws Exception {
        // then the replica cached epoch 6; the plan sees 5: its log was truncated since, and the offsets written again
        copyInDirectory(CLUSTER, ORDERS_ID, 6);

        Salvage.EarlierCopy earlier = alreadyKept(CLUSTER, doomed(ORDERS_ID, 13, 5));

        assertThat(earlier.file()).isNull();
        assertThat(earlier.notUsed()).containsExactly(copyOf() + " was made when the replica's latest epoch was 6, the"
                + " plan saw 5: the log was truncated and written again since; not used");
    }

    @Test
    void a_copy_that_does_not_cover_the_range_is_not_used() throws Exception {
        copyInDirectory(CLUSTER, ORDERS_ID, LAST_BATCH_EPOCH);

        Salvage.EarlierCopy earlier = alreadyKept(CLUSTER, doomed(ORDERS_ID, 20, LAST_BATCH_EPOCH));

        assertThat(earlier.file()).isNull();
        assertThat(earlier.notUsed()).containsExactly(copyOf() + " holds [1..13), not all of [1..20); not used");
    }

    /** A copy of orders-2 broker 3 [1, 13), written under another plan of {@code clusterId}. */
    private void copyInDirectory(String clusterId, Uuid topicId, int lastWrittenEpoch) throws Exception {
        new CopiedBatches(doomed(topicId, 13, lastWrittenEpoch), List.of(SalvageSource.DISK),
                SalvageFixture.copied().chunks()).writeTo(SalvageStore.open(dir,
                new SalvageStore.PlanReference("/ops/earlier-plan.json", clusterId, Instant.EPOCH)));
    }

    private Salvage.EarlierCopy alreadyKept(String planCluster, DoomedRange range) {
        return new LiveSalvage(dir, new SalvageStore.PlanReference("/ops/plan.json", planCluster, Instant.now()),
                () -> {
                    throw new AssertionError("a broker that is down is not read");
                }, LiveReplicaReader.Settings.defaults(), line -> { }).alreadyKept(range);
    }

    private static DoomedRange doomed(Uuid topicId, long toOffset, int lastWrittenEpoch) {
        return new DoomedRange(ORDERS_2, topicId, 3, 1, toOffset, lastWrittenEpoch);
    }

    private String copyOf() {
        return "a copy of orders-2 broker 3 in " + dir.resolve("orders-2").resolve("broker-3");
    }
}
