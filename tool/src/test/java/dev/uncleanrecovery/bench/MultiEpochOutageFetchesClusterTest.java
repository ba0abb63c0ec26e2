// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.cli.CliRun;
import dev.uncleanrecovery.cli.ExitCode;
import dev.uncleanrecovery.election.TruncationEstimate;
import dev.uncleanrecovery.formats.Plan;
import dev.uncleanrecovery.formats.PlanFile;
import dev.uncleanrecovery.formats.PlanTruncation;
import dev.uncleanrecovery.formats.PlannedElection;
import dev.uncleanrecovery.formats.ResultFile;
import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The benchmark's outage on a few dozen partitions, their records written over three leader epochs: on most of them
 * broker 3's last written epoch is older than broker 2's, so what either loses under the other is known only from
 * the followers' look-ups on the brokers and the batches where they cut. Each broker gets those reads in Fetches
 * of many partitions, as it gets the probe's: a few Fetches whatever the number of partitions, where one Fetch a
 * partition would be dozens here and thousands at N = 5,000.
 */
@KafkaClusterTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MultiEpochOutageFetchesClusterTest {

    private static final String TOPIC = "epochs";
    private static final int PARTITIONS = 60;
    /**
     * A live broker's Fetches for up to 1,000 partitions: the probe's DivergingEpoch search (about log2(leader epoch
     * + 3) rounds) or the second look's one round, and the look-ups (the leader's epoch end, the follower's, the
     * batches where it cuts, and after an election the new leader's epoch end): a round each, one Fetch a round.
     */
    private static final int FETCHES_PER_BROKER = 8;
    private static final ManyPartitionOutage.Writes WRITES = ManyPartitionOutage.Writes.threeEpochs();

    @TempDir
    static Path dir;

    private static ManyPartitionOutage.Outage outage;

    @BeforeAll
    static void recordsOverThreeEpochsThenTheOutage(LocalKafkaCluster cluster) {
        outage = ManyPartitionOutage.reproduce(cluster, List.of(TOPIC), PARTITIONS, ManyPartitionOutage::assignment,
                WRITES, System.out::println).get(0);
    }

    @Test
    @Order(1)
    void plan_states_every_loss_exactly_from_a_few_fetches_per_broker(LocalKafkaCluster cluster) throws Exception {
        Path requests = dir.resolve("plan-requests.log");
        CliRun planned = CliRun.withRequestLog(requests, "--bootstrap-server", cluster.bootstrapServers(), "plan",
                "--strategy", "proactive", "--topic", TOPIC, "--output-file", dir.resolve("plan.json").toString());
        assertThat(planned.exitCode()).as(planned.out() + planned.err()).isEqualTo(ExitCode.OK);

        Plan plan = PlanFile.read(dir.resolve("plan.json"));
        assertThat(plan.partitions()).hasSize(PARTITIONS);
        int olderEpochOn3 = 0;
        int withoutLastEpochOn3 = 0;
        for (PlannedElection p : plan.partitions()) {
            int partition = p.topicPartition().partition();
            long longest = outage.logEndOffset(partition, ManyPartitionOutage.LONGEST);
            long shortest = outage.logEndOffset(partition, ManyPartitionOutage.SHORTEST);
            assertThat(p.designatedLeader()).as(p.topicPartition().toString()).isEqualTo(ManyPartitionOutage.LONGEST);
            // broker 3 holds what broker 2 holds up to its own end: it loses nothing under 2, and 2 loses the rest
            // under 3, counted from where 3's log ends whatever epoch each wrote it in
            assertThat(lossOf(p, ManyPartitionOutage.LONGEST, ManyPartitionOutage.SHORTEST)).as(p.toString())
                    .isEqualTo(new PlanTruncation(ManyPartitionOutage.SHORTEST, 0L, shortest, shortest,
                            TruncationEstimate.EXACT));
            assertThat(lossOf(p, ManyPartitionOutage.SHORTEST, ManyPartitionOutage.LONGEST)).as(p.toString())
                    .isEqualTo(new PlanTruncation(ManyPartitionOutage.LONGEST, longest - shortest, shortest, longest,
                            TruncationEstimate.EXACT));
            if (epochOf(p, ManyPartitionOutage.SHORTEST) < epochOf(p, ManyPartitionOutage.LONGEST)) {
                olderEpochOn3++;
            }
            if (WRITES.whileAllFollow().records(WRITES.epochs() - 1, partition) == 0) {
                withoutLastEpochOn3++;
            }
        }
        assertThat(olderEpochOn3).as("partitions whose losses needed the brokers' look-ups")
                .isEqualTo(withoutLastEpochOn3).isGreaterThan(PARTITIONS / 2);

        assertThat(fetchesPerBroker(requests)).as("Fetches per broker").containsOnlyKeys(2, 3)
                .allSatisfy((broker, fetches) -> assertThat(fetches).isLessThanOrEqualTo(FETCHES_PER_BROKER));
    }

    @Test
    @Order(2)
    void execute_measures_and_reads_back_every_cut_from_a_few_fetches_per_broker(LocalKafkaCluster cluster)
            throws Exception {
        Path requests = dir.resolve("execute-requests.log");
        CliRun executed = CliRun.withRequestLog(requests, "--bootstrap-server", cluster.bootstrapServers(), "execute",
                "--reason", "test", "--accept-unknown-loss", "--plan", dir.resolve("plan.json").toString());
        assertThat(executed.exitCode()).as(executed.out() + executed.err()).isEqualTo(ExitCode.OK);

        ResultFile result = ResultFile.read(dir.resolve("plan-result.json"));
        assertThat(result.partitions()).hasSize(PARTITIONS).allSatisfy(p -> {
            assertThat(p.outcome()).isEqualTo("ELECTED");
            assertThat(p.after().leader()).isEqualTo(ManyPartitionOutage.LONGEST);
        });
        // where broker 3 cuts under the new leader, read back from the brokers after the election where its last
        // epoch is older than the leader's: at its own log end (a shorter log of the leader's epoch is not asked)
        Plan plan = PlanFile.read(dir.resolve("plan.json"));
        List<Integer> olderEpochOn3 = plan.partitions().stream()
                .filter(p -> epochOf(p, ManyPartitionOutage.SHORTEST) < epochOf(p, ManyPartitionOutage.LONGEST))
                .map(p -> p.topicPartition().partition()).sorted().toList();
        Map<Integer, ResultFile.Truncation> readBack = new TreeMap<>();
        result.partitions().forEach(p -> (p.truncations() == null ? List.<ResultFile.Truncation>of() : p.truncations())
                .stream().filter(t -> t.broker() == ManyPartitionOutage.SHORTEST)
                .forEach(t -> readBack.put(p.partition(), t)));
        assertThat(readBack.keySet()).containsExactlyElementsOf(olderEpochOn3);
        assertThat(readBack.values()).allSatisfy(t -> assertThat(t.measuredFromOffset()).as(t.toString())
                .isEqualTo(t.toOffset()));
        assertThat(dir.resolve("plan-salvage")).as("nothing to salvage: no salvage made").doesNotExist();

        assertThat(fetchesPerBroker(requests)).as("Fetches per broker").containsOnlyKeys(2, 3)
                .allSatisfy((broker, fetches) -> assertThat(fetches).isLessThanOrEqualTo(FETCHES_PER_BROKER));
    }

    /** What {@code follower} loses under {@code leader}: the designated one's or an alternative's. */
    private static PlanTruncation lossOf(PlannedElection p, int leader, int follower) {
        return p.truncationsUnder(leader).orElseThrow().stream().filter(t -> t.broker() == follower)
                .map(t -> new PlanTruncation(t.broker(), t.records(), t.fromOffset(), t.toOffset(), t.estimate()))
                .findFirst().orElseThrow(() -> new AssertionError("no loss of " + follower + " under " + leader));
    }

    private static int epochOf(PlannedElection p, int broker) {
        return p.evidence().stream().filter(e -> e.broker() == broker).findFirst().orElseThrow()
                .lastWrittenLeaderEpoch();
    }

    private static Map<Integer, Integer> fetchesPerBroker(Path requestLog) throws Exception {
        assertThat(requestLog).exists();
        Map<String, Map<Integer, Integer>> sent = RequestLog.count(requestLog);
        System.out.println(requestLog.getFileName() + ": " + RequestLog.format(sent));
        return sent.getOrDefault("FETCH", Map.of());
    }
}
