// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.uncleanrecovery.harness.InstalledKafka;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The demo from start to end on an installed Kafka: what an operator runs with the release archive. */
class DemoClusterTest {

    @Test
    void demo_breaks_and_recovers_a_cluster_of_the_installed_kafka(@TempDir Path dir) throws Exception {
        assumeFalse(Boolean.getBoolean("skipClusterTests"), "skipClusterTests=true: demo starts real Kafka");
        Path home = InstalledKafka.of(dir.resolve("kafka"));
        String serverJar = home.resolve("libs/kafka_2.13-4.4.0.jar").toString();
        // a node of the demo's cluster, seen from outside: a JVM whose classpath is the installed Kafka's libs/
        AtomicBoolean nodeRanFromHome = new AtomicBoolean();
        AtomicBoolean demoDone = new AtomicBoolean();
        CompletableFuture<Void> watcher = CompletableFuture.runAsync(() -> {
            while (!demoDone.get() && !nodeRanFromHome.get()) {
                nodeRanFromHome.set(ProcessHandle.current().descendants().anyMatch(p -> p.info().arguments()
                        .map(args -> String.join(" ", args).contains(serverJar)).orElse(false)));
                sleep();
            }
        });

        DemoMainTest.Run demo;
        try {
            demo = DemoMainTest.run("demo", "--kafka-home", home.toString(), "--partitions", "1", "--records", "50");
        } finally {
            demoDone.set(true);
        }
        watcher.get(10, TimeUnit.SECONDS);

        assertThat(demo.exitCode()).as(demo.out() + demo.err()).isZero();
        assertThat(demo.out()).contains("Starting a local Kafka 4.4.0 cluster from " + home.resolve("libs"),
                "(exit code 0)", "Demo done in");
        assertThat(nodeRanFromHome).as("a Kafka node ran from " + home.resolve("libs")).isTrue();
        // what the demo counts: the acks=1 records only the dead last leader had are the ones lost
        assertThat(demo.out()).containsPattern("readable now: \\d+; lost: \\d+ \\(the acks=1");
        assertThat(ProcessHandle.current().descendants().filter(ProcessHandle::isAlive)
                .filter(p -> p.info().arguments().map(args -> String.join(" ", args).contains(serverJar)).orElse(false)))
                .as("every node the demo started is stopped").isEmpty();
    }

    private static void sleep() {
        try {
            Thread.sleep(200);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
