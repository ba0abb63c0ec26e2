// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.dist;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.LastReplicaStandingOutage;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.PartitionView;
import dev.uncleanrecovery.localcluster.StopMode;
import java.nio.file.Path;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The unpacked release archive against a real broken cluster, with no Maven on the PATH: what an operator does on a
 * bastion host (status, plan) and on a stopped broker's host (inspect).
 */
@KafkaClusterTest
class ReleaseArchiveClusterTest {

    private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);

    @Test
    void status_plan_and_inspect_run_from_the_unpacked_archive(LocalKafkaCluster cluster, @TempDir Path dir)
            throws Exception {
        LastReplicaStandingOutage.Result outage = LastReplicaStandingOutage.reproduce(cluster, "orders", 1, 50, 10, s -> { });
        UnpackedArchive unpacked = UnpackedArchive.into(dir);
        assertThat(unpacked.shell(dir, "command -v mvn").exitCode()).as("no mvn on the PATH").isNotZero();
        ObjectMapper json = new ObjectMapper();

        UnpackedArchive.Result status = unpacked.tool(dir, "status", "--bootstrap-server", cluster.bootstrapServers(),
                "--output", "json");
        assertThat(status.exitCode()).as(status.err()).isEqualTo(3);
        assertThat(json.readTree(status.out()).get("offline")).singleElement()
                .satisfies(p -> assertThat(p.get("topic").asText() + "-" + p.get("partition").asInt()).isEqualTo("orders-0"));

        Path plan = dir.resolve("plan.json");
        UnpackedArchive.Result planned = unpacked.tool(dir, "plan", "--bootstrap-server", cluster.bootstrapServers(),
                "--strategy", "proactive", "--probe-timeout-ms", "3000", "--output-file", plan.toString());
        assertThat(planned.exitCode()).as(planned.out() + planned.err()).isZero();
        JsonNode election = json.readTree(plan.toFile()).get("partitions").get(0);
        assertThat(election.get("designatedLeader").asInt()).isEqualTo(LastReplicaStandingOutage.LONGEST_SURVIVOR);
        // planning changed nothing
        assertThat(cluster.metadata().describePartition(ORDERS_0).leader()).isEqualTo(PartitionView.NO_LEADER);

        // inspect on the host of a stopped broker: no network needed, its log dir read from disk
        int stopped = LastReplicaStandingOutage.SHORTEST_SURVIVOR;
        cluster.stopBroker(stopped, StopMode.ABRUPT);
        Path evidence = dir.resolve("evidence.json");
        UnpackedArchive.Result inspected = unpacked.tool(dir, "inspect", "--log-dir", cluster.logDir(stopped).toString(),
                "--topic", "orders", "--output-file", evidence.toString());
        assertThat(inspected.exitCode()).as(inspected.out() + inspected.err()).isZero();
        JsonNode read = json.readTree(evidence.toFile());
        assertThat(read.get("brokerId").asInt()).isEqualTo(stopped);
        assertThat(read.findValues("logEndOffset")).extracting(JsonNode::asLong)
                .containsExactly(outage.survivorLogEndOffsets().get(stopped));
    }
}
