// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.apache.kafka.common.TopicPartition;

/** Runs the CLI in-process the way a user would, capturing what it prints and its exit code. */
public record CliRun(int exitCode, String out, String err) {

    public static CliRun of(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new CliRun(code, out.toString(), err.toString());
    }

    /** A proactive plan of one partition written to {@code file}, as the runbook makes it; the test fails without one. */
    static Path planProactive(LocalKafkaCluster cluster, Path file, TopicPartition tp) {
        CliRun planned = of("--bootstrap-server", cluster.bootstrapServers(), "plan", "--strategy", "proactive",
                "--probe-timeout-ms", "3000", "--topic", tp.topic(), "--partition", String.valueOf(tp.partition()),
                "--output-file", file.toString());
        assertThat(planned.exitCode()).as(planned.out() + planned.err()).isEqualTo(ExitCode.OK);
        return file;
    }
}
