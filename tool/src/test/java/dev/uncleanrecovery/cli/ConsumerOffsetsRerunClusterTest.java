// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.formats.ResultFile;
import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.PartitionView;
import dev.uncleanrecovery.localcluster.RoundProducer;
import dev.uncleanrecovery.localcluster.StopMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A group set back inside the new leader's log reads on in an older epoch, and a second repair leaves it there.
 * ledger-0 on [1, 2]: both got 20 records in epoch 0, then 1 alone 10 more (20..29). Broker 2, elected uncleanly,
 * wrote 20..34 in its own epoch, and group ledger-readers read them all and committed 35 with that epoch (KIP-320).
 * Then 2 died for good and 1 came back: the plan, with 2's disk read by {@code inspect}, elects 1, whose log parts
 * from 2's at 20. Broker 3 keeps __consumer_offsets online throughout.
 */
@KafkaClusterTest
class ConsumerOffsetsRerunClusterTest {

    private static final TopicPartition LEDGER_0 = new TopicPartition("ledger", 0);
    private static final int NEW_LEADER = 1;
    private static final int DEAD = 2;
    private static final int BY_BOTH = 20;
    private static final int BY_NEW_LEADER_ONLY = 10;
    private static final int BY_DEAD_ONLY = 15;
    private static final String GROUP = "ledger-readers";
    private static final Duration STEP = Duration.ofSeconds(60);

    @TempDir
    static Path dir;

    @BeforeAll
    static void theGroupReadsAHistoryTheElectionDestroys(LocalKafkaCluster cluster) throws Exception {
        cluster.createTopic(LEDGER_0.topic(), List.of(NEW_LEADER, DEAD), 1);
        produce(cluster, BY_BOTH, "all", "both");                        // [0, 20) on 1 and 2, epoch 0
        // the first commit creates __consumer_offsets while all three brokers are up (replication factor 3)
        GroupCommits.readAndCommit(cluster, GROUP, LEDGER_0, 0, false);
        cluster.stopBroker(DEAD, StopMode.ABRUPT);
        cluster.metadata().awaitPartition(LEDGER_0, v -> v.isr().equals(List.of(NEW_LEADER)), STEP);
        produce(cluster, BY_NEW_LEADER_ONLY, "1", "new-leader-only");   // [20, 30) on 1 alone, epoch 0
        cluster.stopBroker(NEW_LEADER, StopMode.ABRUPT);
        cluster.metadata().awaitBrokerFenced(NEW_LEADER);
        cluster.startBroker(DEAD);
        try (Admin admin = cluster.createAdmin()) {
            admin.electLeaders(ElectionType.UNCLEAN, Set.of(LEDGER_0)).partitions().get();
        }
        cluster.metadata().awaitPartition(LEDGER_0, v -> v.leader() == DEAD, STEP);
        produce(cluster, BY_DEAD_ONLY, "1", "dead-only");               // [20, 35) on 2 alone, in its epoch
        GroupCommits.readAndCommit(cluster, GROUP, LEDGER_0, BY_BOTH + BY_DEAD_ONLY, true);
        cluster.stopBroker(DEAD, StopMode.ABRUPT);
        cluster.metadata().awaitBrokerFenced(DEAD);
        cluster.startBroker(NEW_LEADER);
        cluster.metadata().awaitPartition(LEDGER_0, v -> v.leader() == PartitionView.NO_LEADER, STEP);
    }

    @Test
    void a_group_that_read_on_in_the_new_leaders_older_epoch_is_not_set_back_again(LocalKafkaCluster cluster)
            throws Exception {
        // given: the election made, with 2's disk telling where its history parts from 1's
        Path plan = CliRun.planWithTheDiskOf(cluster, DEAD, LEDGER_0.topic(), dir);
        Path result = dir.resolve("plan-result.json");
        CliRun executed = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--reason", "test",
                "--plan", plan.toString(), "--no-salvage");
        assertThat(executed.exitCode()).as(executed.out() + executed.err()).isEqualTo(ExitCode.OK);
        int electedEpoch = ResultFile.read(result).partitions().get(0).after().leaderEpoch();

        // the group is set back to 20, where 1's log parts from what it read
        CliRun first = consumerOffsets(cluster, result);
        assertThat(first.exitCode()).as(first.out() + first.err()).isEqualTo(ExitCode.OK);
        assertThat(first.out()).containsPattern(GROUP + "\\s+ledger-0\\s+35\\s+20\\s+cut of 2\\s+RESET");
        assertThat(committed(cluster).offset()).isEqualTo(BY_BOTH);

        // when: its consumer reads on from there, 1's records 20..29 of epoch 0, and commits 30 with that epoch
        GroupCommits.readAndCommit(cluster, GROUP, LEDGER_0, BY_BOTH + BY_NEW_LEADER_ONLY, true);
        OffsetAndMetadata readOn = committed(cluster);
        assertThat(readOn.offset()).isEqualTo(BY_BOTH + BY_NEW_LEADER_ONLY);
        assertThat(readOn.leaderEpoch()).hasValueSatisfying(epoch -> assertThat(epoch).isLessThan(electedEpoch));
        CliRun again = consumerOffsets(cluster, result);
        // and on a copy of the result without the record of the first reset beside it: the epoch alone tells
        Path copy = Files.createDirectory(dir.resolve("copy")).resolve("plan-result.json");
        Files.copy(result, copy);
        CliRun fromCopy = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "consumer-offsets",
                "--result-file", copy.toString(), "--plan", plan.toString(), "--execute", "--reason", "test");

        // then: 1 holds the record at 29 in the epoch the commit names: nothing is set back to 20 to be read twice
        for (CliRun run : List.of(again, fromCopy)) {
            assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.OK);
            assertThat(run.out()).contains("Consumer groups past the divergence point of the 1 elected partition(s):"
                    + " none; no offset was changed.");
        }
        assertThat(committed(cluster).offset()).isEqualTo(BY_BOTH + BY_NEW_LEADER_ONLY);
    }

    private static CliRun consumerOffsets(LocalKafkaCluster cluster, Path result) {
        return CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "consumer-offsets", "--result-file",
                result.toString(), "--execute", "--reason", "test");
    }

    private static void produce(LocalKafkaCluster cluster, int count, String acks, String round) {
        RoundProducer.produce(cluster, List.of(LEDGER_0), count, acks, round, Duration.ofSeconds(30));
    }

    private static OffsetAndMetadata committed(LocalKafkaCluster cluster) throws Exception {
        try (Admin admin = cluster.createAdmin()) {
            return admin.listConsumerGroupOffsets(GROUP).partitionsToOffsetAndMetadata().get().get(LEDGER_0);
        }
    }
}
