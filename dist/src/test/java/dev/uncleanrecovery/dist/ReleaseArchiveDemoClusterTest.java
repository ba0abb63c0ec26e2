// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.uncleanrecovery.harness.InstalledKafka;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * demo from the unpacked release archive, with no Maven on the PATH, on an operator's installed Kafka: the launcher,
 * the demo's jar and --kafka-home together. No cluster of the harness runs beside it: the demo starts its own.
 */
class ReleaseArchiveDemoClusterTest {

    @Test
    void demo_runs_from_the_unpacked_archive_on_the_installed_kafka(@TempDir Path dir) throws Exception {
        assumeFalse(Boolean.getBoolean("skipClusterTests"), "skipClusterTests=true: demo starts real Kafka");
        UnpackedArchive unpacked = UnpackedArchive.into(dir);
        Path kafkaHome = InstalledKafka.of(dir.resolve("kafka"));
        String serverJar = kafkaHome.resolve("libs/kafka_2.13-4.4.0.jar").toString();
        // a node of the demo's cluster, seen from outside: a JVM under the launcher whose classpath is the installed
        // Kafka's libs/, not the jars the build resolved
        AtomicBoolean nodeRanFromHome = new AtomicBoolean();
        AtomicBoolean demoDone = new AtomicBoolean();
        CompletableFuture<Void> watcher = CompletableFuture.runAsync(() -> {
            while (!demoDone.get() && !nodeRanFromHome.get()) {
                nodeRanFromHome.set(ProcessHandle.current().descendants().anyMatch(p -> runsFrom(p, serverJar)));
                pause();
            }
        });

        UnpackedArchive.Result demo;
        try {
            // the demo's JVM picks its nodes' ports from this test JVM's slice: another test JVM beside it picks
            // from its own, so neither takes a port the other just found free
            String slice = "-Dharness.port.slice=" + System.getProperty("harness.port.slice", "1")
                    + " -Dharness.port.slices=" + System.getProperty("harness.port.slices", "1");
            demo = unpacked.tool(dir, Map.of("KAFKA_UNCLEAN_RECOVERY_OPTS", slice), "demo", "--kafka-home",
                    kafkaHome.toString(), "--partitions", "1", "--records", "50");
        } finally {
            demoDone.set(true);
        }
        watcher.get(10, TimeUnit.SECONDS);

        assertThat(demo.exitCode()).as(demo.out() + demo.err()).isZero();
        assertThat(demo.out()).contains("Starting a local Kafka 4.4.0 cluster from " + kafkaHome.resolve("libs"),
                "(exit code 0)", "Demo done in");
        assertThat(nodeRanFromHome).as("a Kafka node ran from " + kafkaHome.resolve("libs")).isTrue();
        // the records lost are the acks=1 ones only the dead last leader had
        assertThat(demo.out()).containsPattern("readable now: \\d+; lost: \\d+ \\(the acks=1");
        assertThat(ProcessHandle.current().descendants().filter(p -> runsFrom(p, serverJar)))
                .as("every node the demo started is stopped").isEmpty();
    }

    private static boolean runsFrom(ProcessHandle process, String jar) {
        return process.isAlive() && process.info().arguments().map(args -> String.join(" ", args).contains(jar)).orElse(false);
    }

    private static void pause() {
        try {
            Thread.sleep(200);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
