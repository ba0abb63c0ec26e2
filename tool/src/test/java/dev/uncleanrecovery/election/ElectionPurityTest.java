// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.election;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The policy stays a pure function: a surprising choice must replay in a unit test, with no broker, disk or clock. */
class ElectionPurityTest {

    private static final List<String> FORBIDDEN = List.of(
            "import java.io.", "import java.nio.", "import java.net.", "import java.time.Clock",
            "import java.util.concurrent.", "import org.apache.kafka.clients.", "import com.fasterxml.",
            "import dev.uncleanrecovery.cluster.Cluster", "import dev.uncleanrecovery.cluster.Broker",
            "import dev.uncleanrecovery.probe.Probe", "import dev.uncleanrecovery.plan.",
            "import dev.uncleanrecovery.execute.", "import dev.uncleanrecovery.cli.");

    @Test
    void election_imports_nothing_that_does_io() throws IOException {
        Path sources = Path.of("tool/src/main/java/dev/uncleanrecovery/election");
        List<Path> files;
        try (Stream<Path> listing = Files.list(sources)) {
            files = listing.filter(f -> f.toString().endsWith(".java")).toList();
        }
        assertThat(files).isNotEmpty();
        for (Path file : files) {
            for (String line : Files.readAllLines(file)) {
                assertThat(FORBIDDEN).as(file + ": " + line).noneMatch(line::startsWith);
                assertThat(line).as(file.toString()).doesNotContain("System.currentTimeMillis", "Instant.now(");
            }
        }
    }
}
