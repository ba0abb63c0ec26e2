// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.LastReplicaStandingOutage;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.PartitionView;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * On a real outage (orders-0 offline, its last leader gone, two replicas alive): an output path a run cannot write is
 * refused before the run probes or changes anything. A page named like the plan would otherwise replace the plan
 * with HTML, after the plan was written or, for {@code execute}, after the election; an output in a missing directory
 * would fail only after the election. The partition is read back from the cluster: still offline, nothing elected.
 */
@KafkaClusterTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class NewFilesOnlyClusterTest extends OfflineOrdersPartition {

    @Test
    @Order(1)
    void plan_whose_page_is_named_like_the_plan_writes_neither(LocalKafkaCluster cluster) throws Exception {
        Path both = dir.resolve("orders.json");

        CliRun run = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "plan", "--strategy", "proactive",
                "--probe-timeout-ms", "3000", "--topic", "orders", "--output-file", both.toString(),
                "--html", both.toString());

        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.USAGE);
        assertThat(run.err().strip()).isEqualTo("error: --html " + both + " is also where --output-file " + both
                + " goes: name a different file for each");
        assertThat(both).doesNotExist();
    }

    @Test
    @Order(2)
    void execute_whose_outputs_cannot_be_written_elects_nothing_and_leaves_the_plan_as_it_was(
            LocalKafkaCluster cluster) throws Exception {
        Path plan = CliRun.planProactive(cluster, dir.resolve("plan.json"), ORDERS_0);
        byte[] planned = Files.readAllBytes(plan);
        Path missing = dir.resolve("no-such-dir");

        for (List<String> outputs : List.of(List.of("--html", plan.toString()),
                List.of("--html", missing.resolve("plan.html").toString()),
                List.of("--result-file", missing.resolve("result.json").toString()))) {
            CliRun run = CliRun.of(Stream.concat(Stream.of("--bootstrap-server", cluster.bootstrapServers(),
                    "execute", "--plan", plan.toString(), "--reason", "INC-1 orders offline"), outputs.stream())
                    .toArray(String[]::new));

            assertThat(run.exitCode()).as(outputs + "\n" + run.out() + run.err()).isEqualTo(ExitCode.USAGE);
            assertThat(run.err().strip()).as(outputs.toString())
                    .startsWith("error: " + outputs.get(0) + " " + outputs.get(1) + " ")
                    .doesNotContain("Exception");
            assertThat(Files.readAllBytes(plan)).as(outputs.toString()).isEqualTo(planned);
            PartitionView orders0 = cluster.metadata().describePartition(ORDERS_0);
            assertThat(orders0.leader()).as("nothing elected with " + outputs).isEqualTo(PartitionView.NO_LEADER);
            assertThat(orders0.replicas()).as("no reorder").containsExactlyElementsOf(
                    LastReplicaStandingOutage.ASSIGNMENT);
        }
        assertThat(missing).doesNotExist();
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files).as("no page, result, salvage, journal or audit log").containsExactly(plan);
        }
    }
}
