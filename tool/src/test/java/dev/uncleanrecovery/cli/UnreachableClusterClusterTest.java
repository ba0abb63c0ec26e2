// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.LastReplicaStandingOutage;
import dev.uncleanrecovery.localcluster.PartitionView;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.salvage.SalvageStore;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Retry or fix: every command that connects exits 4 when the cluster cannot be reached (nothing listens at
 * --bootstrap-server) or does not answer (every live broker SIGSTOPped), and the same command, with the same files,
 * runs once the cluster answers. Exit 2 stays for what the operator must change.
 */
@KafkaClusterTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class UnreachableClusterClusterTest extends OfflineOrdersPartition {

    private static final String TIMEOUT_MS = "3000";
    private static final String REPLAY_TARGET = "orders-salvaged";

    /** Each command that connects, with the files of a real incident: its arguments but --bootstrap-server. */
    private static Map<String, List<String>> commands;

    @Test
    @Order(1)
    void every_command_that_connects_runs_while_the_cluster_answers(LocalKafkaCluster cluster) {
        Path plan = CliRun.planProactive(cluster, dir.resolve("plan.json"), ORDERS_0);
        CliRun salvaged = CliRun.of("inspect", "--log-dir",
                cluster.logDir(LastReplicaStandingOutage.LAST_LEADER).toString(), "--salvage-beyond", plan.toString());
        assertThat(salvaged.exitCode()).as(salvaged.out() + salvaged.err()).isEqualTo(ExitCode.OK);
        Path result = dir.resolve("plan-result.json");
        CliRun executed = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "execute", "--plan",
                plan.toString(), "--accept-unknown-loss", "--reason", "INC-1 orders offline");
        assertThat(executed.exitCode()).as(executed.out() + executed.err()).isEqualTo(ExitCode.OK);
        cluster.createTopic(REPLAY_TARGET, List.of(LastReplicaStandingOutage.LONGEST_SURVIVOR), Map.of());

        commands = new LinkedHashMap<>();
        commands.put("status", List.of("status"));
        commands.put("plan", List.of("plan", "--topic", "orders", "--output-file", dir.resolve("again.json").toString()));
        commands.put("execute", List.of("execute", "--plan", plan.toString(), "--dry-run"));
        commands.put("recover", List.of("recover", "--topic", "orders", "--output-file",
                dir.resolve("recover.json").toString()));
        commands.put("replay", List.of("replay", "--salvage-dir", SalvageStore.besidePlan(plan).toString(),
                "--to-topic", REPLAY_TARGET, "--result-file", result.toString()));
        commands.put("consumer-offsets", List.of("consumer-offsets", "--result-file", result.toString()));
        commands.put("hanging-transactions", List.of("hanging-transactions", "--result-file", result.toString()));

        commands.forEach((name, args) -> {
            CliRun run = run(cluster.bootstrapServers(), args);
            assertThat(run.exitCode()).as(name + ": " + run.out() + run.err()).isIn(ExitCode.OK, ExitCode.ATTENTION);
        });
        // the new files these runs wrote are in the way of a second run: they are made anew each time
        deleteIfExists(dir.resolve("again.json"), dir.resolve("recover.json"));
    }

    @Test
    @Order(2)
    void a_result_of_another_cluster_is_refused_before_any_group_or_transaction_is_read(LocalKafkaCluster cluster)
            throws IOException {
        Path result = dir.resolve("plan-result.json");
        Path foreign = Files.writeString(dir.resolve("foreign-result.json"), Files.readString(result)
                .replace(cluster.clusterId(), "AnotherClusterIdAAAAAA"));

        for (String command : List.of("consumer-offsets", "hanging-transactions")) {
            CliRun run = run(cluster.bootstrapServers(), List.of(command, "--result-file", foreign.toString()));

            assertThat(run.exitCode()).as(command + ": " + run.out() + run.err()).isEqualTo(ExitCode.USAGE);
            // the same refusal in both, each saying what it left unchanged
            assertThat(run.err().strip()).as(command).startsWith("error: " + foreign + " is of cluster"
                    + " AnotherClusterIdAAAAAA, but --bootstrap-server reaches cluster " + cluster.clusterId() + ": ")
                    .endsWith("; connect to the cluster that run elected on").doesNotContain("\n");
        }
    }

    @Test
    @Order(3)
    void every_command_that_connects_exits_4_when_nothing_listens_at_the_bootstrap_server() throws IOException {
        String closed = "127.0.0.1:" + closedPort();

        SoftAssertions.assertSoftly(softly -> commands.forEach((name, args) -> {
            CliRun run = run(closed, args);

            softly.assertThat(run.exitCode()).as(name + ": " + run.out() + run.err()).isEqualTo(ExitCode.UNREACHABLE);
            softly.assertThat(errors(run)).as(name).singleElement().asString().contains(closed);
        }));
    }

    @Test
    @Order(4)
    void every_command_that_connects_exits_4_when_no_live_broker_answers(LocalKafkaCluster cluster) {
        List<Integer> live = List.of(LastReplicaStandingOutage.SHORTEST_SURVIVOR, LastReplicaStandingOutage.LONGEST_SURVIVOR);
        live.forEach(cluster::pauseBroker);
        try {
            SoftAssertions.assertSoftly(softly -> commands.forEach((name, args) -> {
                long start = System.nanoTime();
                CliRun run = run(cluster.bootstrapServers(), args);
                long elapsedMs = (System.nanoTime() - start) / 1_000_000;

                softly.assertThat(run.exitCode()).as(name + ": " + run.out() + run.err())
                        .isEqualTo(ExitCode.UNREACHABLE);
                softly.assertThat(errors(run)).as(name).singleElement().asString().contains("no answer", "within 3 s");
                softly.assertThat(elapsedMs).as(name + ": bounded by --admin-timeout-ms").isLessThan(30_000);
            }));
        } finally {
            live.forEach(cluster::resumeBroker);
        }
        // no run reordered anything meanwhile (execute would, before electing)
        PartitionView orders0 = cluster.metadata().describePartition(ORDERS_0);
        assertThat(orders0.replicas()).containsExactlyElementsOf(LastReplicaStandingOutage.ASSIGNMENT);
    }

    /** The error lines of a run (progress lines may come before): one, and no stack trace. */
    private static List<String> errors(CliRun run) {
        assertThat(run.err()).doesNotContain("\tat ");
        return run.err().lines().filter(line -> line.startsWith("error: ")).toList();
    }

    private static CliRun run(String bootstrapServer, List<String> args) {
        return CliRun.of(Stream.concat(Stream.of("--bootstrap-server", bootstrapServer, "--admin-timeout-ms",
                TIMEOUT_MS), args.stream()).toArray(String[]::new));
    }

    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private static void deleteIfExists(Path... files) {
        for (Path file : files) {
            try {
                java.nio.file.Files.deleteIfExists(file);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
    }
}
