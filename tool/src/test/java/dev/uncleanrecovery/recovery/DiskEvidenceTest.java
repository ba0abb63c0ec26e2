// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.recovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.uncleanrecovery.UserInputException;
import dev.uncleanrecovery.cluster.ClusterSnapshot;
import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.logdir.LogDirReport;
import dev.uncleanrecovery.logdir.LogDirSummary;
import dev.uncleanrecovery.logdir.PartitionLogSummary;
import dev.uncleanrecovery.formats.EvidenceFile;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Evidence files as inspect writes them, read back from disk and checked against the cluster before they count: a
 * topic deleted and re-created under its name (a new topic id), another cluster, or logs that name neither.
 */
class DiskEvidenceTest {

    private static final Instant AT = Instant.parse("2026-12-04T06:00:00Z");
    private static final Path DATA = Path.of("/var/lib/kafka/data");
    private static final String CLUSTER = "q1Sh-9_ISia_zwGINzRvyQ";
    private static final Uuid OLD_ORDERS = Uuid.fromString("m0uMP1nXQ4mAkRTb3e6u1Q");
    private static final Uuid NEW_ORDERS = Uuid.fromString("Z9Xo3c1vQ6yGv2bS5Pp0kA");
    private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);
    private static final TopicPartition ORDERS_1 = new TopicPartition("orders", 1);

    @TempDir
    Path dir;

    @Test
    void a_log_of_the_current_topic_counts_as_that_replica_s_answer() throws IOException {
        EvidenceFile file = inspected(CLUSTER, NEW_ORDERS);

        DiskEvidence.Checked checked = DiskEvidence.check(List.of(file), cluster(NEW_ORDERS), offline(NEW_ORDERS), false);

        assertThat(checked.notes()).isEmpty();
        assertThat(checked.evidence().get(ORDERS_0)).singleElement().satisfies(e -> {
            assertThat(e.status()).isEqualTo(EvidenceStatus.OK);
            assertThat(e.source()).isEqualTo(EvidenceSource.DISK);
            assertThat(e.logEndOffset()).isEqualTo(110);
        });
    }

    @Test
    void the_logs_of_a_topic_deleted_and_re_created_under_its_name_are_refused_naming_both_ids() throws IOException {
        // given: broker 1 was down while orders was deleted and created again; its disk still has the old topic's logs
        EvidenceFile file = inspected(CLUSTER, OLD_ORDERS);

        // when: even with the flag that vouches for logs without ids
        DiskEvidence.Checked checked = DiskEvidence.check(List.of(file), cluster(NEW_ORDERS), offline(NEW_ORDERS), true);

        // then: each partition's disk answer is an error that says why, and the reviewer reads it once
        for (TopicPartition tp : List.of(ORDERS_0, ORDERS_1)) {
            assertThat(checked.evidence().get(tp)).singleElement().satisfies(e -> {
                assertThat(e.status()).isEqualTo(EvidenceStatus.ERROR);
                assertThat(e.isAnswered()).isFalse();
                assertThat(e.error()).contains("topic id " + OLD_ORDERS, "topic 'orders' is " + NEW_ORDERS,
                        "deleted and re-created").doesNotContain("\n");
            });
        }
        assertThat(checked.notes()).singleElement().asString()
                .startsWith("evidence of broker 1 for topic 'orders' not used: its log is of topic id " + OLD_ORDERS)
                .endsWith("(partitions 0, 1)");
    }

    @Test
    void a_log_without_a_topic_id_is_refused_unless_the_operator_vouches_for_it() throws IOException {
        EvidenceFile file = inspected(CLUSTER, null);

        DiskEvidence.Checked refused = DiskEvidence.check(List.of(file), cluster(NEW_ORDERS), offline(NEW_ORDERS), false);
        DiskEvidence.Checked accepted = DiskEvidence.check(List.of(file), cluster(NEW_ORDERS), offline(NEW_ORDERS), true);

        assertThat(refused.evidence().get(ORDERS_0)).singleElement().satisfies(e -> {
            assertThat(e.status()).isEqualTo(EvidenceStatus.ERROR);
            assertThat(e.error()).contains("no topic id", "--accept-unidentified-evidence");
        });
        assertThat(refused.notes()).singleElement().asString().contains("no topic id").endsWith("(partitions 0, 1)");
        assertThat(accepted.evidence().get(ORDERS_0)).singleElement()
                .satisfies(e -> assertThat(e.logEndOffset()).isEqualTo(110));
        assertThat(accepted.notes()).isEmpty();
    }

    @Test
    void a_file_that_names_no_cluster_fails_the_plan_unless_the_operator_vouches_for_it() throws IOException {
        EvidenceFile file = inspected(null, NEW_ORDERS);

        UserInputException refused = catchThrowableOfType(UserInputException.class,
                () -> DiskEvidence.check(List.of(file), cluster(NEW_ORDERS), offline(NEW_ORDERS), false));
        DiskEvidence.Checked accepted = DiskEvidence.check(List.of(file), cluster(NEW_ORDERS), offline(NEW_ORDERS), true);

        assertThat(refused).hasMessage("evidence file of broker 1 names no cluster id (its meta.properties has no"
                + " cluster.id), so it cannot be told from another cluster's; drop that file, or pass"
                + " --accept-unidentified-evidence if those log dirs are this cluster's (" + CLUSTER + ")");
        assertThat(accepted.evidence().get(ORDERS_0)).singleElement()
                .satisfies(e -> assertThat(e.status()).isEqualTo(EvidenceStatus.OK));
        assertThat(accepted.notes()).containsExactly("evidence of broker 1 names no cluster id; used as cluster "
                + CLUSTER + "'s because of --accept-unidentified-evidence");
    }

    @Test
    void another_cluster_s_file_fails_the_plan_whatever_the_flag() throws IOException {
        EvidenceFile file = inspected("GlDPZ_7eTkKnqAzMze75aQ", NEW_ORDERS);

        UserInputException refused = catchThrowableOfType(UserInputException.class,
                () -> DiskEvidence.check(List.of(file), cluster(NEW_ORDERS), offline(NEW_ORDERS), true));

        assertThat(refused).hasMessageStartingWith("evidence file of broker 1 is from cluster GlDPZ_7eTkKnqAzMze75aQ,"
                + " but --bootstrap-server is cluster " + CLUSTER);
    }

    @Test
    void partitions_the_plan_does_not_cover_are_left_out() throws IOException {
        EvidenceFile file = inspected(CLUSTER, OLD_ORDERS);

        DiskEvidence.Checked checked = DiskEvidence.check(List.of(file), cluster(NEW_ORDERS), List.of(), false);

        assertThat(checked.evidence()).isEmpty();
        assertThat(checked.notes()).isEmpty();
    }

    /** What inspect writes for broker 1's two orders logs, written to disk and read back as plan reads it. */
    private EvidenceFile inspected(String clusterId, Uuid topicIdOnDisk) throws IOException {
        LogDirReport report = new LogDirReport(AT,
                List.of(new LogDirSummary(DATA, 1, clusterId, null, true, 12, List.of(), null)),
                List.of(new PartitionLogSummary("orders", 0, topicIdOnDisk, 1, DATA, 0, 110, 0, 0, 0, true, 12, List.of(), null),
                        new PartitionLogSummary("orders", 1, topicIdOnDisk, 1, DATA, 0, 90, 0, 0, 0, true, 12, List.of(), null)),
                List.of());
        Path path = dir.resolve("evidence-broker-1-" + System.nanoTime() + ".json");
        EvidenceFile.from(report, "kafka-unclean-recovery test").write(path);
        return EvidenceFile.read(path);
    }

    private static ClusterSnapshot cluster(Uuid ordersId) {
        return new ClusterSnapshot(CLUSTER, 1000, List.of(), (short) 1, offline(ordersId), Map.of(), Set.of());
    }

    private static List<TopicPartitionState> offline(Uuid ordersId) {
        return List.of(ORDERS_0, ORDERS_1).stream().map(tp -> new TopicPartitionState("orders", ordersId,
                tp.partition(), TopicPartitionState.NO_LEADER, 3, List.of(1, 2, 3), List.of(), List.of(), List.of(1),
                List.of(1))).toList();
    }
}
