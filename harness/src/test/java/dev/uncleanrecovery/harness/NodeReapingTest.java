// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/** A Kafka node never outlives the JVM that started it, even when that JVM is killed with -9. */
@DisabledIfSystemProperty(named = KafkaClusterExtension.SKIP_PROPERTY, matches = "true")
class NodeReapingTest {

    @Test
    void kafka_nodes_die_with_the_jvm_that_started_them_even_on_kill_9(@TempDir Path clusterDirectory) throws Exception {
        Process owner = new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m", "-XX:TieredStopAtLevel=1",
                "-Dkafka.server.classpath.file=" + System.getProperty("kafka.server.classpath.file"),
                "-cp", System.getProperty("java.class.path"),
                ClusterOwnerJvm.class.getName(), clusterDirectory.toString())
                .redirectErrorStream(true)
                .start();
        List<String> ownerOutput = new CopyOnWriteArrayList<>();
        List<Long> nodePids = List.of();
        try {
            nodePids = awaitNodePids(owner, ownerOutput);
            assertThat(nodePids).isNotEmpty().allSatisfy(pid -> assertThat(isAlive(pid)).isTrue());

            owner.destroyForcibly(); // SIGKILL: no shutdown hook runs in the owner
            assertThat(owner.waitFor(30, TimeUnit.SECONDS)).isTrue();

            List<Long> orphanCandidates = nodePids;
            await("the owner's Kafka nodes exit").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                    .until(() -> orphanCandidates.stream().noneMatch(NodeReapingTest::isAlive));
        } finally {
            owner.destroyForcibly();
            // If reaping is broken, do not leave the proof running.
            nodePids.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
        }
    }

    private static List<Long> awaitNodePids(Process owner, List<String> ownerOutput) throws Exception {
        CompletableFuture<List<Long>> pids = CompletableFuture.supplyAsync(() -> {
            try (BufferedReader output = new BufferedReader(
                    new InputStreamReader(owner.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = output.readLine()) != null) {
                    ownerOutput.add(line);
                    if (line.startsWith(ClusterOwnerJvm.PIDS_LINE)) {
                        return Arrays.stream(line.substring(ClusterOwnerJvm.PIDS_LINE.length()).trim().split(" "))
                                .map(Long::valueOf).toList();
                    }
                }
                throw new IllegalStateException("the cluster owner JVM exited without printing its node PIDs");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        try {
            return pids.get(120, TimeUnit.SECONDS);
        } catch (TimeoutException | ExecutionException e) {
            throw new AssertionError("the cluster owner JVM did not start its cluster: " + e
                    + "; its output:\n" + String.join("\n", ownerOutput), e);
        }
    }

    private static boolean isAlive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }
}
