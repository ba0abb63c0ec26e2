// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.uncleanrecovery.harness.InstalledKafka;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * demo from the unpacked release archive, with no Maven on the PATH, on an operator's installed Kafka. No cluster of
 * the harness runs beside it: the demo starts its own.
 */
class ReleaseArchiveDemoClusterTest {

    @Test
    void demo_runs_from_the_unpacked_archive_on_the_kafka_named_by_kafka_home(@TempDir Path dir) throws Exception {
        assumeFalse(Boolean.getBoolean("skipClusterTests"), "skipClusterTests=true: demo starts real Kafka");
        UnpackedArchive unpacked = UnpackedArchive.into(dir);
        Path kafkaHome = InstalledKafka.of(dir.resolve("kafka"));

        UnpackedArchive.Result demo = unpacked.tool(dir, Map.of("KAFKA_HOME", kafkaHome.toString()), "demo",
                "--partitions", "1", "--records", "50");

        assertThat(demo.exitCode()).as(demo.out() + demo.err()).isZero();
        assertThat(demo.out()).contains("Starting a local Kafka 4.4.0 cluster from " + kafkaHome.resolve("libs"),
                "(exit code 0)", "Demo done in");
        assertThat(demo.out()).containsPattern("readable now: \\d+; lost: \\d+ \\(the acks=1");
    }
}
