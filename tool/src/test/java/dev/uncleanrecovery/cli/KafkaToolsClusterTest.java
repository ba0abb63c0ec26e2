// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.recovery.KafkaToolsSteps;
import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.harness.KafkaToolProcess;
import dev.uncleanrecovery.localcluster.LastReplicaStandingOutage;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.PartitionView;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code plan --kafka-tools DIR} on a real outage: the last leader, broker 1, is fenced for good, and Kafka's own
 * reassignment tool refuses any assignment that names it, so Kafka's tools cannot put the designated replica first.
 * The steps say so instead of offering commands that fail halfway.
 */
@KafkaClusterTest
class KafkaToolsClusterTest {

    @Test
    void partitions_with_a_fenced_replica_are_not_offered_to_kafkas_tools_because_they_refuse_them(
            LocalKafkaCluster cluster, @TempDir Path dir) throws Exception {
        LastReplicaStandingOutage.Result outage = LastReplicaStandingOutage.reproduce(cluster, "orders", 2, 50, 10, s -> { });
        Path tools = dir.resolve("kafka-tools");
        CliRun planned = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "plan", "--strategy", "proactive",
                "--probe-timeout-ms", "3000", "--output-file", dir.resolve("plan.json").toString(),
                "--kafka-tools", tools.toString());

        assertThat(planned.exitCode()).as(planned.out() + planned.err()).isZero();
        String said = planned.out().replaceAll("\\s+", " ");
        assertThat(said).contains("Kafka's tool elects the first live replica in assignment order, not the designated one",
                "The same elections with Kafka's own tools: " + tools.resolve("STEPS.txt") + " (0 of 2 partition(s)");
        String steps = Files.readString(tools.resolve("STEPS.txt"));
        for (TopicPartition tp : outage.topicPartitions()) {
            assertThat(steps).contains("# NOT " + tp + ": replica(s) on broker(s) [1] that DescribeCluster does not list");
        }
        assertThat(steps.lines().filter(l -> !l.isBlank() && !l.startsWith("#"))).as("no command to run").isEmpty();
        assertThat(tools.resolve(KafkaToolsSteps.REORDER)).doesNotExist();

        // what the refusal rests on: Kafka's reassignment tool, given the best-first order, refuses it
        Path reorder = dir.resolve("best-first.json");
        Files.writeString(reorder, "{\"version\":1,\"partitions\":[{\"topic\":\"orders\",\"partition\":0,"
                + "\"replicas\":[2,3,1]}]}");
        KafkaToolProcess.Run kafka = KafkaToolProcess.runAsPrinted("kafka-reassign-partitions.sh --bootstrap-server "
                + cluster.bootstrapServers() + " --execute --reassignment-json-file " + reorder);
        assertThat(kafka.exitCode()).isNotZero();
        assertThat(kafka.output()).contains("Unknown broker id 1");
        PartitionView after = cluster.metadata().describePartition(outage.topicPartitions().get(0));
        assertThat(after.replicas()).containsExactly(1, 3, 2);
        assertThat(after.leader()).isEqualTo(PartitionView.NO_LEADER);
    }
}
